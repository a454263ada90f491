import GazetteerSQLite

/// Errors a caller of the library can match by case; each message says what to do next.
public enum GazetteerError: Error, Sendable, CustomStringConvertible {
    /// The SQLite library lacks FTS5 or R*Tree.
    case sqliteFeatureMissing(String)
    /// The file could not be opened (missing, permissions, a directory …).
    case cannotOpen(path: String, reason: String)
    /// The file is not a SQLite database at all (random bytes, truncated, encrypted).
    case notADatabase(path: String)
    /// A SQLite database whose content is damaged (cut off, overwritten): SQLite reported
    /// corruption while reading it. `reason` says what was found.
    case damaged(path: String, reason: String)
    /// A SQLite database, but not one made by gazetteer.
    case notAGazetteerDatabase(path: String)
    /// Made by gazetteer with another schema version.
    case schemaVersionMismatch(path: String, found: Int, expected: Int)
    /// The database was opened read-only, or its file cannot be written.
    case readOnly(path: String, reason: String)
    /// A caller-supplied argument is out of range or malformed.
    case invalidArgument(name: String, reason: String)
    /// An unexpected SQLite failure.
    case database(SQLiteError)

    public var description: String {
        switch self {
        case .sqliteFeatureMissing(let message):
            return message
        case .cannotOpen(let path, let reason):
            return "cannot open database \(path): \(reason)"
        case .notADatabase(let path):
            // Never "delete it": the user may have named the wrong file.
            return "\(path) is not a SQLite database. Check that this is the right file; "
                + "if this is the gazetteer database, it is damaged: rebuild it by importing your data into a new file."
        case .damaged(let path, let reason):
            return "\(path) is a damaged SQLite database: \(reason). Check that this is the right file; "
                + "if this is the gazetteer database, rebuild it by importing your data into a new file "
                + "(Repository.check() lists what is wrong)."
        case .notAGazetteerDatabase(let path):
            return "\(path) is a SQLite database but not a gazetteer database (it has no gazetteer schema). "
                + "Open a gazetteer database, or a new file to create one."
        case .schemaVersionMismatch(let path, let found, let expected):
            let what = found < expected ? "an older" : "a newer"
            return "\(path) was made by \(what) gazetteer (schema version \(found); this one reads version \(expected)). "
                + (found < expected
                    ? "Rebuild it by importing your data into a new file (the default database is rebuilt from the seed automatically)."
                    : "Use a newer gazetteer to read it, or rebuild it with this one.")
        case .readOnly(let path, let reason):
            return "cannot write to \(path): \(reason)."
        case .invalidArgument(let name, let reason):
            return "invalid \(name): \(reason)"
        case .database(let error):
            return error.description
        }
    }
}
