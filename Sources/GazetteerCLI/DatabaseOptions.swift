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
        guard let path = explicitPath else {
            let path = DefaultDatabase.path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: path) { try Repository.create(at: path) }
            return try Repository(path: path)
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard create else {
                throw CLIError("no database at \(path). Create one with `gazetteer import --db \(path) FILES…`.")
            }
            try Repository.create(at: path)
        }
        return try Repository(path: path)
    }
}

/// A failure the CLI reports as one line on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
