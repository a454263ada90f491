import CSQLite
import Foundation

/// One SQLite connection. Not thread-safe by design (opened with SQLITE_OPEN_NOMUTEX): the
/// repository hands each connection to one task at a time, which is cheaper than SQLite's
/// own locking on every call. `@unchecked Sendable` only so a pool can hand it between
/// threads; it is never used by two at once.
package final class Connection: @unchecked Sendable {
    package enum Mode: Sendable {
        /// Read-only; fails if the file does not exist.
        case readOnly
        /// Read-write, creating the file when missing; WAL journal so readers never block.
        case readWrite
        /// Read-write with no journal, no fsync and an exclusive lock: for a private copy that
        /// is renamed into place only once complete (`ImportCopy`), so a failure is undone by
        /// discarding the file, never by rolling back.
        case unjournaled
    }

    package let path: String
    package let mode: Mode
    /// True when the file was opened with `immutable=1` because it sits where nothing can
    /// write (see `openImmutableIfUnwritable`): no locks, no -wal/-shm files.
    private(set) var isImmutable = false
    private(set) var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]
    /// Savepoints opened by `savepoint` and not yet ended, to name the next one.
    private var savepointDepth = 0

    /// How long a statement waits on a lock held by another process before giving up.
    package static let busyTimeoutMilliseconds: Int32 = 10_000

    /// Process-wide settings, applied once before the first connection opens.
    private static let configured: Bool = {
        _ = gazetteer_sqlite_disable_memstatus()
        return true
    }()

    /// - Parameter pageSize: the page size a new (empty) file gets; an existing one keeps its own.
    package init(path: String, mode: Mode, pageSize: Int? = nil) throws(SQLiteError) {
        self.path = path
        self.mode = mode
        _ = Connection.configured
        try Connection.checkFeatures()
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= (mode == .readOnly) ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        handle = try Connection.open(path, flags: flags, path: path)
        if mode == .readOnly {
            try openImmutableIfUnwritable()
        } else if sqlite3_db_readonly(handle, "main") == 1 {
            // SQLite quietly falls back to read-only when it cannot open the file for
            // writing; say so now rather than at the first write, deep in an import.
            throw SQLiteError(code: SQLITE_READONLY, message: FileDiagnosis.whyNotWritable(path) ?? "SQLite could open it only read-only")
        }
        try configure(pageSize: pageSize)
    }

    /// Applies the per-connection settings.
    private func configure(pageSize: Int?) throws(SQLiteError) {
        try execute("PRAGMA foreign_keys = ON")
        // Reads map the file instead of copying pages through read(2).
        try execute("PRAGMA mmap_size = 1073741824")
        if mode == .unjournaled {
            try execute("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        } else if mode == .readWrite {
            do {
                // Only a file with no pages yet takes it, and only before it turns WAL.
                if let pageSize { try execute("PRAGMA page_size = \(pageSize)") }
                // WAL lets readers keep reading during an import.
                try execute("PRAGMA journal_mode = WAL")
                try execute("PRAGMA synchronous = NORMAL")
            } catch {
                // WAL needs the -wal and -shm files beside the database: in a folder that
                // cannot be written the file opens but this fails with "unable to open".
                if let why = FileDiagnosis.whyNotWritable(path) { throw SQLiteError(code: SQLITE_READONLY, message: why, sql: error.sql) }
                throw error
            }
        }
    }

    /// Opens one handle, closing it again on failure.
    private static func open(_ uri: String, flags: Int32, path: String) throws(SQLiteError) -> OpaquePointer? {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(uri, &db, flags, nil)
        guard rc == SQLITE_OK else {
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, message: "cannot open \(path): \(message)")
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Connection.busyTimeoutMilliseconds)
        return db
    }

    /// `path` as a `file:` URI with query parameters; `%`, `?` and `#` are escaped so any
    /// file name survives.
    package static func uri(_ path: String, _ parameters: String) -> String {
        let escaped = path.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "?", with: "%3F").replacingOccurrences(of: "#", with: "%23")
        return "file:" + escaped + "?" + parameters
    }

    /// A WAL database can only be read with its -shm file (and a -wal file), which SQLite
    /// creates on first read. On a read-only file system, or in a folder this process may
    /// not write, it cannot: the first read fails with SQLITE_CANTOPEN (or a
    /// SQLITE_READONLY code). The file is then reopened with `immutable=1`, which reads it
    /// without locks or side files. That is safe here because the same condition that made
    /// the open fail keeps writers out: nobody can be writing a file on a read-only medium,
    /// and a writer in a folder we cannot write would have left a -wal file, whose presence
    /// with content stops the fallback (the main file alone would then be out of date).
    private func openImmutableIfUnwritable() throws(SQLiteError) {
        do {
            try execute("SELECT count(*) FROM sqlite_schema")
            return
        } catch {
            let primary = error.code.primary
            guard primary == .cannotOpen || primary == .readOnly || primary == .ioError,
                  let why = FileDiagnosis.whyNotWritable(path)
            else { throw error }
            let wal = FileDiagnosis.size(path + "-wal") ?? 0
            if wal > 0 {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN,
                    message: "its write-ahead log \(path)-wal holds changes not yet in the database file, which SQLite "
                        + "cannot read without writing beside it, and here it cannot write "
                        + "(\(why.components(separatedBy: ". ").first ?? why)). Open it once where it can be written "
                        + "(e.g. copy \(path) and \(path)-wal to a writable folder) to fold the log in.")
            }
            sqlite3_close_v2(handle)
            handle = nil
            handle = try Connection.open(
                Connection.uri(path, "immutable=1"), flags: SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_READONLY, path: path)
            isImmutable = true
            try execute("SELECT count(*) FROM sqlite_schema")
        }
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Closes the connection now rather than when the last reference goes (a temporary
    /// database's file goes with it); a statement still held elsewhere keeps the file open until
    /// it is released. Nothing may be run on the connection after.
    package func close() {
        cache.removeAll()
        sqlite3_close_v2(handle)
        handle = nil
    }

    package var isOpen: Bool { handle != nil }

    /// Replaces this connection's database with a copy of `source`'s, page for page (SQLite's
    /// backup API: it reads `source` through its own connection, its -wal included).
    package func copy(from source: Connection) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw error(sqlite3_errcode(handle), sql: nil)
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw error(stepped == SQLITE_DONE ? finished : stepped, sql: nil)
        }
    }

    /// Whether the file at `path` is no longer the one this connection has open: another
    /// process renamed a new file over it (an import by copy) while this one waited to read.
    package var fileHasMoved: Bool {
        var moved: Int32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0
    }

    /// Fails with a message naming what is missing when this SQLite lacks FTS5 or R*Tree,
    /// which the gazetteer cannot work without.
    package static func checkFeatures() throws(SQLiteError) {
        let missing = ["ENABLE_FTS5", "ENABLE_RTREE"].filter { (option: String) in sqlite3_compileoption_used(option) == 0 }
        guard missing.isEmpty else {
            let names = missing.map { $0 == "ENABLE_FTS5" ? "FTS5" : "R*Tree" }.joined(separator: " and ")
            throw SQLiteError(
                code: SQLITE_ERROR,
                message: "the SQLite library in use (\(sqliteVersion)) was built without \(names) "
                    + "(compile options \(missing.map { "SQLITE_\($0)" }.joined(separator: ", "))). "
                    + "Install a SQLite that has them, e.g. Debian's libsqlite3-0 and libsqlite3-dev "
                    + "(apt-get install libsqlite3-dev), or Homebrew's sqlite.")
        }
    }

    package static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// Builds the error for a failed call, with SQLite's current message.
    package func error(_ rc: Int32, sql: String?) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return SQLiteError(code: rc, message: message, sql: sql)
    }

    /// Runs one or more statements that return no rows of interest (the one way to run several
    /// statements in one string; prepared statements refuse that).
    package func execute(_ sql: String) throws(SQLiteError) {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(errmsg)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Writes the open write transaction's changed pages out (to the WAL), as its commit would,
    /// without committing: for a connection that would otherwise wait idle before a commit.
    package func writeChangedPages() throws(SQLiteError) {
        let rc = sqlite3_db_cacheflush(handle)
        // It sets no message of its own (the connection's would say "not an error").
        if rc != SQLITE_OK {
            throw SQLiteError(code: rc, message: "could not write the transaction's changed pages to the WAL: \(String(cString: sqlite3_errstr(rc)))")
        }
    }

    /// Most statements a connection keeps prepared. Call sites cache only SQL of fixed text, so
    /// this is never reached in practice; it bounds the cache should one build SQL by the call.
    package static let statementCacheLimit = 512

    /// The statement for `sql`, prepared once and kept for the life of the connection (prepared
    /// with SQLITE_PREPARE_PERSISTENT): for SQL of fixed text run again and again. A statement
    /// whose step fails is dropped from the cache, so the next call prepares it afresh.
    package func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let s = cache[sql] { return s }
        let s = try Statement(connection: self, sql: sql, persistent: true)
        if cache.count >= Self.statementCacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[sql] = s
        return s
    }

    /// A statement for `sql` that is not kept: for SQL built for one use, or run once.
    package func makeStatement(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql, persistent: false)
    }

    /// Forgets a cached statement (one that failed), if it is the one cached for its SQL.
    func evict(_ statement: Statement) {
        if cache[statement.sql] === statement { cache[statement.sql] = nil }
    }

    /// Runs `body` inside a read transaction, so every statement in it sees one snapshot of the
    /// database. Inside a transaction already open, `body` simply joins it. The transaction
    /// ends when `body` returns or throws; if it cannot be ended cleanly it is rolled back, and
    /// if even that fails the error says so (a pool then closes the connection rather than
    /// lend it still inside a transaction).
    package func read<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try body() }
        // Prepared once: a lone reverse geocode takes microseconds, and parsing BEGIN and
        // COMMIT anew each time would be a visible part of it.
        try cachedStatement("BEGIN").run()
        let result: T
        do {
            result = try body()
        } catch {
            try? cachedStatement("ROLLBACK").run()
            throw error
        }
        do {
            try cachedStatement("COMMIT").run()
        } catch {
            try? cachedStatement("ROLLBACK").run()
            throw error
        }
        return result
    }

    /// Runs `body` so that its writes land whole or not at all: in a new write transaction
    /// (`BEGIN IMMEDIATE`) when none is open, else in a savepoint inside the open one, so an inner
    /// failure can be caught without losing the outer work. Commits (or releases) when `body`
    /// returns, rolls back when it throws.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        let outermost = !isInTransaction
        savepointDepth += 1
        let name = "gz_sp\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try execute(outermost ? "BEGIN IMMEDIATE" : "SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            if outermost {
                try? execute("ROLLBACK")
            } else {
                try? execute("ROLLBACK TO \(name)")
                try? execute("RELEASE \(name)")
            }
            throw error
        }
        do {
            try execute(outermost ? "COMMIT" : "RELEASE \(name)")
        } catch {
            if outermost { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }

    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    package var changes: Int { Int(sqlite3_changes64(handle)) }
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs a query expected to return one value.
    package func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue {
        try cachedStatement(sql).first(values) { $0.value(0) } ?? .null
    }
}
