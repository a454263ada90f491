import Foundation
import GazetteerSQLite

/// The schema compiled in from the top-level `schema.sql`, and the checks made when a
/// database is opened, so that a wrong file fails early with a message instead of a
/// confusing SQL error later.
package enum Schema {
    /// The text of schema.sql, embedded at build time.
    package static let sql: String = String(decoding: PackageResources.schema_sql, as: UTF8.self)

    /// The `PRAGMA user_version` that schema.sql sets: the version this library reads.
    package static let version = pragma("user_version")

    /// The `PRAGMA page_size` that schema.sql sets. Run with the rest of the schema it would
    /// come too late (the file is WAL by then, which fixes the size), so a new file gets it as
    /// it is opened.
    package static let pageSize = pragma("page_size")

    /// The number schema.sql sets `PRAGMA name` to. Read by hand: compiling a regular
    /// expression cost more than the rest of opening a database, which every command does.
    private static func pragma(_ name: String) -> Int {
        guard let key = sql.range(of: "PRAGMA \(name)", options: .caseInsensitive),
              let number = Int(sql[key.upperBound...].drop(while: { $0 == " " || $0 == "=" }).prefix(while: { $0.isASCII && $0.isNumber }))
        else { preconditionFailure("schema.sql has no PRAGMA \(name)") }
        return number
    }

    /// Opens `path` and makes sure it is a gazetteer database of this schema version; a new
    /// (empty) file opened read-write gets the schema.
    package static func open(path: String, mode: Connection.Mode) throws(GazetteerError) -> Connection {
        let connection = try openOnce(path: path, mode: mode)
        // An import by copy renames its file over the old one; a process that opened the old
        // file and waited on the import's lock reads the old file (and would share the new
        // one's -wal and -shm files). It opens the new file instead.
        if connection.fileHasMoved {
            connection.close()
            return try openOnce(path: path, mode: mode)
        }
        return connection
    }

    private static func openOnce(path: String, mode: Connection.Mode) throws(GazetteerError) -> Connection {
        do {
            try Connection.checkFeatures()
        } catch {
            throw .sqliteFeatureMissing(error.message)
        }
        // Looked at before SQLite is, which reports a folder as "disk I/O error" and a
        // missing folder as "unable to open database file".
        if let problem = Schema.problemBeforeOpening(path, mode: mode) { throw problem }
        let connection: Connection
        do {
            connection = try Connection(path: path, mode: mode, pageSize: pageSize)
        } catch {
            throw map(error, path: path)
        }
        do {
            let userVersion = try connection.scalar("PRAGMA user_version")
            let objectCount = try connection.scalar("SELECT count(*) FROM sqlite_schema")
            guard case .integer(let found) = userVersion, case .integer(let objects) = objectCount else {
                throw GazetteerError.notAGazetteerDatabase(path: path)
            }
            if objects == 0 && found == 0 {
                guard mode == .readWrite else {
                    throw GazetteerError.cannotOpen(
                        path: path, reason: "the database is empty (it holds no tables). Create it by importing data into it.")
                }
                try connection.savepoint { try connection.execute(sql) }
                return connection
            }
            let hasMeta = try hasMetaTable(connection)
            if found == 0 || !hasMeta {
                throw GazetteerError.notAGazetteerDatabase(path: path)
            }
            if Int(found) != version {
                throw GazetteerError.schemaVersionMismatch(path: path, found: Int(found), expected: version)
            }
            return connection
        } catch let error as GazetteerError {
            throw error
        } catch let error as SQLiteError {
            throw map(error, path: path)
        } catch {
            throw GazetteerError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    private static func hasMetaTable(_ connection: Connection) throws -> Bool {
        try connection.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'") == .integer(1)
    }

    /// Turns a SQLite failure (at open time or in a query) into the case a caller can act
    /// on, with the file's own state (a folder, missing, read-only …) as the reason where
    /// SQLite's message alone ("disk I/O error", "unable to open database file") says nothing.
    package static func map(_ error: SQLiteError, path: String) -> GazetteerError {
        switch error.code {
        case .notADatabase:
            return .notADatabase(path: path)
        case .corrupt:
            return .damaged(path: path, reason: FileDiagnosis.isShorterThanItsHeader(path) ? FileDiagnosis.cutOff : error.message)
        case .readOnly:
            return .readOnly(path: path, reason: FileDiagnosis.whyNotWritable(path) ?? Self.strip(error.message, path: path))
        case .cannotOpen, .ioError, .permission:
            if let problem = Schema.problemBeforeOpening(path, mode: .readOnly) { return problem }
            if error.code.primary == .ioError {
                if FileDiagnosis.isShorterThanItsHeader(path) {
                    return .damaged(path: path, reason: FileDiagnosis.cutOff)
                }
                return .cannotOpen(path: path, reason: "reading it failed (SQLite: \(Self.strip(error.message, path: path)), code \(error.code.rawValue)). "
                    + "If it is on removable or network storage, check that it is still attached; otherwise check it with Repository.check().")
            }
            return .cannotOpen(path: path, reason: Self.strip(error.message, path: path))
        default:
            return .database(error)
        }
    }

    /// SQLite's message without the "cannot open PATH: " the connection puts in front, as the
    /// error's own description names the file.
    private static func strip(_ message: String, path: String) -> String {
        let prefix = "cannot open \(path): "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }
}

extension Schema {
    /// A problem with `path` that makes opening it pointless, or nil when SQLite should try.
    package static func problemBeforeOpening(_ path: String, mode: Connection.Mode) -> GazetteerError? {
        if path.isEmpty || path == ":memory:" { return nil }
        if FileDiagnosis.isDirectory(path) {
            return .cannotOpen(path: path, reason: "it is a folder, not a database file. Name the database file itself, e.g. \((path as NSString).appendingPathComponent("gazetteer.sqlite")).")
        }
        let folder = FileDiagnosis.folder(of: path)
        guard let fileSize = FileDiagnosis.size(path) else {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
                return .cannotOpen(path: path, reason: "the folder \(folder) does not exist. Check the path"
                    + (mode == .readWrite ? ", or create the folder first (mkdir -p \(folder))." : "."))
            }
            if !isDirectory.boolValue {
                return .cannotOpen(path: path, reason: "\(folder) is a file, not a folder. Check the path.")
            }
            if mode == .readOnly {
                return .cannotOpen(path: path, reason: "no such file. Check the path, or create the database by importing data into it.")
            }
            if let why = FileDiagnosis.whyNotWritable(path) { return .readOnly(path: path, reason: why) }
            return nil
        }
        if access(path, R_OK) != 0 {
            return .cannotOpen(path: path, reason: "permission denied: its file permissions do not let you read it (\(FileDiagnosis.permissions(path))). Ask its owner, or use a copy you can read.")
        }
        if fileSize > 0 && fileSize < 100 {
            // Shorter than SQLite's 100-byte header: not a database, whatever the first bytes.
            return .notADatabase(path: path)
        }
        return nil
    }
}
