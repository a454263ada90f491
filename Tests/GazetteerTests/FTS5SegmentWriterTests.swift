import Foundation
import Testing
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerSQLite

/// `SearchPostings` and `FTS5SegmentWriter` write a search index's segment outside FTS5: it
/// must be byte for byte the segment FTS5 writes when it flushes the same rows (leaves, doclist
/// indexes, `%_idx` rows, structure and averages), and FTS5 must read it as its own.
@Suite(.tags(.fast)) struct FTS5SegmentWriterTests {
    /// The poi_fts definition of schema.sql, for tables `name`.
    static func ddl(_ name: String) -> String {
        "CREATE VIRTUAL TABLE \(name) USING fts5 (grams, chars, content = '', columnsize = 0, tokenize = '\(SideSearchIndex.tokenize)')"
    }

    /// Names of common and rare words: long doclists (spanning leaves, with doclist indexes) and
    /// short ones, Latin words and digits, one-character runs.
    static func names(_ count: Int) -> [String] {
        let words = ["大学", "咖啡", "银行", "书店", "西湖", "灵隐", "中心", "超市", "医院", "饭店", "鑫", "馆", "kfc ", " coffee", "𠀋屋", "号"]
        return (0..<count).map { i in
            var name = words[i % words.count] + words[(i / 7) % words.count] + words[(i / 49) % words.count]
            if i % 5 == 0 { name += " \(i % 1000)号" }
            if i % 3 == 0 { name += "店" }
            if i % 13 == 0 { name += String(UnicodeScalar(0x4E00 + UInt32(i % 20_000))!) }
            return name
        }
    }

    /// Table `a` built by FTS5 (one flush, at the commit) and `b` by `SearchPostings` in runs
    /// of `block` records, with leaves of `pageSize` bytes.
    /// Returns a connection opened after both were written (FTS5 caches the structure record
    /// per connection, and `b`'s was written behind its back).
    static func build(rows: Int, pageSize: Int, block: Int, firstRowid: Int64 = 1) throws -> Connection {
        let path = NSTemporaryDirectory() + "fts5-segment-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Connection(path: path, mode: .readWrite)
        for t in ["a", "b"] {
            try db.execute(ddl(t))
            try db.execute("INSERT INTO \(t) (\(t), rank) VALUES ('pgsz', \(pageSize)); INSERT INTO \(t) (\(t), rank) VALUES ('hashsize', 1000000000)")
        }
        let names = Self.names(rows)
        try db.execute("BEGIN")
        let insert = try db.makeStatement("INSERT INTO a (rowid, grams, chars) VALUES (?, ?, ?)")
        for (i, name) in names.enumerated() {
            let t = SearchTokens.index(name)
            try insert.run([.integer(firstRowid + Int64(i)), .text(t.grams), .text(t.chars)])
        }
        try db.execute("COMMIT")

        let postings = SearchPostings(accepted: try SearchTokenProbe(connection: db, tokenize: SideSearchIndex.tokenize), blockRecords: block)
        var grams: [UInt8] = [], chars: [UInt8] = []
        for (i, name) in names.enumerated() {
            var n = name
            n.withUTF8 { SearchTokens.index(utf8: $0, grams: &grams, chars: &chars) }
            let taken = grams.withUnsafeBufferPointer { g in chars.withUnsafeBufferPointer { c in postings.add(rowid: firstRowid + Int64(i), grams: g, chars: c) } }
            #expect(taken, "\(name) was not taken")
        }
        try db.execute("BEGIN")
        var writer = FTS5SegmentWriter(segid: 1, pageSize: pageSize, sink: try SideSegmentSink(db, table: "b"))
        try postings.writeSegment(&writer)
        let last = try writer.finish()
        try SideSearchIndex.add(segments: [(1, last)], rows: postings.rows, tokens: [postings.tokens.grams, postings.tokens.chars], to: db, table: "b")
        try db.execute("COMMIT")
        db.close()
        return try Connection(path: path, mode: .readWrite)
    }

    static func records(_ db: Connection, _ table: String) throws -> [[SQLiteValue]] {
        try db.makeStatement("SELECT id, block FROM \(table)_data ORDER BY id").rows { $0.values(2) }
        + (try db.makeStatement("SELECT segid, term, pgno FROM \(table)_idx ORDER BY segid, term").rows { $0.values(3) })
    }

    static func vocabulary(_ db: Connection, _ table: String) throws -> [[SQLiteValue]] {
        try db.execute("CREATE VIRTUAL TABLE temp.v_\(table) USING fts5vocab(main, \(table), instance)")
        return try db.makeStatement("SELECT term, doc, col, offset FROM temp.v_\(table) ORDER BY term, doc, col, offset").rows { $0.values(4) }
    }

    /// Rowids of every varint length: from 1, near 2^40 (first rowids of 6 bytes), and from
    /// below zero (FTS5 takes differences as unsigned 64-bit numbers).
    @Test(arguments: [(3_000, 4050, 1 << 20, 1), (3_000, 4050, 700, 1), (2_000, 64, 333, 1), (500, 100, 50, 1),
                      (3_000, 4050, 700, 1 << 40), (2_000, 64, 333, -1_000), (1_000, 200, 100, Int64.max - 5_000)])
    func segmentIsFTS5s(rows: Int, pageSize: Int, block: Int, firstRowid: Int64) throws {
        let db = try Self.build(rows: rows, pageSize: pageSize, block: block, firstRowid: firstRowid)
        let a = try Self.records(db, "a"), b = try Self.records(db, "b")
        #expect(a.count == b.count)
        if let k = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) {
            Issue.record("record \(k) of \(a.count) differs: \(Self.short(a[k])) against \(Self.short(b[k]))")
        }
        try db.execute("INSERT INTO b (b) VALUES ('integrity-check')")
        #expect(try Self.vocabulary(db, "a") == (try Self.vocabulary(db, "b")), "the terms differ")
        #expect(try db.scalar("SELECT count(*) FROM b WHERE b MATCH '\"大学\"'") == (try db.scalar("SELECT count(*) FROM a WHERE a MATCH '\"大学\"'")))
    }

    /// Doclist indexes of more than one level: a term in every row, on 64-byte leaves.
    @Test func deepDoclistIndexes() throws {
        let db = try Self.build(rows: 12_000, pageSize: 64, block: 5_000)
        #expect(try db.scalar("SELECT count(*) FROM b_data WHERE (id >> 31) & 31 > 0") != .integer(0))
        let a = try Self.records(db, "a"), b = try Self.records(db, "b")
        #expect(a.count == b.count)
        if let k = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) {
            Issue.record("record \(k) of \(a.count) differs: \(Self.short(a[k])) against \(Self.short(b[k]))")
        }
    }

    static func short(_ row: [SQLiteValue]) -> String {
        row.map { v -> String in
            if case .blob(let b) = v { return "blob(\(b.count)) " + b.prefix(48).map { String(format: "%02x", $0) }.joined() }
            return "\(v)"
        }.joined(separator: " ")
    }

    @Test func varintsAreSQLites() {
        for v: UInt64 in [0, 1, 127, 128, 200, 16383, 16384, 2_097_151, 2_097_152, 1 << 35, 1 << 56 - 1, 1 << 56, UInt64.max] {
            var out: [UInt8] = []
            FTS5Varint.append(v, to: &out)
            #expect(out.count == FTS5Varint.length(v))
            #expect(FTS5Varint.read(out, at: 0)?.value == v)
            #expect(out.withUnsafeBufferPointer { FTS5Varint.read($0, at: 0).value } == v)
        }
        var out: [UInt8] = []
        FTS5Varint.append(UInt64(200), to: &out)
        #expect(out == [0x81, 0x48])
    }

    /// A level whose first segments are being merged writes into the last segment of the next:
    /// a segment added must not land there, nor on a level about to be merged in a crisis.
    @Test func segmentsAddedAvoidMergesUnderWay() throws {
        var s = try #require(FTS5Structure([0, 0, 0, 1, 0, 0, 0]))
        s.levels = [.init(merging: 2, segments: [.init(id: 1, firstPage: 1, lastPage: 5), .init(id: 2, firstPage: 1, lastPage: 5)]),
                    .init(merging: 0, segments: [.init(id: 3, firstPage: 1, lastPage: 9)])]
        s.add(segment: 1000, lastPage: 7, crisisMerge: 16)
        #expect(s.levels[0].segments.map(\.id) == [1, 2, 1000])
        s.add(segment: 1001, lastPage: 7, crisisMerge: 4)
        #expect(s.levels.count == 3 && s.levels[1].segments.map(\.id) == [3] && s.levels[2].segments.map(\.id) == [1001])
        #expect(FTS5Structure(s.record) == s)
        // A decoded record that merges on its last level is refused, as FTS5 refuses it.
        #expect(FTS5Structure([0, 0, 0, 1, 1, 1, 0, 1, 1, 7, 1, 2]) == nil)
    }

    @Test func averagesReadAsFTS5ReadsThem() {
        #expect(FTS5Averages(nil, columns: 2) == FTS5Averages(rows: 0, tokens: [0, 0]))
        #expect(FTS5Averages([5, 7], columns: 2) == FTS5Averages(rows: 5, tokens: [7, 0]))
        #expect(FTS5Averages([5, 7, 9, 11], columns: 2) == FTS5Averages(rows: 5, tokens: [7, 9]))
        #expect(FTS5Averages(rows: 300, tokens: [2, 70_000]).record == [0x82, 0x2C, 2, 0x84, 0xA2, 0x70])
    }

    @Test func structureRecordRoundTrips() throws {
        let record: [UInt8] = [0, 0, 0, 3, 1, 1, 0xF2, 0x4E, 0, 1, 1, 1, 0xF2, 0x4E]
        let s = try #require(FTS5Structure(record))
        #expect(s.levels.count == 1 && s.levels[0].segments == [.init(id: 1, firstPage: 1, lastPage: 14_670)])
        #expect(s.writeCounter == 14_670)
        #expect(s.record == record)
        #expect(FTS5Structure(Array(record.dropLast())) == nil)
        #expect(FTS5Structure([0, 0, 0, 3, 0xFF, 0, 0, 1]) == nil)
    }
}
