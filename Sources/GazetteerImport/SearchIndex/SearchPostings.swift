/// The search index's postings of many rows, sorted here rather than through FTS5's pending
/// hash: FTS5 looks each token up in a hash table of every term pending, and with hundreds of
/// thousands of terms nearly every look-up misses the cache (over a second of the import's
/// 1M rows went there). Here each token is a 16-byte record appended in row order; a block of
/// records is radix-sorted by token and encoded as doclists (a run), and the runs are merged
/// term by term into an FTS5 segment (`FTS5SegmentWriter`).
///
/// Only rows whose every token FTS5's tokenizer would give back unchanged come here
/// (`add` says which): tokens of at most 8 bytes, each of ASCII lower-case letters and digits
/// or of Han characters the tokenizer was seen to keep whole (`SearchTokenProbe`). The rest
/// go through FTS5 itself.
final class SearchPostings {
    /// A token of a row: the token's bytes packed big-endian (so integer order is FTS5's byte
    /// order, a prefix first), the row (from `base`), and the column (top bit) and position.
    struct Record {
        var key: UInt64
        var row: UInt32
        var place: UInt32
    }

    /// A block of records sorted and encoded: each term's key, its doclist's end in `bytes`,
    /// and its last rowid (to chain the next run's doclist of the same term).
    struct Run {
        var keys: [UInt64] = []
        var ends: [UInt32] = []
        var lastRowids: [Int64] = []
        var bytes: [UInt8] = []
    }

    private let accepted: SearchTokenProbe
    private let blockRecords: Int
    private var records: [Record] = []
    private var scratch: [Record] = []
    /// Where `sortBlock` encodes a run before it is copied out.
    private var encoded = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)
    /// The rowid that `Record.row` counts from in `records`.
    private var base: Int64 = 0
    private(set) var runs: [Run] = []
    /// Bytes of doclists held in `runs`: FTS5's pending data, as its `hashsize` counts it, so a
    /// segment holds what FTS5's would (all of 1M POIs: one segment, which 1-character searches
    /// read fastest). Each term of a run also keeps 20 bytes (key, end, last rowid) beside:
    /// about 26 MB more at 1M POIs of 92,800 terms in 14 runs.
    private(set) var runBytes = 0
    /// Rows taken and tokens per column, for FTS5's averages record.
    private(set) var rows: Int64 = 0
    private(set) var tokens: (grams: Int64, chars: Int64) = (0, 0)
    private var lastRowid: Int64?

    /// - Parameter blockRecords: records sorted at a time (16 bytes each, twice over while
    ///   sorting).
    init(accepted: SearchTokenProbe, blockRecords: Int = 1 << 20) {
        self.accepted = accepted
        self.blockRecords = blockRecords
        records.reserveCapacity(blockRecords + 4_096)
    }

    deinit { encoded.deallocate() }

    var isEmpty: Bool { runs.isEmpty && records.isEmpty }

    /// Takes row `rowid`'s tokens (`SearchTokens.index`'s two columns, space-separated) when
    /// all of them qualify; false (and nothing taken) otherwise. Rowids must increase.
    func add(rowid: Int64, grams: UnsafeBufferPointer<UInt8>, chars: UnsafeBufferPointer<UInt8>) -> Bool {
        if let lastRowid, rowid <= lastRowid { return false }
        // A row counts from the block's first rowid in 32 bits: a block begins again past that.
        if !records.isEmpty, UInt64(bitPattern: rowid &- base) >= UInt64(UInt32.max) { sortBlock() }
        let mark = records.count
        if records.isEmpty { base = rowid }
        let row = UInt32(truncatingIfNeeded: rowid &- base)
        // A name of more tokens than a block holds goes to FTS5 (a run's offsets are 32-bit).
        guard let g = append(grams, column: 0, row: row), let c = append(chars, column: 1, row: row),
              records.count - mark <= blockRecords else {
            records.removeSubrange(mark...)
            return false
        }
        rows += 1
        tokens.grams += Int64(g)
        tokens.chars += Int64(c)
        lastRowid = rowid
        if records.count >= blockRecords { sortBlock() }
        return true
    }

    /// Appends the records of one column's tokens; nil when a token does not qualify.
    private func append(_ text: UnsafeBufferPointer<UInt8>, column: UInt32, row: UInt32) -> Int? {
        var position: UInt32 = 0
        var i = 0
        let n = text.count
        while i < n {
            if text[i] == 0x20 { i += 1; continue }
            var key: UInt64 = 0
            var length = 0
            while i < n, text[i] != 0x20 {
                let b = text[i]
                if b < 0x80 {
                    guard (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) else { return nil }
                    guard length < 8 else { return nil }
                    key |= UInt64(b) << (56 - 8 * length)
                    length += 1
                    i += 1
                } else {
                    // A multi-byte scalar (the text is valid UTF-8): a Han character FTS5 keeps.
                    let width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                    guard length + width <= 8, i + width <= n else { return nil }
                    var scalar = UInt32(b) & (width == 4 ? 0x07 : width == 3 ? 0x0F : 0x1F)
                    for k in 1..<width { scalar = (scalar << 6) | (UInt32(text[i + k]) & 0x3F) }
                    guard accepted.keepsWhole(scalar) else { return nil }
                    for k in 0..<width {
                        key |= UInt64(text[i + k]) << (56 - 8 * (length + k))
                    }
                    length += width
                    i += width
                }
            }
            records.append(Record(key: key, row: row, place: column << 31 | position))
            position += 1
        }
        return Int(position)
    }

    /// Sorts the records taken so far and encodes them as a run.
    func sortBlock() {
        guard !records.isEmpty else { return }
        Self.radixSort(&records, scratch: &scratch)
        // At most 9 bytes of rowid, 2 of column and 5 of position a record, and 5 of size a row:
        // written through a pointer, then copied out at their length.
        let capacity = records.count * 21 + 16
        let run = records.withUnsafeBufferPointer { r in
            Self.encode(r, base: base, into: encodingBuffer(capacity))
        }
        runBytes += run.bytes.count
        runs.append(run)
        records.removeAll(keepingCapacity: true)
    }

    /// `encoded`, grown to at least `capacity` bytes.
    private func encodingBuffer(_ capacity: Int) -> UnsafeMutableBufferPointer<UInt8> {
        if encoded.count < capacity {
            encoded.deallocate()
            encoded = .allocate(capacity: capacity)
        }
        return encoded
    }

    /// Sorted records as a run: each token's doclist, FTS5's pending format.
    private static func encode(_ r: UnsafeBufferPointer<Record>, base: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Run {
        var run = Run()
        let out = buffer.baseAddress!
        var n = 0
        var i = 0
        while i < r.count {
            let key = r[i].key
            var previousRowid: Int64 = 0
            var first = true
            while i < r.count, r[i].key == key {
                let row = r[i].row
                let rowid = base &+ Int64(row)
                put(UInt64(bitPattern: first ? rowid : rowid &- previousRowid), out, &n)
                first = false
                previousRowid = rowid
                // This row's positions of the token, after their size: written from 5 bytes
                // on (the size's most), then moved back behind the size.
                let sizeAt = n
                var m = n + 5
                let start = m
                var column: UInt32 = 0
                var previousPosition: UInt32 = 0
                while i < r.count, r[i].key == key, r[i].row == row {
                    let c = r[i].place >> 31
                    let position = r[i].place & 0x7FFF_FFFF
                    if c != column {
                        out[m] = 0x01
                        m += 1
                        put(UInt64(c), out, &m)
                        column = c
                        previousPosition = 0
                    }
                    put(UInt64(position - previousPosition + 2), out, &m)
                    previousPosition = position
                    i += 1
                }
                let length = m - start
                n = sizeAt
                put(UInt64(length * 2), out, &n)
                // Forward, byte by byte: the two ranges may overlap, the target first.
                for k in 0..<length { out[n + k] = out[start + k] }
                n += length
            }
            run.keys.append(key)
            run.ends.append(UInt32(n))
            run.lastRowids.append(previousRowid)
        }
        run.bytes = Array(UnsafeBufferPointer(start: out, count: n))
        return run
    }

    /// `FTS5Varint.write` at `out[n]`, which has room, moving `n` past it.
    @inline(__always)
    private static func put(_ value: UInt64, _ out: UnsafeMutablePointer<UInt8>, _ n: inout Int) {
        n += FTS5Varint.write(value, to: out + n)
    }

    /// LSD radix sort by `key`, a byte at a time, skipping the bytes every record shares. Stable,
    /// so each token's records stay in row, column and position order.
    static func radixSort(_ records: inout [Record], scratch: inout [Record]) {
        let n = records.count
        if scratch.count < n { scratch = [Record](repeating: Record(key: 0, row: 0, place: 0), count: n) }
        var counts = [Int](repeating: 0, count: 8 * 256)
        records.withUnsafeBufferPointer { r in
            counts.withUnsafeMutableBufferPointer { c in
                for k in 0..<n {
                    let key = r[k].key
                    for b in 0..<8 { c[b &* 256 &+ Int((key >> (8 * UInt64(b))) & 0xFF)] &+= 1 }
                }
            }
        }
        var inScratch = false
        for b in 0..<8 {
            let histogram = counts[(b * 256)..<(b * 256 + 256)]
            if histogram.contains(n) { continue }
            var starts = [Int](repeating: 0, count: 256)
            var sum = 0
            for v in 0..<256 { starts[v] = sum; sum += histogram[b * 256 + v] }
            let shift = UInt64(8 * b)
            func pass(_ from: UnsafeBufferPointer<Record>, _ to: UnsafeMutableBufferPointer<Record>) {
                starts.withUnsafeMutableBufferPointer { s in
                    for k in 0..<n {
                        let v = Int((from[k].key >> shift) & 0xFF)
                        to[s[v]] = from[k]
                        s[v] &+= 1
                    }
                }
            }
            if inScratch {
                scratch.withUnsafeBufferPointer { from in records.withUnsafeMutableBufferPointer { to in pass(from, to) } }
            } else {
                records.withUnsafeBufferPointer { from in scratch.withUnsafeMutableBufferPointer { to in pass(from, to) } }
            }
            inScratch.toggle()
        }
        if inScratch {
            records.withUnsafeMutableBufferPointer { to in
                scratch.withUnsafeBufferPointer { from in
                    to.baseAddress!.update(from: from.baseAddress!, count: n)
                }
            }
        }
    }

    /// Merges the runs into one segment written through `writer`, and empties them.
    func writeSegment(_ writer: inout FTS5SegmentWriter) throws {
        sortBlock()
        var heads = [Int](repeating: 0, count: runs.count)
        // The runs holding the smallest key come first: a binary heap of run numbers.
        var heap = Array(runs.indices.filter { !runs[$0].keys.isEmpty })
        func key(_ r: Int) -> UInt64 { runs[r].keys[heads[r]] }
        func less(_ a: Int, _ b: Int) -> Bool { let (ka, kb) = (key(a), key(b)); return ka < kb || (ka == kb && a < b) }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count, less(heap[l], heap[m]) { m = l }
                if r < heap.count, less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }

        var term: [UInt8] = []
        var doclist: [UInt8] = []
        while !heap.isEmpty {
            let k = key(heap[0])
            doclist.removeAll(keepingCapacity: true)
            var previousLast: Int64?
            // Every run's doclist of this term, oldest run first (rowids rise run by run).
            while let top = heap.first, key(top) == k {
                let h = heads[top]
                let start = h == 0 ? 0 : Int(runs[top].ends[h - 1])
                let end = Int(runs[top].ends[h])
                runs[top].bytes.withUnsafeBufferPointer { b in
                    if let previousLast {
                        // The run's first rowid is absolute: it becomes the difference.
                        let (first, n) = FTS5Varint.read(b, at: start)
                        FTS5Varint.append(first &- UInt64(bitPattern: previousLast), to: &doclist)
                        doclist.append(contentsOf: UnsafeBufferPointer(rebasing: b[(start + n)..<end]))
                    } else {
                        doclist.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<end]))
                    }
                }
                previousLast = runs[top].lastRowids[h]
                heads[top] += 1
                if heads[top] == runs[top].keys.count {
                    heap[0] = heap[heap.count - 1]
                    heap.removeLast()
                }
                if !heap.isEmpty { siftDown(0) }
            }
            term.removeAll(keepingCapacity: true)
            term.append(0x30)  // the main index's prefix, '0'
            var rest = k
            while rest != 0 {
                term.append(UInt8(rest >> 56))
                rest <<= 8
            }
            try term.withUnsafeBufferPointer { t in
                try doclist.withUnsafeBufferPointer { d in try writer.append(term: t, doclist: d) }
            }
        }
        runs.removeAll()
        runBytes = 0
    }
}
