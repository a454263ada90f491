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
            // As fts5StructureDecode checks it.
            guard let merging = next().flatMap(Int.init(exactly:)), let count = next().flatMap(Int.init(exactly:)),
                  count <= total, merging <= count else { return nil }
            var level = Level(merging: merging)
            for _ in 0..<count {
                guard let id = next().flatMap(Int.init(exactly:)), let first = next().flatMap(Int.init(exactly:)),
                      let last = next().flatMap(Int.init(exactly:)), first <= last else { return nil }
                level.segments.append(Segment(id: id, firstPage: first, lastPage: last))
            }
            levels.append(level)
        }
        guard offset == record.count, segmentCount == Int(total), levels.last.map({ $0.merging == 0 }) ?? true else { return nil }
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

    /// Adds a segment of leaves 1...`lastPage`: to the first level that stays short of
    /// `crisisMerge` segments (FTS5 merges a level that reaches it at its next write) and is not
    /// the output of a merge under way. A level whose first segments are being merged (its
    /// `merging`) writes the result into the last segment of the level below it, so nothing may
    /// be appended there; appending to the merging level itself is what FTS5's flushes do.
    mutating func add(segment id: Int, lastPage: Int, crisisMerge: Int) {
        var i = 0
        while i < levels.count, (i > 0 && levels[i - 1].merging > 0) || levels[i].segments.count + 1 >= crisisMerge { i += 1 }
        // A new last level: the last level never merges, so none writes into this one.
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

    /// Decodes a record of `columns` totals as FTS5 reads it (fts5StorageLoadTotals): the row
    /// count, then a total per column; what is missing is zero, anything after is ignored.
    init(_ record: [UInt8]?, columns: Int) {
        var values = [Int64](repeating: 0, count: columns + 1)
        var offset = 0
        for i in values.indices {
            guard let record, let (value, n) = FTS5Varint.read(record, at: offset) else { break }
            values[i] = Int64(bitPattern: value)
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
