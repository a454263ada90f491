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
        // Looked at before SQLite is, which reports a folder as "disk I/O error" and a
        // missing folder as "unable to open database file".
        if let problem = FileDiagnosis.problemBeforeOpening(path, mode: mode) { throw problem }
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
                        path: path, reason: "the database is empty (it holds no tables). Create it with `gazetteer import --db \(path) FILES…`.")
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

    /// Turns a SQLite failure (at open time or in a query) into the case a caller can act
    /// on, with the file's own state (a folder, missing, read-only …) as the reason where
    /// SQLite's message alone ("disk I/O error", "unable to open database file") says nothing.
    static func map(_ error: SQLiteError, path: String) -> GazetteerError {
        switch error.code {
        case .notADatabase:
            return .notADatabase(path: path)
        case .corrupt:
            return .damaged(path: path, reason: FileDiagnosis.isShorterThanItsHeader(path) ? FileDiagnosis.cutOff : error.message)
        case .readOnly:
            return .readOnly(path: path, reason: FileDiagnosis.whyNotWritable(path) ?? Self.strip(error.message, path: path))
        case .cannotOpen, .ioError, .permission:
            if let problem = FileDiagnosis.problemBeforeOpening(path, mode: .readOnly) { return problem }
            if error.code.primary == .ioError {
                if FileDiagnosis.isShorterThanItsHeader(path) {
                    return .damaged(path: path, reason: FileDiagnosis.cutOff)
                }
                return .cannotOpen(path: path, reason: "reading it failed (SQLite: \(Self.strip(error.message, path: path)), code \(error.code.rawValue)). "
                    + "If it is on removable or network storage, check that it is still attached; otherwise run `gazetteer check --db \(path)`.")
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

/// What the file system says about a database path, for messages SQLite cannot give: it
/// reports a folder as "disk I/O error" and a missing folder, a read-only medium and a
/// missing permission all as "unable to open database file".
enum FileDiagnosis {
    /// The size of the file at `path`, nil when there is none.
    static func size(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The folder holding `path` ("." for a bare name).
    static func folder(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// A problem with `path` that makes opening it pointless, or nil when SQLite should try.
    static func problemBeforeOpening(_ path: String, mode: Connection.Mode) -> GazetteerError? {
        if path.isEmpty || path == ":memory:" { return nil }
        if isDirectory(path) {
            return .cannotOpen(path: path, reason: "it is a folder, not a database file. Name the database file itself, e.g. --db \((path as NSString).appendingPathComponent("gazetteer.sqlite")).")
        }
        let folder = folder(of: path)
        guard let fileSize = size(path) else {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
                return .cannotOpen(path: path, reason: "the folder \(folder) does not exist. Check the path"
                    + (mode == .readWrite ? ", or create the folder first (mkdir -p \(folder))." : "."))
            }
            if !isDirectory.boolValue {
                return .cannotOpen(path: path, reason: "\(folder) is a file, not a folder. Check the path.")
            }
            if mode == .readOnly {
                return .cannotOpen(path: path, reason: "no such file. Check the path, or create the database with `gazetteer import --db \(path) FILES…`.")
            }
            if let why = whyNotWritable(path) { return .readOnly(path: path, reason: why) }
            return nil
        }
        if access(path, R_OK) != 0 {
            return .cannotOpen(path: path, reason: "permission denied: its file permissions do not let you read it (\(permissions(path))). Ask its owner, or use a copy you can read.")
        }
        if fileSize > 0 && fileSize < 100 {
            // Shorter than SQLite's 100-byte header: not a database, whatever the first bytes.
            return .notADatabase(path: path)
        }
        return nil
    }

    /// Why nothing can be written at `path` (read-only file system, file permissions, a
    /// folder SQLite cannot create its -wal/-shm files in), with what to do; nil when it can.
    static func whyNotWritable(_ path: String) -> String? {
        let folder = folder(of: path)
        let exists = size(path) != nil
        // For a file that exists, reading is unaffected: say so, since that is what most want.
        let queries = exists ? "Queries still work; to change it, " : "To create it, "
        var fs = statvfs()
        if statvfs(folder, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 {
            return "the file system it is on is mounted read-only. \(queries)"
                + (exists ? "copy it to a writable folder and import there" : "name a file on a writable file system") + ", or remount the file system read-write"
        }
        if exists, access(path, W_OK) != 0 {
            return "its file permissions do not let you write it (\(permissions(path))). Queries still work; to change it, "
                + "make it writable (chmod u+w \(path)) if it is yours, or import into a copy"
        }
        if access(folder, W_OK) != 0 {
            return "the folder \(folder) is not writable (\(permissions(folder))), and SQLite must create its journal files "
                + "(\((path as NSString).lastPathComponent)-wal, -shm) beside the database. \(queries)"
                + "make the folder writable, or " + (exists ? "copy the database to a writable folder and import there" : "name a file in a writable folder")
        }
        return nil
    }

    static let cutOff = "the file is shorter than its header says (it was probably cut off while being copied or downloaded)"

    /// True when the file is shorter than the page count recorded in its SQLite header (which
    /// counts only when bytes 92–95 match the change counter, as SQLite itself requires).
    static func isShorterThanItsHeader(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
              header.starts(with: Array("SQLite format 3\0".utf8)), let fileSize = size(path)
        else { return false }
        let bytes = [UInt8](header)
        var pageSize = Int64(bytes[16]) << 8 | Int64(bytes[17])
        if pageSize == 1 { pageSize = 65_536 }
        let pages = Int64(bytes[28]) << 24 | Int64(bytes[29]) << 16 | Int64(bytes[30]) << 8 | Int64(bytes[31])
        guard bytes[24..<28] == bytes[92..<96] else { return false }
        return pageSize > 0 && pages > 0 && fileSize < pages * pageSize
    }

    /// Owner and mode of `path`, as `ls -l` would let a person check them: "owner uid 0, mode 0444".
    static func permissions(_ path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "cannot stat it" }
        var text = "owner uid \(st.st_uid), mode \(String(st.st_mode & 0o7777, radix: 8))"
        if getuid() != st.st_uid { text += "; you are uid \(getuid())" }
        return text
    }
}
