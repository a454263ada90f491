import CSQLite

/// Where a statement run per row of an import keeps the text it binds, so that SQLite need
/// not copy it (`SQLITE_STATIC`): bound text is otherwise copied into memory SQLite allocates,
/// and freed again when the next run clears the bindings, six times a POI row.
///
/// Text is copied here once per run (`Statement.run(_:binding:)` clears this first, and the
/// bindings after the step), and nothing given out is moved or freed while bound: a block too
/// small for a row's text is retired, not reallocated, and freed only at the next clear.
package final class BoundText {
    private var block: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    /// Blocks outgrown during the current run; bindings may still point into them.
    private var retired: [UnsafeMutableRawPointer] = []

    package init(capacity: Int = 4096) {
        self.capacity = Swift.max(capacity, 16)
        block = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit {
        block.deallocate()
        for b in retired { b.deallocate() }
    }

    /// Forgets everything given out: only once no statement holds a binding into it.
    func clear() {
        used = 0
        for b in retired { b.deallocate() }
        retired.removeAll(keepingCapacity: true)
    }

    /// A copy of `bytes` that stays where it is until `clear()`.
    func keep(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeRawPointer {
        if used + bytes.count > capacity {
            retired.append(block)
            capacity = Swift.max(2 * capacity, bytes.count)
            block = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            used = 0
        }
        let start = block + used
        if let base = bytes.baseAddress, bytes.count > 0 { start.copyMemory(from: base, byteCount: bytes.count) }
        used += bytes.count
        return UnsafeRawPointer(start)
    }
}

extension Statement {
    /// Runs the statement once with values bound by `binding`, which binds text through
    /// `bind(_:at:keptIn:)` into `text`; the bindings are cleared after the step, so no
    /// statement keeps a pointer into `text` once this returns.
    package func run(_ text: BoundText, binding: (Statement) throws(SQLiteError) -> Void) throws(SQLiteError) {
        text.clear()
        defer { sqlite3_clear_bindings(handle) }
        try run(binding: binding)
    }

    /// Binds UTF-8 `text` by 1-based index without SQLite's copy (`SQLITE_STATIC`): `text` must
    /// stay where it is until the statement is reset, i.e. bind and step inside `run(binding:)`
    /// within the buffer's `withUnsafeBufferPointer`.
    package func bind(uncopied text: UnsafeBufferPointer<UInt8>, at index: Int32) throws(SQLiteError) {
        // A null pointer would bind NULL; an empty text is still text.
        guard let start = text.baseAddress else { return try bind(.text(""), at: index) }
        let rc = sqlite3_bind_text64(handle, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), sqlite3_uint64(text.count), nil, UInt8(SQLITE_UTF8))
        if rc != SQLITE_OK { throw connectionError(rc) }
    }

    /// Binds `value` (nil: NULL) by 1-based index, its bytes kept in `text` rather than
    /// copied by SQLite: only inside `run(_:binding:)` with the same `text`.
    package func bind(_ value: String?, at index: Int32, keptIn text: BoundText) throws(SQLiteError) {
        guard var value else { return try bind(.null, at: index) }
        let (start, count) = value.withUTF8 { b in (text.keep(b), b.count) }
        let rc = sqlite3_bind_text64(handle, index, start.assumingMemoryBound(to: CChar.self), sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8))
        if rc != SQLITE_OK { throw connectionError(rc) }
    }
}

extension Statement {
    /// Binds `bytes` as a blob by 1-based index without SQLite's copy, as `bind(uncopied:at:)`
    /// binds text: only while `bytes` stays where it is, until the statement is reset.
    package func bind(uncopiedBlob bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws(SQLiteError) {
        // A null pointer would bind NULL; an empty blob is still a blob.
        let start = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!
        let rc = sqlite3_bind_blob64(handle, index, start, sqlite3_uint64(bytes.count), nil)
        if rc != SQLITE_OK { throw connectionError(rc) }
    }
}
