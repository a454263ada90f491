import ArgumentParser
import Gazetteer

/// The `gazetteer` command: offline Chinese address look-up from one SQLite file.
@main
struct GazetteerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gazetteer",
        abstract: "Offline Chinese address gazetteer: reverse geocoding, nearby POIs, keyword search and geocoding from one SQLite file.",
        discussion: """
            Coordinates are longitude,latitude (AMap's order) in GCJ-02 unless --coordsys says otherwise.
            The database is the one named by --db, else by $GAZETTEER_DB, else the default one,
            which is built from the bundled seed on first use.
            """,
        version: GazetteerVersion.release,
        subcommands: [Reverse.self, Nearby.self, Search.self, GeocodeCommand.self, District.self, Info.self, Import.self]
    )
}
