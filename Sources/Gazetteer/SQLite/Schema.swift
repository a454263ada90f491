import Foundation

/// The schema compiled in from the top-level `schema.sql`, and the checks made when a
/// database is opened, so that a wrong file fails early with a message instead of a
/// confusing SQL error later.
enum Schema {
    /// The text of schema.sql, embedded at build time.
    static let sql: String = String(decoding: PackageResources.schema_sql, as: UTF8.self)

    /// The `PRAGMA user_version` that schema.sql sets: the version this library reads.
    static let version: Int = {
        guard let range = sql.range(of: #"PRAGMA\s+user_version\s*=\s*(\d+)"#, options: .regularExpression),
              let number = sql[range].split(whereSeparator: { !$0.isNumber }).last.flatMap({ Int($0) })
        else { preconditionFailure("schema.sql has no PRAGMA user_version") }
        return number
    }()

    /// Opens `path` and makes sure it is a gazetteer database of this schema version; a new
    /// (empty) file opened read-write gets the schema.
    static func open(path: String, mode: Connection.Mode) throws(GazetteerError) -> Connection {
        do {
            try Connection.checkFeatures()
        } catch {
            throw .sqliteFeatureMissing(error.message)
        }
        let connection: Connection
        do {
            connection = try Connection(path: path, mode: mode)
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
                        path: path, reason: "the database is empty. Create it with `gazetteer import --db \(path) FILES…`.")
                }
                try connection.transaction { try connection.execute(sql) }
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

    /// Turns a SQLite failure at open time into the case a caller can act on.
    static func map(_ error: SQLiteError, path: String) -> GazetteerError {
        switch error.code {
        case .notADatabase, .corrupt: return .notADatabase(path: path)
        case .cannotOpen: return .cannotOpen(path: path, reason: error.message)
        case .readOnly: return .readOnly(path: path, reason: error.message)
        default: return .database(error)
        }
    }
}
