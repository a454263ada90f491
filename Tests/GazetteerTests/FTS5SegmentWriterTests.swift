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
    static func build(rows: Int, pageSize: Int, block: Int) throws -> Connection {
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
            try insert.run([.integer(Int64(i + 1)), .text(t.grams), .text(t.chars)])
        }
        try db.execute("COMMIT")

        let postings = SearchPostings(accepted: try SearchTokenProbe(connection: db, tokenize: SideSearchIndex.tokenize), blockRecords: block)
        var grams: [UInt8] = [], chars: [UInt8] = []
        for (i, name) in names.enumerated() {
            var n = name
            n.withUTF8 { SearchTokens.index(utf8: $0, grams: &grams, chars: &chars) }
            let taken = grams.withUnsafeBufferPointer { g in chars.withUnsafeBufferPointer { c in postings.add(rowid: Int64(i + 1), grams: g, chars: c) } }
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

    @Test(arguments: [(3_000, 4050, 1 << 20), (3_000, 4050, 700), (2_000, 64, 333), (500, 100, 50)])
    func segmentIsFTS5s(rows: Int, pageSize: Int, block: Int) throws {
        let db = try Self.build(rows: rows, pageSize: pageSize, block: block)
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
