import ArgumentParser
import Foundation
import Gazetteer

extension GazetteerCommand {
    /// `gazetteer info`: what a database holds.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show counts per level, POIs, versions, coordinate system and SQLite version of a database.")

        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let info = try database.openRepository(create: true).info()
            if json {
                print(try JSONOutput.string(info))
                return
            }
            let levels: [(String, String)] = [("province", "provinces"), ("city", "cities"), ("district", "districts"), ("town", "towns")]
            var rows: [(String, String)] = [
                ("database", "\(info.path) (\(Format.bytes(info.sizeBytes)))"),
                ("schema version", "\(info.schemaVersion)"),
                ("dataset", info.datasetVersion.isEmpty ? "(none)" : info.datasetVersion),
            ]
            if !info.datasetSources.isEmpty { rows.append(("sources", info.datasetSources)) }
            rows.append(("coordinates", info.coordinateSystem))
            rows.append(("SQLite", info.sqliteVersion))
            for (key, label) in levels {
                var value = "\(info.regionCounts[key] ?? 0)"
                if key == "town", info.approximateTownCentres > 0 {
                    value += " (\(info.approximateTownCentres) with approximate centres)"
                }
                rows.append((label, value))
            }
            rows.append(("boundaries", "\(info.boundaryCount)"))
            rows.append(("POIs", "\(info.poiCount)"))
            print(Format.table(rows))
            if info.regionCounts.values.reduce(0, +) == 0 && info.poiCount == 0 {
                print("\nNo data yet: load CSV files with `gazetteer import --db \(info.path) FILES…`.")
            }
        }
    }
}
