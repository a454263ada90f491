import Foundation

/// What the file system says about a database path, for messages SQLite cannot give: it
/// reports a folder as "disk I/O error" and a missing folder, a read-only medium and a
/// missing permission all as "unable to open database file".
package enum FileDiagnosis {
    /// The size of the file at `path`, nil when there is none.
    package static func size(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The folder holding `path` ("." for a bare name).
    package static func folder(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Why nothing can be written at `path` (read-only file system, file permissions, a
    /// folder SQLite cannot create its -wal/-shm files in), with what to do; nil when it can.
    package static func whyNotWritable(_ path: String) -> String? {
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

    package static let cutOff = "the file is shorter than its header says (it was probably cut off while being copied or downloaded)"

    /// True when the file is shorter than the page count recorded in its SQLite header (which
    /// counts only when bytes 92–95 match the change counter, as SQLite itself requires).
    package static func isShorterThanItsHeader(_ path: String) -> Bool {
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
    package static func permissions(_ path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "cannot stat it" }
        var text = "owner uid \(st.st_uid), mode \(String(st.st_mode & 0o7777, radix: 8))"
        if getuid() != st.st_uid { text += "; you are uid \(getuid())" }
        return text
    }
}
