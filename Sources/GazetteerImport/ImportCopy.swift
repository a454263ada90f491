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
/// Taken only when nobody else has the database open: the original is locked exclusively
/// (which fails at once while any other connection, in any process, has it open: each holds a
/// shared lock on it) and stays locked until the rename, so no other writer's commit can be
/// lost and nobody reads the old file while it is replaced. Other commands wait meanwhile
/// (10 s, then "database is locked", as a second import does today); one that opened the old
/// file while waiting opens the new one instead (`Schema.open`). Its -wal and -shm files are
/// removed before the rename, while the lock keeps everyone out of them: a stale -wal or -shm
/// beside the new file would be read as the new file's.
///
/// A failure, Ctrl-C or a crash at any moment leaves the original as it was. A failed import
/// removes the copy, `<database>.importing`; a killed one leaves it, until the next import by
/// copy into the same database removes it. (Unlinking it early is not possible: Linux links an
/// unlinked file back only if it was made with O_TMPFILE, and SQLite needs a name to open.)
final class ImportCopy {
    /// The copy's connection (`Connection.Mode.unjournaled`).
    let db: Connection
    private let original: Connection
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

    /// Locks the database at `path` (open in `original`, outside any transaction) and copies it;
    /// nil, with the lock released, when another connection has it open or the copy cannot be
    /// made (its folder not writable, the file owned by someone else): the import then goes the
    /// usual way.
    static func begin(original: Connection, path: String) -> ImportCopy? {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return nil }
        var st = stat()
        // The renamed copy would belong to this user: keep another's file as it is.
        guard stat(path, &st) == 0, st.st_uid == geteuid(), access(FileDiagnosis.folder(of: path), W_OK) == 0 else { return nil }
        do {
            try lock(original)
        } catch {
            unlock(original)
            return nil
        }
        do {
            return try ImportCopy(original: original, path: path, mode: mode_t(st.st_mode & 0o7777))
        } catch {
            unlock(original)
            return nil
        }
    }

    /// Takes the exclusive lock without waiting, and folds the -wal into the file: the file
    /// alone is then the whole database, and stays so while the lock is held.
    private static func lock(_ original: Connection) throws {
        try original.execute("PRAGMA busy_timeout = 0")
        defer { try? original.execute("PRAGMA busy_timeout = \(Connection.busyTimeoutMilliseconds)") }
        try original.execute("PRAGMA locking_mode = EXCLUSIVE")
        // In exclusive locking mode the lock stays after the transaction ends.
        try original.execute("BEGIN EXCLUSIVE; COMMIT")
        try original.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        guard (FileDiagnosis.size(original.path + "-wal") ?? 0) == 0 else {
            throw ImportCopyError(description: "the -wal file could not be folded in")
        }
    }

    private static func unlock(_ original: Connection) {
        // The lock goes at the next access in normal mode.
        try? original.execute("PRAGMA locking_mode = NORMAL")
        _ = try? original.scalar("SELECT count(*) FROM sqlite_schema")
    }

    private init(original: Connection, path: String, mode: mode_t) throws {
        self.original = original
        self.path = path
        staging = path + ".importing"
        // Left by an import killed before it could remove it (nobody else can be using it:
        // every import by copy holds the lock on the original first).
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(staging + suffix) }
        // Copied by SQLite, through the original's connection: opening and closing a file
        // descriptor of our own on the original would drop this process's locks on it (POSIX
        // locks belong to the process and the file, and any close releases them all).
        db = try Connection(path: staging, mode: .unjournaled)
        fd = open(staging, O_RDWR)
        do {
            guard fd >= 0 else { throw ImportCopyError.system("open \(staging)") }
            fchmod(fd, mode)
            try db.copy(from: original)
            // The copied header says WAL; the copy is written with no journal.
            try db.execute("PRAGMA journal_mode = OFF")
        } catch {
            discardCopy()
            throw error
        }
    }

    /// Puts the copy in place of the original, whose connection is closed: call once the
    /// import's transaction on `db` has committed.
    func install() throws {
        db.close()
        try sync(fd, staging)
        do {
            // In WAL mode, as every database the gazetteer writes (SQLite rewrites the header,
            // syncs it, and removes the copy's -wal on closing).
            try Connection(path: staging, mode: .readWrite).close()
            try sync(fd, staging)
            // Nobody can be using them (the lock); left there, they would be read as the new file's.
            unlink(path + "-wal")
            unlink(path + "-shm")
            guard rename(staging, path) == 0 else { throw ImportCopyError.system("rename \(staging) to \(path)") }
        } catch {
            unlink(staging)
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
    }

    /// Drops the copy and unlocks the original, as it was.
    func discard() {
        discardCopy()
        Self.unlock(original)
    }

    private func discardCopy() {
        db.close()
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(staging)
    }

    private func sync(_ fd: Int32, _ name: String) throws {
        guard fsync(fd) == 0 else { throw ImportCopyError.system("sync \(name)") }
    }
}

/// A file operation of `ImportCopy` that failed, with `errno`'s reason.
struct ImportCopyError: Error, CustomStringConvertible {
    let description: String
    static func system(_ what: String) -> ImportCopyError {
        ImportCopyError(description: "cannot \(what): \(String(cString: strerror(errno)))")
    }
}
