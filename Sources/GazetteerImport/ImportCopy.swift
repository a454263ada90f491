#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GazetteerCore
import GazetteerSQLite

/// An import written into a private copy of the database, renamed over the original once
/// complete: atomic by the rename instead of by the journal. In WAL mode every page an import
/// writes goes to the -wal file and again, at the checkpoint, into the database; the copy is
/// written once, with no journal and no fsync until the end.
///
/// While the import runs the original is held only as an import in place would hold it: in a
/// write transaction (`BEGIN IMMEDIATE`), so other writers wait as they always did and readers
/// keep reading the old data. The copy is made while that transaction holds the write lock,
/// through SQLite (its backup API, from a second connection: the -wal's committed frames are
/// read with the file, and no file descriptor of ours is closed on the original, which would
/// drop the process's POSIX locks).
///
/// Only at the end is the original locked exclusively, for a few seconds at most: that
/// transaction ends, the exclusive lock is taken with a short wait (a pending lock,
/// `PendingLock`, holds new readers back while the running ones finish), and the copy replaces the original only if
/// nobody committed in between (`PRAGMA data_version` unchanged). Otherwise, or when the lock
/// does not come (a long-lived reader such as `serve` keeps the file open: in WAL mode every
/// open connection holds a shared lock), the copy is discarded and the caller imports the usual
/// way. The original's -wal is folded in and its -wal and -shm removed under the lock (left
/// there, they would be read as the new file's); a process that opened the old file while it
/// waited for the lock opens the new one (`Schema.open`).
///
/// A failure, Ctrl-C or a crash at any moment leaves the original as it was. A failed import
/// removes the copy, `<database>.importing`; a killed one leaves it, until the next import by
/// copy into the same database removes it. (Unlinking it early is not possible: Linux links an
/// unlinked file back only if it was made with O_TMPFILE, and SQLite needs a name to open.)
final class ImportCopy {
    /// The copy's connection (`Connection.Mode.unjournaled`).
    let db: Connection
    /// A connection of its own on the original, in a write transaction until `install`.
    private let original: Connection
    /// The original's `PRAGMA data_version` when the copy was made.
    private let version: SQLiteValue
    private let path: String
    private let staging: String
    /// The copy's file, for the fsyncs (SQLite writes it with none).
    private var fd: Int32

    /// Whether an import of `poiBytes` of POI files into the database at `path` pays for
    /// copying it first: a bulk import (`bulkBytes`), into a database file no larger than those
    /// files (the copy reads and writes the whole file; the journal's second write it saves is
    /// about 2.5 times the POI bytes).
    static func pays(path: String, poiBytes: Int, bulkBytes: Int) -> Bool {
        guard poiBytes > bulkBytes, let size = FileDiagnosis.size(path) else { return false }
        return Int(size + (FileDiagnosis.size(path + "-wal") ?? 0)) <= poiBytes
    }

    /// Copies the database at `path` inside a write transaction on it; nil, with nothing held,
    /// when another connection has it open for longer than `waitMilliseconds` (a `serve`: the
    /// exclusive lock at the end would not come either, and the import would be done twice) or
    /// the copy cannot be made (its folder not writable, the file owned by someone else): the
    /// import then goes the usual way. The caller closes its own connections on `path` first:
    /// each holds a shared lock.
    static func begin(path: String, waitMilliseconds: Int32) -> ImportCopy? {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return nil }
        var st = stat()
        // The renamed copy would belong to this user: keep another's file as it is. And it would
        // replace the name only: a symbolic link would become a file (and another hard link keep
        // the old data, though SQLite itself does not support those); such a database is
        // written in place.
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 1,
              st.st_uid == geteuid(), access(FileDiagnosis.folder(of: path), W_OK) == 0 else { return nil }
        guard let probe = try? Connection(path: path, mode: .readWrite) else { return nil }
        let pending = PendingLock(path: path)
        let alone = lockExclusively(probe, waitMilliseconds: waitMilliseconds)
        // Closing drops whatever lock it got; the pending lock only then (its close would drop
        // the probe's locks too).
        probe.close()
        pending.release()
        guard alone, let original = try? Connection(path: path, mode: .readWrite) else { return nil }
        return try? ImportCopy(original: original, path: path, mode: mode_t(st.st_mode & 0o7777))
    }

    /// Takes the exclusive lock on `connection`'s file, waiting up to `waitMilliseconds`, and
    /// keeps it (exclusive locking mode) until the connection closes; false if it did not come.
    private static func lockExclusively(_ connection: Connection, waitMilliseconds: Int32) -> Bool {
        do {
            try connection.execute("PRAGMA busy_timeout = \(waitMilliseconds)")
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("BEGIN EXCLUSIVE; COMMIT")
            return true
        } catch {
            return false
        }
    }

    private init(original: Connection, path: String, mode: mode_t) throws {
        self.original = original
        self.path = path
        staging = path + ".importing"
        // As an import in place: other writers wait, readers read the old data.
        try original.execute("BEGIN IMMEDIATE")
        version = try original.scalar("PRAGMA data_version")
        // Left by an import killed before it could remove it (nobody else can be using it:
        // every import by copy holds the original's write lock first).
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(staging + suffix) }
        db = try Connection(path: staging, mode: .unjournaled)
        fd = open(staging, O_RDWR)
        do {
            // Renamed over while this waited for the write lock (another import by copy).
            guard !original.fileHasMoved else { throw ImportCopyError(description: "\(path) was replaced meanwhile") }
            guard fd >= 0 else { throw ImportCopyError.system("open \(staging)") }
            fchmod(fd, mode)
            // The backup API refuses a source in a write transaction: the copy is read by a
            // second connection, whose snapshot is the latest, no one else being able to
            // commit. (SQLite keeps the process's locks on the file when that one closes.)
            let source = try Connection(path: path, mode: .readOnly)
            defer { source.close() }
            // The pages are read once: mapped, they would stay in this process's resident
            // memory until the end.
            try source.execute("PRAGMA mmap_size = 0")
            try db.copy(from: source)
            // The copied header says WAL; the copy is written with no journal.
            try db.execute("PRAGMA journal_mode = OFF")
            // Read through the page cache, not mapped: with no -wal, the index builds and the
            // R*Tree read every page of the file, and mapped they all stayed resident (about
            // 100 MiB more at 1M POIs, for no measurable speed).
            try db.execute("PRAGMA mmap_size = 0")
        } catch {
            discard()
            throw error
        }
    }

    /// Puts the copy in place of the original once the import's transaction on `db` has
    /// committed: true when it did; false, with the copy discarded and the original as it was,
    /// when the exclusive lock did not come within `waitMilliseconds` or another connection
    /// committed to the original since the copy was made (the caller then imports the usual way).
    /// `beforeLock` runs between the end of the write transaction and the lock (for tests).
    func install(waitMilliseconds: Int32, beforeLock: (() -> Void)? = nil) throws -> Bool {
        try original.execute("COMMIT")
        beforeLock?()
        let pending = PendingLock(path: path)
        // Released after `original` is closed (by `discard` or below), never before.
        defer { pending.release() }
        guard Self.lockExclusively(original, waitMilliseconds: waitMilliseconds),
              (try? original.scalar("PRAGMA data_version")) == version, !original.fileHasMoved
        else {
            discard()
            return false
        }
        do {
            // The file alone is then the whole database (what a process that opened it while
            // waiting reads before it sees it was replaced), and the -wal can go.
            try original.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            guard (FileDiagnosis.size(path + "-wal") ?? 0) == 0 else {
                throw ImportCopyError(description: "the -wal file of \(path) could not be folded in")
            }
            db.close()
            try sync(fd, staging)
            // In WAL mode, as every database the gazetteer writes (SQLite rewrites the header,
            // syncs it, and removes the copy's -wal on closing).
            try Connection(path: staging, mode: .readWrite).close()
            try sync(fd, staging)
            // Nobody can be using them (the lock); left there, they would be read as the new file's.
            unlink(path + "-wal")
            unlink(path + "-shm")
            guard rename(staging, path) == 0 else { throw ImportCopyError.system("rename \(staging) to \(path)") }
        } catch {
            discard()
            throw error
        }
        close(fd)
        fd = -1
        // The rename lasts through a power cut once the folder is on disk.
        let folder = open(FileDiagnosis.folder(of: path), O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        // Its file was renamed over, so SQLite neither checkpoints nor deletes a -wal on closing.
        original.close()
        return true
    }

    /// Drops the copy and lets go of the original, as it was.
    func discard() {
        db.close()
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(staging)
        // Ends its transaction, if any, and drops its locks.
        original.close()
    }

    private func sync(_ fd: Int32, _ name: String) throws {
        guard fsync(fd) == 0 else { throw ImportCopyError.system("sync \(name)") }
    }
}

/// SQLite's pending lock on a database file, held while a connection of this process waits for
/// the exclusive lock: new connections then wait (their shared lock needs the pending byte) while
/// those already open finish. SQLite takes it only on the way from a reserved lock, which the
/// exclusive locking of a WAL database skips; without it, readers started back to back (scripts,
/// a shell loop) would keep the exclusive lock from ever coming.
///
/// It is a POSIX lock on a file descriptor of its own: closing that descriptor drops every lock
/// this process holds on the file, SQLite's included, so `release` must come only after the
/// connection that took the exclusive lock is closed.
struct PendingLock {
    /// SQLite's `PENDING_BYTE` (os.h): the byte every new shared lock reads first.
    static let pendingByte: off_t = 0x4000_0000
    private let fd: Int32

    /// Takes it, retrying for a moment while a connection opening holds the byte briefly;
    /// without it (the file not writable, the byte held), the wait for the exclusive lock is
    /// only less likely to succeed.
    init(path: String) {
        fd = open(path, O_RDWR)
        guard fd >= 0 else { return }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = Self.pendingByte
        lock.l_len = 1
        for _ in 0..<200 {
            if fcntl(fd, F_SETLK, &lock) == 0 { return }
            usleep(1_000)
        }
    }

    /// Closes its descriptor, dropping the lock (and any other of this process on the file).
    func release() {
        if fd >= 0 { close(fd) }
    }
}

/// A file operation of `ImportCopy` that failed, with `errno`'s reason.
struct ImportCopyError: Error, CustomStringConvertible {
    let description: String
    static func system(_ what: String) -> ImportCopyError {
        ImportCopyError(description: "cannot \(what): \(String(cString: strerror(errno)))")
    }
}
