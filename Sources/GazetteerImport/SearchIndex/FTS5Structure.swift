/// FTS5's structure record (`%_data` row 10): which segments make up the index, level by
/// level, in the format of fts5_index.c's `fts5StructureWrite` (a 4-byte cookie, then varints:
/// levels, segments, write counter, and per level the segments in an ongoing merge, the
/// segments, and each segment's id and first and last leaf). `SideSearchIndex` reads it after
/// FTS5 wrote its own segments and adds those `SearchPostings` wrote.
struct FTS5Structure: Equatable {
    struct Segment: Equatable {
        var id: Int
        var firstPage: Int
        var lastPage: Int
    }

    struct Level: Equatable {
        var merging = 0
        var segments: [Segment] = []
    }

    /// The record's rowid in `%_data`.
    static let recordID: Int64 = 10
    /// A level of this many segments is merged at FTS5's next write (its `crisismerge`
    /// default); segments added here go to a level with fewer.
    static let crisisMerge = 16

    var cookie: [UInt8]
    var writeCounter: UInt64
    var levels: [Level]

    var segmentCount: Int { levels.reduce(0) { $0 + $1.segments.count } }

    /// Decodes a record; nil for anything this format does not describe (such as the second
    /// version that SQLite 3.45 writes for tables with `contentless_delete`).
    init?(_ record: [UInt8]) {
        guard record.count >= 7 else { return nil }
        cookie = Array(record[0..<4])
        var offset = 4
        func next() -> UInt64? {
            guard let (value, n) = FTS5Varint.read(record, at: offset) else { return nil }
            offset += n
            return value
        }
        guard record[4] != 0xFF, let levelCount = next(), let total = next(), let counter = next(),
              levelCount <= 2000, total <= 2000 else { return nil }
        writeCounter = counter
        levels = []
        for _ in 0..<levelCount {
            guard let merging = next(), let count = next(), count <= total else { return nil }
            var level = Level(merging: Int(merging))
            for _ in 0..<count {
                guard let id = next(), let first = next(), let last = next() else { return nil }
                level.segments.append(Segment(id: Int(id), firstPage: Int(first), lastPage: Int(last)))
            }
            levels.append(level)
        }
        guard offset == record.count, segmentCount == Int(total) else { return nil }
    }

    var record: [UInt8] {
        var out = cookie
        FTS5Varint.append(levels.count, to: &out)
        FTS5Varint.append(segmentCount, to: &out)
        FTS5Varint.append(writeCounter, to: &out)
        for level in levels {
            FTS5Varint.append(level.merging, to: &out)
            FTS5Varint.append(level.segments.count, to: &out)
            for s in level.segments {
                FTS5Varint.append(s.id, to: &out)
                FTS5Varint.append(s.firstPage, to: &out)
                FTS5Varint.append(s.lastPage, to: &out)
            }
        }
        return out
    }

    /// Adds a segment of leaves 1...`lastPage`, as a flush adds one: to level 0, or to the
    /// first level without an ongoing merge that is short of a crisis merge.
    mutating func add(segment id: Int, lastPage: Int) {
        var i = 0
        while i < levels.count, levels[i].merging > 0 || levels[i].segments.count + 1 >= Self.crisisMerge { i += 1 }
        if i == levels.count { levels.append(Level()) }
        levels[i].segments.append(Segment(id: id, firstPage: 1, lastPage: lastPage))
        writeCounter &+= UInt64(lastPage)
    }

    /// Segment ids in use.
    var ids: Set<Int> { Set(levels.flatMap { $0.segments.map(\.id) }) }
}

/// FTS5's averages record (`%_data` row 1): the rows indexed and each column's tokens, which
/// FTS5 keeps for ranking (`fts5StorageSaveTotals`).
struct FTS5Averages: Equatable {
    static let recordID: Int64 = 1
    var rows: Int64
    var tokens: [Int64]

    init(rows: Int64, tokens: [Int64]) {
        self.rows = rows
        self.tokens = tokens
    }

    /// Decodes a record of `columns` totals; a missing or empty record is all zero.
    init?(_ record: [UInt8]?, columns: Int) {
        rows = 0
        tokens = Array(repeating: 0, count: columns)
        guard let record, !record.isEmpty else { return }
        // As FTS5 reads it: the row count, then one total per column (anything after, ignored).
        var values: [Int64] = []
        var offset = 0
        while values.count < columns + 1 {
            guard let (value, n) = FTS5Varint.read(record, at: offset) else { return nil }
            values.append(Int64(bitPattern: value))
            offset += n
        }
        rows = values[0]
        tokens = Array(values[1...])
    }

    var record: [UInt8] {
        var out: [UInt8] = []
        FTS5Varint.append(rows, to: &out)
        for t in tokens { FTS5Varint.append(t, to: &out) }
        return out
    }
}
