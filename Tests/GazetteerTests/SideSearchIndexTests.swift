import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// A big import builds the POI search index aside (`SideSearchIndex`) and copies it in: the
/// database must answer every search as the row-by-row path's does, an import that fails must
/// leave it as it was, and no side database may stay behind.
@Suite(.tags(.fast)) struct SideSearchIndexTests {
    /// 3,000 POIs with names made of common and rare words, Latin and digits.
    static let pois: String = {
        let words = ["大学", "咖啡", "银行", "书店", "西湖", "灵隐", "中心", "超市", "医院", "饭店", "鑫", "馆", "KFC", "Coffee"]
        var text = "id,name,typecode,lng,lat,adcode\n"
        for i in 0..<3_000 {
            let name = words[i % words.count] + words[(i / 7) % words.count] + (i % 5 == 0 ? "\(i)号" : "") + (i % 11 == 0 ? "店" : "")
            text += "s\(i),\(name),050100,\(120.01 + Double(i % 97) / 400),\(30.11 + Double(i % 89) / 400),330106\n"
        }
        return text
    }()

    static let queries = ["大", "店", "鑫", "馆", "咖啡", "西湖", "学咖", "银行书", "大学中心", "灵隐寺", "kfc", "coffee", "12号", "号"]

    /// Imports the regions and `Fixture.pois`, then `files` in bulk with the side index as asked;
    /// returns how the search index was built.
    @discardableResult
    static func importInBulk(_ fixture: Fixture, _ files: [String], aside: ImportOptions.WhenItPays,
                             configure: (inout ImportOptions) -> Void = { _ in }) throws -> SearchIndexPath {
        let importer = try fixture.importer()
        var options = ImportOptions()
        options.bulkIndexBytes = 0
        options.searchIndexAside = aside
        configure(&options)
        defer { #expect(importer.lastSideIndex?.isOpen != true, "the side database outlived the import") }
        _ = try importer.importFiles(files, options: options)
        return importer.lastSearchIndexPath
    }

    static func seeded(_ fixture: Fixture) throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("pois.csv", Fixture.pois)])
    }

    /// Every (term, rowid, column, offset) of poi_fts, and FTS5's own check of the index.
    static func vocabulary(_ path: String) throws -> [[SQLiteValue]] {
        let db = try Connection(path: path, mode: .readWrite)
        try db.execute("INSERT INTO poi_fts (poi_fts) VALUES ('integrity-check')")
        try db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, poi_fts, instance)")
        return try db.cachedStatement("SELECT term, doc, col, offset FROM temp.v ORDER BY term, doc, col, offset").rows { $0.values(4) }
    }

    static func answers(_ path: String) throws -> [SearchResult] {
        let repo = try Repository(path: path)
        var near = SearchOptions()
        near.location = Coordinate(longitude: 120.1, latitude: 30.2)
        near.limit = 50
        return try queries.flatMap { q in [try repo.search(q), try repo.search(q, options: near)] }
    }

    @Test func builtAsideAnswersAsRowByRow() throws {
        let aside = Fixture(), rowByRow = Fixture()
        try Self.seeded(aside)
        try Self.seeded(rowByRow)
        let file = aside.write("many.csv", Self.pois)
        #expect(try Self.importInBulk(aside, [file], aside: .always) == .aside)
        #expect(try Self.importInBulk(rowByRow, [file], aside: .never) == .rowByRow)
        #expect(try aside.snapshot() == (try rowByRow.snapshot()))
        #expect(try Self.vocabulary(aside.database) == (try Self.vocabulary(rowByRow.database)))
        #expect(try Self.answers(aside.database) == (try Self.answers(rowByRow.database)))
        // The existing POIs are found as before, and the index takes row-by-row changes after.
        #expect(try Repository(path: aside.database).search("灵隐寺").hits.first?.name == "灵隐寺")
        let change = "id,name,lng,lat\np2,灵隐禅寺,120.101,30.241\ns5,换了名字,120.2,30.2\nextra,新来的咖啡,120.2,30.2\n"
        for fixture in [aside, rowByRow] { try fixture.run([fixture.write("change.csv", change)]) }
        #expect(try Self.vocabulary(aside.database) == (try Self.vocabulary(rowByRow.database)))
        #expect(try Self.answers(aside.database) == (try Self.answers(rowByRow.database)))
    }

    /// Names long enough that a batch is handed over by its bytes, not its count (and short
    /// ones between): the same index as row by row.
    @Test func longNamesAnswerAsRowByRow() throws {
        var text = "id,name,typecode,lng,lat,adcode\n"
        for i in 0..<40 {
            let name = i % 3 == 0 ? "长名\(i)" + String(repeating: "咖啡西湖大学", count: 8_000 + i) : "短名\(i)店"
            text += "L\(i),\(name),050100,120.1,30.2,330106\n"
        }
        let aside = Fixture(), rowByRow = Fixture()
        try Self.seeded(aside)
        try Self.seeded(rowByRow)
        let file = aside.write("long.csv", text)
        #expect(try Self.importInBulk(aside, [file], aside: .always) == .aside)
        #expect(try Self.importInBulk(rowByRow, [file], aside: .never) == .rowByRow)
        #expect(try Self.vocabulary(aside.database) == (try Self.vocabulary(rowByRow.database)))
        #expect(try Self.answers(aside.database) == (try Self.answers(rowByRow.database)))
        #expect(try Repository(path: aside.database).search("长名39").hits.first?.name.hasPrefix("长名39") == true)
    }

    /// Names FTS5 must tokenize itself (a word of more than 8 bytes, accented Latin, kana, Greek)
    /// among names written as our own segments (a word of exactly 8 bytes, Han characters of 4
    /// bytes in UTF-8), with little held before each segment: both kinds of segment, many of
    /// each, in one index, as row by row; and FTS5's merges on later writes keep it so.
    @Test func ownAndFTS5SegmentsInOneIndex() throws {
        let words = ["咖啡", "internationale", "café", "カフェ", "Ωmega", "abcdefgh", "𠀋𠀋", "屋𠀋", "大学", "店"]
        var text = "id,name,typecode,lng,lat,adcode\n"
        for i in 0..<2_000 {
            let name = words[i % words.count] + words[(i / 3) % words.count] + " " + words[(i / 17) % words.count] + "\(i % 7)"
            text += "m\(i),\(name),050100,\(120.01 + Double(i % 97) / 400),\(30.11 + Double(i % 89) / 400),330106\n"
        }
        let aside = Fixture(), rowByRow = Fixture()
        try Self.seeded(aside)
        try Self.seeded(rowByRow)
        let file = aside.write("mixed.csv", text)
        #expect(try Self.importInBulk(aside, [file], aside: .always) { $0.searchIndexPendingBytes = 4_096 } == .aside)
        #expect(try Self.importInBulk(rowByRow, [file], aside: .never) == .rowByRow)
        let segments = try Connection(path: aside.database, mode: .readOnly)
            .makeStatement("SELECT segid >= 1000, count(DISTINCT segid) FROM poi_fts_idx GROUP BY 1 ORDER BY 1").rows { ($0.int(0), $0.int(1)) }
        #expect(segments.count == 2 && segments.allSatisfy { $0.1 > 1 }, "FTS5's segments and ours: \(segments)")
        #expect(try Self.vocabulary(aside.database) == (try Self.vocabulary(rowByRow.database)))
        #expect(try Self.answers(aside.database) == (try Self.answers(rowByRow.database)))
        #expect(try Repository(path: aside.database).search("internationale").hits.count > 0)
        // Later writes: FTS5 merges levels, ours among them.
        for round in 0..<3 {
            var change = "id,name,lng,lat\n"
            for k in 0..<200 { change += "c\(round)_\(k),新来的\(words[k % words.count])\(round),120.2,30.2\n" }
            for fixture in [aside, rowByRow] { try fixture.run([fixture.write("change\(round).csv", change)]) }
        }
        #expect(try Self.vocabulary(aside.database) == (try Self.vocabulary(rowByRow.database)))
        #expect(try Self.answers(aside.database) == (try Self.answers(rowByRow.database)))
    }

    /// Rows whose rowid the side index could not count on (an id already there, a row rejected
    /// after it was tokenized) send the import back to the row-by-row path mid-file; a row
    /// that does not parse is never tokenized and keeps it aside.
    @Test func rowidsNotCountedOnLeaveTheSidePath() throws {
        let lines = Self.pois.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func withLine(_ line: String, at index: Int) -> String {
            var copy = lines
            copy.insert(line, at: index)
            return copy.joined(separator: "\n")
        }
        let cases: [(String, String, SearchIndexPath)] = [
            ("existing id", withLine("p2,灵隐寺新名,050100,120.101,30.241,330106", at: 1_500), .abandoned),
            ("unknown district", withLine("x1,无处店,050100,120.1,30.2,999999", at: 2_000), .abandoned),
            ("bad latitude", withLine("x2,坏点店,050100,120.1,300.2,330106", at: 2_000), .aside),
            ("first row rejected", withLine("x3,无处店,050100,120.1,30.2,999999", at: 1), .abandoned),
        ]
        for (label, text, path) in cases {
            let aside = Fixture(), rowByRow = Fixture()
            try Self.seeded(aside)
            try Self.seeded(rowByRow)
            let file = aside.write("many.csv", text)
            let options: (inout ImportOptions) -> Void = { $0.skipInvalid = true; $0.rejectsPath = aside.directory.appendingPathComponent("rejects.csv").path }
            #expect(try Self.importInBulk(aside, [file], aside: .always, configure: options) == path, "\(label)")
            #expect(try Self.importInBulk(rowByRow, [file], aside: .never, configure: options) == .rowByRow)
            #expect(try aside.snapshot() == (try rowByRow.snapshot()), "\(label)")
            #expect(try Self.vocabulary(aside.database) == (try Self.vocabulary(rowByRow.database)), "\(label)")
            #expect(try Self.answers(aside.database) == (try Self.answers(rowByRow.database)), "\(label)")
        }
    }

    /// A bad row fails the import before the copy; a failure after it (here the metadata write,
    /// refused by a trigger) rolls the copied index back with the rest.
    @Test func failedImportLeavesTheDatabaseAsItWas() throws {
        let fixture = Fixture()
        try Self.seeded(fixture)
        let before = try fixture.snapshot(), vocabulary = try Self.vocabulary(fixture.database)

        let bad = fixture.write("bad.csv", Self.pois + "bad,坏点,050100,120.1,300.2,330106\n")
        let importer = try fixture.importer()
        var options = ImportOptions()
        options.bulkIndexBytes = 0
        options.searchIndexAside = .always
        #expect(throws: ImportFailure.self) { try importer.importFiles([bad], options: options) }
        #expect(importer.lastSearchIndexPath == .aside)
        #expect(importer.lastSideIndex?.isOpen == false)
        #expect(try fixture.snapshot() == before)
        #expect(try Self.vocabulary(fixture.database) == vocabulary)

        try Connection(path: fixture.database, mode: .readWrite).execute(
            "CREATE TRIGGER refuse BEFORE UPDATE ON meta BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let good = fixture.write("good.csv", Self.pois)
        #expect(throws: GazetteerError.self) { try importer.importFiles([good], options: options) }
        #expect(importer.lastSearchIndexPath == .aside)
        #expect(importer.lastSideIndex?.isOpen == false)
        #expect(try fixture.snapshot() == before)
        #expect(try Self.vocabulary(fixture.database) == vocabulary)
        #expect(try Connection(path: fixture.database, mode: .readOnly).scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(Self.leftoverTemporaryFiles().isEmpty)
    }

    /// When it pays: a small table under a big file, not a big table under a small file.
    @Test func takenWhenTheExistingPOIsAreFew() throws {
        let fixture = Fixture()
        try Self.seeded(fixture)
        #expect(try Self.importInBulk(fixture, [fixture.write("many.csv", Self.pois)], aside: .whenItPays) == .aside)
        let few = "id,name,lng,lat\n" + (0..<10).map { "f\($0),少\($0),120.1,30.2\n" }.joined()
        #expect(try Self.importInBulk(fixture, [fixture.write("few.csv", few)], aside: .whenItPays) == .rowByRow)
        #expect(SideSearchIndex.pays(existing: 9_467, fileBytes: 150_677_008))
        #expect(!SideSearchIndex.pays(existing: 300_000, fileBytes: 150_677_008))
        // However big the file, the existing names it holds in memory stay bounded.
        #expect(!SideSearchIndex.pays(existing: 10_000_000, fileBytes: 150 * 50_000_000))
    }

    /// SQLite's temporary files (`etilqs_*`) in the folders it puts them in: none, since the
    /// side database's is unlinked as soon as it is opened.
    static func leftoverTemporaryFiles() -> [String] {
        let env = ProcessInfo.processInfo.environment
        let folders = [env["SQLITE_TMPDIR"], env["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"].compactMap { $0 }
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("etilqs_") }.map { folder + "/" + $0 }
        }
    }
}
