import CSQLite

/// One blob read piece by piece straight into the caller's memory (SQLite's incremental blob
/// I/O), for blobs of tens of megabytes: a column read assembles the whole blob in a buffer
/// of SQLite's first, a second copy and its page faults.
package final class BlobReader {
    private let handle: OpaquePointer
    /// The blob's size in bytes.
    package let count: Int

    /// Opens `column` of row `rowid` of `table` for reading, in the connection's current transaction.
    package init(_ db: Connection, table: String, column: String, rowid: Int64) throws(SQLiteError) {
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(db.handle, "main", table, column, rowid, 0, &blob)
        guard rc == SQLITE_OK, let blob else {
            let error = db.error(rc, sql: nil)
            sqlite3_blob_close(blob)
            throw error
        }
        handle = blob
        count = Int(sqlite3_blob_bytes(blob))
    }

    deinit { sqlite3_blob_close(handle) }

    /// Fills `buffer` from byte `offset` on; false when the blob ends first or the read fails.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, buffer.count <= count - offset else { return false }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return true }
        return sqlite3_blob_read(handle, base, Int32(buffer.count), Int32(offset)) == SQLITE_OK
    }
}
