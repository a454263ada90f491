/// Where a segment's records go: the `%_data` blocks and the `%_idx` rows of an FTS5 table.
protocol FTS5SegmentSink {
    func writeData(id: Int64, block: UnsafeBufferPointer<UInt8>) throws
    func writeIndex(segid: Int, term: UnsafeBufferPointer<UInt8>, page: Int64) throws
}

/// Writes one FTS5 segment from terms given in order, each with its doclist: a port of the
/// segment writer in SQLite's fts5_index.c (3.40: `fts5FlushOneHash` and the `fts5Write*`
/// functions it calls), so that the leaves, the doclist indexes and the `%_idx` rows are byte
/// for byte those FTS5 writes when it flushes the same terms from its pending hash. Only the
/// flush's path is ported (detail=full, no prefix indexes), not the merges'.
///
/// A doclist is FTS5's: the first rowid, then each next as the difference from the one
/// before, each followed by its position list's size (twice its bytes) and the positions.
struct FTS5SegmentWriter {
    /// Leaves that a doclist must span, wholly empty of terms, before it gets a doclist index.
    static let minDoclistIndexSize = 4

    /// A record's rowid in `%_data` (fts5_index.c's `fts5_dri`).
    static func recordID(segid: Int, doclistIndex: Bool, height: Int, page: Int) -> Int64 {
        (Int64(segid) << 37) + ((doclistIndex ? 1 : 0) << 36) + (Int64(height) << 31) + Int64(page)
    }

    private struct DoclistIndexLevel {
        var page = 0
        var previousValid = false
        var previous: Int64 = 0
        var buffer: [UInt8] = []
    }

    let pageSize: Int
    let segid: Int
    private let sink: any FTS5SegmentSink

    /// The leaf being filled: a 4-byte header (offset of its first rowid, size of the leaf
    /// without its footer), then terms and doclists.
    private var page: [UInt8] = [0, 0, 0, 0]
    /// The leaf's footer: each term's offset, the first absolute, the others relative.
    private var footer: [UInt8] = []
    private var previousTermOffset = 0
    /// The leaf's number, from 1.
    private(set) var pageNumber = 1
    /// The last term written, on this leaf or an earlier one.
    private var lastTerm: [UInt8] = []
    private var firstTermInPage = true
    private var firstRowidInPage = false
    /// The first term of leaf `btreePage`, the key of its `%_idx` row (0: none pending).
    private var btreeTerm: [UInt8] = []
    private var btreePage = 1
    /// Leaves in a row written without a term.
    private var emptyLeaves = 0
    private var doclistIndex: [DoclistIndexLevel] = [DoclistIndexLevel()]

    init(segid: Int, pageSize: Int, sink: any FTS5SegmentSink) {
        self.segid = segid
        self.pageSize = pageSize
        self.sink = sink
        page.reserveCapacity(pageSize + 64)
        footer.reserveCapacity(pageSize)
    }

    /// Appends a term (with its index's prefix byte, '0' for the main index) and its doclist.
    /// Terms must come in FTS5's order: by their bytes, a prefix before the longer term.
    mutating func append(term: UnsafeBufferPointer<UInt8>, doclist: UnsafeBufferPointer<UInt8>) throws {
        try appendTerm(term)
        if pageSize >= page.count + footer.count + doclist.count + 1 {
            page.append(contentsOf: doclist)
            return
        }
        // The doclist does not fit on this leaf: rowid by rowid, position list by position list.
        var rowid: UInt64 = 0
        var offset = 0
        while offset < doclist.count {
            let (delta, n) = FTS5Varint.read(doclist, at: offset)
            offset += n
            rowid &+= delta
            if firstRowidInPage {
                putU16(page.count, at: 0)
                FTS5Varint.append(rowid, to: &page)
                firstRowidInPage = false
                try doclistIndexAppend(Int64(bitPattern: rowid))
            } else {
                FTS5Varint.append(delta, to: &page)
            }
            let (size, sizeLength) = FTS5Varint.read(doclist, at: offset)
            let copy = sizeLength + Int(size / 2)
            if page.count + footer.count + copy <= pageSize {
                page.append(contentsOf: UnsafeBufferPointer(rebasing: doclist[offset..<(offset + copy)]))
            } else {
                // Split between leaves, each varint whole.
                var done = 0
                while true {
                    let space = pageSize - page.count - footer.count
                    let n = copy - done <= space ? copy - done : Self.poslistPrefix(doclist, from: offset + done, max: space)
                    page.append(contentsOf: UnsafeBufferPointer(rebasing: doclist[(offset + done)..<(offset + done + n)]))
                    done += n
                    if page.count + footer.count >= pageSize { try flushLeaf() }
                    if done >= copy { break }
                }
            }
            offset += copy
        }
    }

    /// Writes the last leaf and the last `%_idx` row; returns the last leaf's number (0: the
    /// segment is empty).
    mutating func finish() throws -> Int {
        if page.count > 4 { try flushLeaf() }
        let last = pageNumber - 1
        if pageNumber > 1 { try flushBtree() }
        return last
    }

    // MARK: The port

    /// How many bytes of whole varints from `from` fit in `max` (at least the first).
    private static func poslistPrefix(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, max: Int) -> Int {
        var result = FTS5Varint.read(bytes, at: from).length
        if result < max {
            while true {
                let n = FTS5Varint.read(bytes, at: from + result).length
                if result + n > max { break }
                result += n
            }
        }
        return result
    }

    private mutating func putU16(_ value: Int, at offset: Int) {
        page[offset] = UInt8(truncatingIfNeeded: value >> 8)
        page[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    /// fts5WriteAppendTerm.
    private mutating func appendTerm(_ term: UnsafeBufferPointer<UInt8>) throws {
        let nTerm = term.count
        let nMin = min(lastTerm.count, nTerm)
        if page.count + footer.count + nTerm + 2 >= pageSize, page.count > 4 {
            try flushLeaf()
        }
        FTS5Varint.append(page.count - previousTermOffset, to: &footer)
        previousTermOffset = page.count

        var prefix = 0
        if firstTermInPage {
            if pageNumber != 1 {
                // A key for the %_idx row: longer than the last term's common prefix with this one.
                var n = nTerm
                if !lastTerm.isEmpty { n = 1 + Self.commonPrefix(lastTerm, term, nMin) }
                try btreeTermStarts(UnsafeBufferPointer(rebasing: term[0..<n]))
            }
        } else {
            prefix = Self.commonPrefix(lastTerm, term, nMin)
            FTS5Varint.append(prefix, to: &page)
        }
        FTS5Varint.append(nTerm - prefix, to: &page)
        page.append(contentsOf: UnsafeBufferPointer(rebasing: term[prefix...]))
        lastTerm.removeAll(keepingCapacity: true)
        lastTerm.append(contentsOf: term)
        firstTermInPage = false
        firstRowidInPage = false
        doclistIndex[0].page = pageNumber
    }

    private static func commonPrefix(_ old: [UInt8], _ new: UnsafeBufferPointer<UInt8>, _ count: Int) -> Int {
        var i = 0
        while i < count, old[i] == new[i] { i += 1 }
        return i
    }

    /// fts5WriteFlushLeaf.
    private mutating func flushLeaf() throws {
        putU16(page.count, at: 2)
        if firstTermInPage {
            // fts5WriteBtreeNoTerm: a leaf with no rowid either adds a 0 to the doclist index.
            if firstRowidInPage, !doclistIndex[0].buffer.isEmpty {
                FTS5Varint.append(0, to: &doclistIndex[0].buffer)
            }
            emptyLeaves += 1
        } else {
            page.append(contentsOf: footer)
        }
        try page.withUnsafeBufferPointer {
            try sink.writeData(id: Self.recordID(segid: segid, doclistIndex: false, height: 0, page: pageNumber), block: $0)
        }
        page.removeAll(keepingCapacity: true)
        page.append(contentsOf: [0, 0, 0, 0])
        footer.removeAll(keepingCapacity: true)
        previousTermOffset = 0
        pageNumber += 1
        firstTermInPage = true
        firstRowidInPage = true
    }

    /// fts5WriteBtreeTerm.
    private mutating func btreeTermStarts(_ term: UnsafeBufferPointer<UInt8>) throws {
        try flushBtree()
        btreeTerm.removeAll(keepingCapacity: true)
        btreeTerm.append(contentsOf: term)
        btreePage = pageNumber
    }

    /// fts5WriteFlushBtree: the `%_idx` row of leaf `btreePage`, its low bit saying whether the
    /// doclist that ends there got a doclist index.
    private mutating func flushBtree() throws {
        guard btreePage != 0 else { return }
        let flag = try flushDoclistIndex()
        try btreeTerm.withUnsafeBufferPointer {
            try sink.writeIndex(segid: segid, term: $0, page: (flag ? 1 : 0) + (Int64(btreePage) << 1))
        }
        btreePage = 0
    }

    /// fts5WriteFlushDlidx.
    private mutating func flushDoclistIndex() throws -> Bool {
        let flag = !doclistIndex[0].buffer.isEmpty && emptyLeaves >= Self.minDoclistIndexSize
        for i in doclistIndex.indices {
            if doclistIndex[i].buffer.isEmpty { break }
            if flag {
                try doclistIndex[i].buffer.withUnsafeBufferPointer {
                    try sink.writeData(id: Self.recordID(segid: segid, doclistIndex: true, height: i, page: doclistIndex[i].page), block: $0)
                }
            }
            doclistIndex[i].buffer.removeAll(keepingCapacity: true)
            doclistIndex[i].previousValid = false
        }
        emptyLeaves = 0
        return flag
    }

    /// fts5WriteDlidxAppend: `rowid` is the first on the current leaf.
    private mutating func doclistIndexAppend(_ rowid: Int64) throws {
        var i = 0
        var done = false
        while !done {
            if doclistIndex[i].buffer.count >= pageSize {
                // This level's leaf is full: written, and its first rowid pushed up a level.
                doclistIndex[i].buffer[0] = 0x01
                try doclistIndex[i].buffer.withUnsafeBufferPointer {
                    try sink.writeData(id: Self.recordID(segid: segid, doclistIndex: true, height: i, page: doclistIndex[i].page), block: $0)
                }
                while doclistIndex.count < i + 2 { doclistIndex.append(DoclistIndexLevel()) }
                if doclistIndex[i + 1].buffer.isEmpty {
                    let first = doclistIndex[i].buffer.withUnsafeBufferPointer { b in
                        let skip = 1 + FTS5Varint.read(b, at: 1).length
                        return Int64(bitPattern: FTS5Varint.read(b, at: skip).value)
                    }
                    doclistIndex[i + 1].page = doclistIndex[i].page
                    FTS5Varint.append(0, to: &doclistIndex[i + 1].buffer)
                    FTS5Varint.append(doclistIndex[i].page, to: &doclistIndex[i + 1].buffer)
                    FTS5Varint.append(first, to: &doclistIndex[i + 1].buffer)
                    doclistIndex[i + 1].previousValid = true
                    doclistIndex[i + 1].previous = first
                }
                doclistIndex[i].buffer.removeAll(keepingCapacity: true)
                doclistIndex[i].previousValid = false
                doclistIndex[i].page += 1
            } else {
                done = true
            }
            let value: Int64
            if doclistIndex[i].previousValid {
                value = rowid &- doclistIndex[i].previous
            } else {
                let pageNo = i == 0 ? pageNumber : doclistIndex[i - 1].page
                FTS5Varint.append(done ? 0 : 1, to: &doclistIndex[i].buffer)
                FTS5Varint.append(pageNo, to: &doclistIndex[i].buffer)
                value = rowid
            }
            FTS5Varint.append(value, to: &doclistIndex[i].buffer)
            doclistIndex[i].previousValid = true
            doclistIndex[i].previous = rowid
            i += 1
        }
    }
}
