import ArgumentParser
import Gazetteer

/// `--coordsys` and `--json`, shared by the query verbs.
struct QueryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Coordinate system of given and printed coordinates: gcj02 (AMap, default), wgs84 (GPS) or bd09 (Baidu).", valueName: "system"))
    var coordsys: CoordinateSystem = .gcj02

    @Flag(help: "Print JSON in AMap's response shape.")
    var json = false
}
