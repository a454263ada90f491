import ArgumentParser
import Gazetteer

/// `--coordsys` and `--json`, shared by the query verbs.
struct QueryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Coordinate system of given and printed coordinates: gcj02 (AMap, default), wgs84 (GPS) or bd09 (Baidu).", valueName: "system"))
    var coordsys: CoordinateSystem = .gcj02

    @Flag(help: "Print JSON in AMap's response shape.")
    var json = false
}

extension QueryOptions {
    /// Prints what `body` answers. A library error becomes, in --json mode, AMap's failure
    /// object on stdout (as scripts expect), otherwise a message on stderr; both exit 1.
    func answer(_ body: () throws -> String) throws {
        do {
            print(try body())
        } catch {
            guard json, error is GazetteerError else { throw error }
            print(JSON.failure("\(error)").text)
            throw ExitCode(1)
        }
    }
}
