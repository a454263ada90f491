import CSQLite

/// A prepared statement. Connections cache these (prepared with SQLITE_PREPARE_PERSISTENT),
/// so each use starts with `reset` and bindings are cleared; the handle is finalized when the
/// last reference goes.
package final class Statement {
    package let sql: String
    private(set) var handle: OpaquePointer?
    private unowned let connection: Connection

    package init(connection: Connection, sql: String, persistent: Bool) throws(SQLiteError) {
        self.connection = connection
        self.sql = sql
        var stmt: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var rest = ""
        let rc = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(connection.handle, text, -1, flags, &stmt, &tail)
            if let tail { rest = String(cString: tail) }
            return rc
        }
        guard rc == SQLITE_OK, let stmt else {
            throw connection.error(rc, sql: sql)
        }
        // SQLite compiles only the first statement of the text and would silently drop the rest.
        if !Self.isBlank(rest) {
            sqlite3_finalize(stmt)
            throw SQLiteError(code: SQLITE_MISUSE, message: "the SQL holds more than one statement "
                + "(a prepared statement runs only the first; run several with `execute`)", sql: sql)
        }
        handle = stmt
        parameterCount = Int(sqlite3_bind_parameter_count(stmt))
    }

    /// How many parameters the SQL has: a bind must give exactly that many values.
    package private(set) var parameterCount = 0

    /// True when `text` holds only white space and SQL comments.
    static func isBlank(_ text: String) -> Bool {
        var s = Substring(text)
        while true {
            s = s.drop { $0.isWhitespace || $0 == ";" }
            if s.hasPrefix("--") {
                guard let end = s.firstIndex(of: "\n") else { return true }
                s = s[end...]
            } else if s.hasPrefix("/*") {
                guard let end = s.range(of: "*/") else { return true }
                s = s[end.upperBound...]
            } else {
                return s.isEmpty
            }
        }
    }

    deinit { sqlite3_finalize(handle) }

    /// The error for result code `rc` of this statement, with the connection's message.
    func connectionError(_ rc: Int32) -> SQLiteError { connection.error(rc, sql: sql) }

    /// Readies the statement for a new use: resets it and clears old bindings.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding

    /// Binds by 1-based index.
    package func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(var v):
            // By length, from the string's own bytes: passing the String as a C string made a
            // NUL-terminated copy per bind (the geocoder binds a few per address), and cut the
            // text at the first NUL it held.
            rc = v.withUTF8 { b in
                b.withMemoryRebound(to: CChar.self) { c in
                    sqlite3_bind_text64(handle, index, c.baseAddress ?? UnsafePointer(bitPattern: 1), sqlite3_uint64(c.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let v):
            rc = v.withUnsafeBytes { raw in
                // A zero-length blob must still be a blob, not NULL.
                sqlite3_bind_blob64(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(v.count), SQLITE_TRANSIENT)
            }
        case .null: rc = sqlite3_bind_null(handle, index)
        }
        if rc != SQLITE_OK { throw connectionError(rc) }
    }

    /// Binds values to parameters 1...n, after resetting the statement.
    package func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        reset()
        // SQLite would leave missing parameters NULL and refuse extra ones only by index.
        guard values.count == parameterCount else {
            throw SQLiteError(code: SQLITE_RANGE, message: "the statement has \(parameterCount) parameter"
                + (parameterCount == 1 ? "" : "s") + " but \(values.count) value" + (values.count == 1 ? " was" : "s were") + " given", sql: sql)
        }
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    /// Binds by name (`:name`, `@name` or `$name`; give the name with its prefix), after a reset.
    package func bind(named values: [String: SQLiteValue]) throws(SQLiteError) {
        reset()
        guard values.count == parameterCount else {
            throw SQLiteError(code: SQLITE_RANGE, message: "the statement has \(parameterCount) parameters but \(values.count) values were given", sql: sql)
        }
        for (name, v) in values {
            let index = sqlite3_bind_parameter_index(handle, name)
            guard index > 0 else {
                throw SQLiteError(code: SQLITE_RANGE, message: "no parameter named \(name)", sql: sql)
            }
            try bind(v, at: index)
        }
    }

    // MARK: Stepping

    /// Advances to the next row; false when done. Statements that return no rows are run
    /// with a single `step()`.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let err = connectionError(rc)
            sqlite3_reset(handle)
            // A statement that failed may stay broken (schema changed under it, a constraint
            // it will always hit): the next use prepares it afresh.
            connection.evict(self)
            throw err
        }
    }

    /// Runs the statement once with the given values, ignoring any rows.
    package func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs the statement once with values bound by `binding` (`bind(_:at:)`), ignoring any
    /// rows: for statements run per row of an import, where an array of values per row costs
    /// an allocation.
    package func run(binding: (Statement) throws(SQLiteError) -> Void) throws(SQLiteError) {
        reset()
        defer { sqlite3_reset(handle) }
        try binding(self)
        while try step() {}
    }

    /// Runs the statement and maps each row.
    package func rows<T>(_ values: [SQLiteValue] = [], _ map: (Statement) throws -> T) throws -> [T] {
        try bind(values)
        defer { sqlite3_reset(handle) }
        var out: [T] = []
        while try step() { out.append(try map(self)) }
        return out
    }

    /// Runs the statement and maps the first row, if any.
    package func first<T>(_ values: [SQLiteValue] = [], _ map: (Statement) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        return try step() ? try map(self) : nil
    }

    // MARK: Typed column reads (0-based)

    package var columnCount: Int32 { sqlite3_column_count(handle) }
    package func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    /// Whether column `i` holds text or an integer (`typeof`'s answer, without a string per row).
    package func isText(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_TEXT }
    package func isInteger(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_INTEGER }
    package func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    package func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(handle, i)) }
    package func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
    package func optionalInt64(_ i: Int32) -> Int64? { isNull(i) ? nil : int64(i) }
    package func optionalDouble(_ i: Int32) -> Double? { isNull(i) ? nil : double(i) }

    package func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(handle, i) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
    package func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }

    package func blob(_ i: Int32) -> [UInt8] { withBlob(i) { Array($0) } }
    package func optionalBlob(_ i: Int32) -> [UInt8]? { isNull(i) ? nil : blob(i) }
    /// The blob of column `i`, read in place (valid only inside `body`): no array per row.
    package func withBlob<T>(_ i: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let n = Int(sqlite3_column_bytes(handle, i))
        guard n > 0, let p = sqlite3_column_blob(handle, i) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// The first `count` columns of the current row.
    package func values(_ count: Int32) -> [SQLiteValue] { (0..<count).map(value) }

    package func value(_ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(int64(i))
        case SQLITE_FLOAT: return .real(double(i))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB: return .blob(blob(i))
        default: return .null
        }
    }
}

/// SQLite copies bound text and blobs when given this destructor.
package let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
