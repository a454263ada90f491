import ArgumentParser
import Foundation
import Gazetteer

/// `--db`, shared by every verb that reads or writes a database.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The gazetteer database file (default: $GAZETTEER_DB, else the bundled default database).", valueName: "path"))
    var db: String?

    /// The path named by --db or $GAZETTEER_DB, if any.
    var explicitPath: String? {
        if let db, !db.isEmpty { return db }
        if let env = ProcessInfo.processInfo.environment["GAZETTEER_DB"], !env.isEmpty { return env }
        return nil
    }

    func validate() throws {
        if let db, db.isEmpty { throw ValidationError("--db needs a file path.") }
    }

    /// Opens the database for queries. A named file that does not exist yet is created
    /// (empty) only when `create` is set, so a typo in --db does not silently make new files.
    func openRepository(create: Bool = false) throws -> Repository {
        guard let path = explicitPath else { return try openDefault() }
        if !FileManager.default.fileExists(atPath: path) {
            guard create else {
                throw CLIError("no database at \(path). Create one with `gazetteer import --db \(path) FILES…`.")
            }
            try Repository.create(at: path)
        }
        return try Repository(path: path)
    }
}

extension DatabaseOptions {
    /// The default database, built from the bundled seed first when it is missing or stale.
    func openDefault() throws -> Repository {
        let path = DefaultDatabase.path
        let seed = DefaultDatabase.seedDirectory
        if let reason = DefaultDatabase.staleness(path: path, seed: seed) {
            guard let seed else {
                throw CLIError("""
                    no database named and no default database at \(path) (\(reason)), and the bundled seed \
                    was not found. Pass --db PATH, set GAZETTEER_DB, or set GAZETTEER_SEED to the seed folder.
                    """)
            }
            stderr("building the default database at \(path) from the bundled seed (\(reason)); this happens once…")
            let bar = ProgressBar(label: "building")
            let summary = try DefaultDatabase.build(path: path, seed: seed, progress: bar.update)
            stderr("built in \(String(format: "%.1f", summary.seconds)) s: \(summary.regions.total) regions, \(summary.pois.total) POIs")
        }
        return try Repository(path: path)
    }
}

/// Writes a line to stderr, for notices that must not mix with answers on stdout.
func stderr(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// A failure the CLI reports as one line on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
