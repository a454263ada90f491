import CSQLite

/// An error reported by SQLite, with what a person needs to act on it: the extended result
/// code (matchable with `~=` against its primary code, as in `case .busy`), SQLite's own
/// message and the statement that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite result codes a caller may want to match. Extended codes match their primary
    /// code: `SQLITE_CONSTRAINT_UNIQUE` matches `.constraint`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// The primary result code (the low byte of an extended code).
        public var primary: Code { Code(rawValue: rawValue & 0xFF) }

        public static let error = Code(rawValue: SQLITE_ERROR)
        public static let permission = Code(rawValue: SQLITE_PERM)
        public static let abort = Code(rawValue: SQLITE_ABORT)
        public static let busy = Code(rawValue: SQLITE_BUSY)
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        public static let full = Code(rawValue: SQLITE_FULL)
        public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        public static let range = Code(rawValue: SQLITE_RANGE)
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)

        /// SQLite's English name for the code, e.g. "constraint failed".
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }

        /// Lets `case .constraint` match any extended constraint code.
        public static func ~= (pattern: Code, value: Code) -> Bool {
            pattern == value || (pattern.rawValue & ~0xFF == 0 && pattern.rawValue == value.rawValue & 0xFF)
        }
    }

    /// The extended result code.
    public let code: Code
    /// SQLite's message (`sqlite3_errmsg`) at the time of the failure.
    public let message: String
    /// The SQL that failed, when there was one.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = Code(rawValue: code)
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(code.rawValue) (\(code.primary)): \(message)"
        if let sql { text += " — in: \(sql.count > 300 ? String(sql.prefix(300)) + "…" : sql)" }
        return text
    }
}
