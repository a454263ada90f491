import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct ImportTests {
    let fixture = Fixture()

    @Test func importsAllThreeFormatsInAnyOrder() throws {
        let files = [fixture.write("pois.csv", Fixture.pois), fixture.write("b.csv", Fixture.boundaries), fixture.write("r.csv", Fixture.regions)]
        let summary = try fixture.run(files)
        #expect(summary.regions.inserted == 6)
        #expect(summary.boundaries.inserted == 2)
        #expect(summary.pois.inserted == 3)
        let info = try Repository(path: fixture.database).info()
        #expect(info.regionCounts == ["province": 2, "city": 1, "district": 2, "town": 1])
        #expect(info.poiCount == 3)
        #expect(info.boundaryCount == 2)
        // The boundary set the bounding box and the R*Tree row.
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT min_lng FROM region WHERE code = 330106") == .real(120.0))
        #expect(try db.scalar("SELECT count(*) FROM region_rtree WHERE id = 330106") == .integer(1))
        #expect(try db.scalar("SELECT address FROM poi WHERE id = 'p2'") == .text("法云弄1号, 灵隐"))
    }

    @Test func folderImportAndReimportChangesNothing() throws {
        fixture.write("regions.csv", Fixture.regions)
        fixture.write("boundaries.csv", Fixture.boundaries)
        fixture.write("pois.csv", Fixture.pois)
        try fixture.run([fixture.directory.path])
        let before = try fixture.snapshot()
        let again = try fixture.run([fixture.directory.path])
        #expect(again.regions.unchanged == 6 && again.regions.inserted == 0 && again.regions.updated == 0)
        #expect(again.boundaries.unchanged == 2)
        #expect(again.pois.unchanged == 3 && again.pois.inserted == 0)
        #expect(try fixture.snapshot() == before)
    }

    @Test func changedRowsAreUpdatedWithTheirIndexes() throws {
        let regions = fixture.write("regions.csv", Fixture.regions)
        let pois = fixture.write("pois.csv", Fixture.pois)
        try fixture.run([regions, pois])
        let moved = Fixture.pois.replacingOccurrences(of: "p3,故宫博物院", with: "p3,国家博物馆").replacingOccurrences(of: "116.397,39.918", with: "116.401,39.905")
        let summary = try fixture.run([fixture.write("pois2.csv", moved)])
        #expect(summary.pois.updated == 1 && summary.pois.unchanged == 2)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM poi_fts WHERE poi_fts MATCH 'grams : \"故宫\"'") == .integer(0))
        #expect(try db.scalar("SELECT count(*) FROM poi_fts WHERE poi_fts MATCH 'grams : \"博物\"'") == .integer(1))
        #expect(try db.scalar("SELECT lat FROM poi_rtree WHERE id = (SELECT rowid FROM poi WHERE id = 'p3')") == .real(39.905))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        try Connection(path: fixture.database, mode: .readWrite).execute("INSERT INTO poi_fts (poi_fts) VALUES ('integrity-check')")
    }

    @Test func partialRegionRowsKeepWhatTheyLeaveOut() throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions)])
        let summary = try fixture.run([fixture.write("codes.csv", "code,parent,level,name,citycode\n330100,330000,city,杭州市,0571\n")])
        #expect(summary.regions.updated == 1)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        let row = try db.cachedStatement("SELECT short_name, pinyin, lng, lat, citycode FROM region WHERE code = 330100").first { $0.values(5) }
        #expect(row == [.text("杭州"), .text("hang zhou"), .real(120.21), .real(30.25), .text("0571")])
        // The search index still finds it by the kept short name and pinyin.
        #expect(try db.scalar("SELECT count(*) FROM region_fts WHERE region_fts MATCH 'pinyin : \"hangzhou\"'") == .integer(1))
        try Connection(path: fixture.database, mode: .readWrite).execute("INSERT INTO region_fts (region_fts) VALUES ('integrity-check')")
        // The same partial file again changes nothing.
        #expect(try fixture.run([fixture.directory.appendingPathComponent("codes.csv").path]).regions.unchanged == 1)
    }

    @Test func poisWithoutDistrictAreLocatedFromBoundaries() throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries)])
        let summary = try fixture.run([fixture.write("p.csv", "id,name,lng,lat\nq1,某店,120.13,30.26\nq2,海上,150.0,10.0\n")])
        #expect(summary.poisLocated == 1)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT adcode FROM poi WHERE id = 'q1'") == .integer(330106))
        #expect(try db.scalar("SELECT towncode FROM poi WHERE id = 'q1'") == .integer(330106003000)) // 灵隐's centre is 1.1 km away
        #expect(try db.scalar("SELECT adcode FROM poi WHERE id = 'q2'") == .null)
    }

    /// A spreadsheet from before 2010 says 崇文区 110103: the POI lands in 东城区 110101, which
    /// took it over (Sources/GazetteerCore/Codes/former_names.tsv).
    @Test func formerAdcodeIsReadAsTodays() throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries)])
        try fixture.run([fixture.write("p.csv", "id,name,lng,lat,adcode\nc1,崇文门菜市场,116.417,39.896,110103\n")])
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT adcode FROM poi WHERE id = 'c1'") == .integer(110101))
    }

    /// Big POI files get a packed R*Tree written directly; it must be a valid R*Tree that
    /// answers exactly as one grown row by row.
    @Test func bulkBuiltRTreeIsValidAndAnswersTheSame() throws {
        var text = "id,name,typecode,lng,lat\n"
        var rng = SystemRandomNumberGenerator()
        for i in 0..<5_000 {
            let lng = 120.0 + Double.random(in: 0..<0.4, using: &rng), lat = 30.1 + Double.random(in: 0..<0.3, using: &rng)
            text += "b\(i),店\(i),\(["050100", "141201", "160100"][i % 3]),\(lng),\(lat)\n"
        }
        let regions = fixture.write("regions.csv", Fixture.regions)
        let pois = fixture.write("many.csv", text)
        try fixture.run([regions, pois]) { $0.bulkIndexBytes = 0 }
        let rowByRow = Fixture()
        var options = ImportOptions()
        options.bulkIndexBytes = .max
        _ = try rowByRow.importer().importFiles([regions, pois], options: options)

        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
        #expect(try db.scalar("SELECT count(*) FROM poi_rtree") == .integer(5_000))
        #expect(try db.scalar("SELECT count(*) FROM poi_rtree WHERE typecode = 141201") == .integer(1_667))
        let bulk = try Repository(path: fixture.database), plain = try Repository(path: rowByRow.database)
        for (lng, lat) in [(120.2, 30.25), (120.05, 30.12), (120.39, 30.39), (121.0, 31.0)] {
            var o = NearbyOptions()
            o.radius = 5_000
            o.limit = 100
            o.countAll = true
            let a = try bulk.nearby(Coordinate(longitude: lng, latitude: lat), options: o)
            let b = try plain.nearby(Coordinate(longitude: lng, latitude: lat), options: o)
            #expect(a.pois.map(\.poi.id) == b.pois.map(\.poi.id))
            #expect(a.count == b.count)
            o.types = ["141201"]
            #expect(try bulk.nearby(Coordinate(longitude: lng, latitude: lat), options: o).pois.map(\.poi.id)
                    == (try plain.nearby(Coordinate(longitude: lng, latitude: lat), options: o).pois.map(\.poi.id)))
        }
        // Later row-by-row changes keep the packed tree valid.
        try fixture.run([fixture.write("one.csv", "id,name,lng,lat\nb1,改,120.3,30.3\nextra,新,120.31,30.31\n")])
        #expect(try db.scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
        #expect(try db.scalar("SELECT count(*) FROM poi_rtree") == .integer(5_001))
    }

    /// A bulk import inserts its new rows many to a statement. Whatever the file holds (ids
    /// already there, changed or not; an id twice; bad rows between good ones; more rows than
    /// a batch), it writes what the row-by-row import writes, under the same rowids.
    @Test func bulkImportWritesWhatRowByRowWrites() throws {
        let regions = fixture.write("regions.csv", Fixture.regions)
        // Ids already there in two stretches of the file, every other one unchanged; between
        // and after them, stretches of new ids only, with a bad row and an id twice.
        let existing = { (i: Int) in i % 7 == 0 && (i < 100 || (500..<600).contains(i)) }
        let unchanged = { (i: Int) in existing(i) && i % 14 == 0 }
        var before = "id,name,typecode,lng,lat,adcode\n"
        for i in 0..<700 where existing(i) { before += "g\(i),旧店\(i),050100,120.1,30.2,330106\n" }
        var text = "id,name,typecode,lng,lat,adcode\n"
        for i in 0..<700 {
            if unchanged(i) {
                text += "g\(i),旧店\(i),050100,120.1,30.2,330106\n"
            } else {
                text += "g\(i),新店\(i),\(i % 3 == 0 ? "" : "141201"),\(120.0 + Double(i) / 2_000),30.2,\(i == 333 ? "999999" : "330106")\n"
            }
            if i == 400 { text += "g390,又一个,050100,120.2,30.2,330106\n" }  // g390 is new in this file
        }
        let base = fixture.write("before.csv", before), pois = fixture.write("pois.csv", text)
        let plain = Fixture()
        var summaries: [ImportSummary] = [], insertedTogether: [Int] = []
        for (f, bytes) in [(fixture, 0), (plain, Int.max)] {
            try f.run([regions, base])
            var options = ImportOptions()
            options.bulkIndexBytes = bytes
            options.skipInvalid = true
            options.rejectsPath = f.directory.appendingPathComponent("rejects.csv").path
            let importer = try f.importer()
            summaries.append(try importer.importFiles([pois], options: options))
            insertedTogether.append(importer.lastRowsInsertedTogether)
        }
        let (bulk, rowByRow) = (summaries[0], summaries[1])
        let (old, kept) = ((0..<700).filter(existing).count, (0..<700).filter(unchanged).count)
        #expect(bulk.pois.inserted == 700 - old - 1 && bulk.pois.updated == old - kept && bulk.pois.unchanged == kept && bulk.rejected == 2)
        #expect(bulk.pois.inserted == rowByRow.pois.inserted && bulk.pois.updated == rowByRow.pois.updated)
        #expect(bulk.pois.unchanged == rowByRow.pois.unchanged && bulk.rejected == rowByRow.rejected)
        let rejects = try [fixture, plain].map { try String(contentsOfFile: $0.directory.appendingPathComponent("rejects.csv").path, encoding: .utf8) }
        #expect(rejects[0] == rejects[1] && rejects[0].contains("999999") && rejects[0].contains("又一个"))
        func rows(_ f: Fixture, _ sql: String) throws -> [[SQLiteValue]] {
            let db = try Connection(path: f.database, mode: .readOnly)
            return try withExtendedLifetime(db) { try db.cachedStatement(sql).rows { $0.values(12) } }
        }
        let table = "SELECT rowid, * FROM poi ORDER BY rowid"
        #expect(try rows(fixture, table) == (try rows(plain, table)))
        #expect(try rows(fixture, table).count == 699)
        #expect(insertedTogether[0] >= 128 && insertedTogether[1] == 0)
        for word in ["新店", "旧店", "店"] {
            let hits = "SELECT rowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM poi_fts WHERE poi_fts MATCH '\(word.count == 1 ? "chars" : "grams"): \(word)' ORDER BY rowid"
            #expect(try rows(fixture, hits) == (try rows(plain, hits)), "\(word)")
        }
        #expect(try rows(fixture, "SELECT rowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM poi_fts WHERE poi_fts MATCH 'grams: 新店'").count == 700 - kept - 1)
        let tree = "SELECT id, lng, lat, typecode, 0, 0, 0, 0, 0, 0, 0, 0 FROM poi_rtree ORDER BY id"
        #expect(try rows(fixture, tree) == (try rows(plain, tree)))
    }

    /// Rows inserted many to a statement give the same tables, search index included, as the
    /// same bulk import one row to a statement: whether the search index is built aside or on
    /// the import's own connection (where a statement savepoint made FTS5 write a segment per
    /// group), with ids already there cutting groups short.
    @Test func rowsInsertedTogetherGiveTheSameTables() throws {
        let regions = fixture.write("regions.csv", Fixture.regions)
        var before = "id,name,typecode,lng,lat,adcode\n"
        for i in stride(from: 0, to: 900, by: 97) { before += "t\(i),旧店\(i),050100,120.1,30.2,330106\n" }
        var text = "id,name,typecode,lng,lat,adcode\n"
        for i in 0..<900 { text += "t\(i),新店\(i) 分店,141201,\(120.0 + Double(i) / 3_000),30.2,330106\n" }
        let base = fixture.write("before.csv", before), pois = fixture.write("pois.csv", text)
        func tables(_ f: Fixture) throws -> [[[SQLiteValue]]] {
            let db = try Connection(path: f.database, mode: .readOnly)
            return try withExtendedLifetime(db) {
                try [("poi", 11), ("poi_fts_data", 2), ("poi_fts_idx", 3), ("poi_rtree_rowid", 5), ("poi_rtree_node", 2), ("category", 2)].map { table, columns in
                    try db.cachedStatement("SELECT * FROM \(table) ORDER BY 1, 2").rows { $0.values(Int32(columns)) }
                }
            }
        }
        for aside in [ImportOptions.WhenItPays.never, .always] {
            var results: [[[[SQLiteValue]]]] = [], together: [Int] = []
            for perInsert in [64, 1] {
                let f = Fixture()
                try f.run([regions, base])
                var options = ImportOptions()
                (options.bulkIndexBytes, options.searchIndexAside, options.rowsPerInsert) = (0, aside, perInsert)
                let importer = try f.importer()
                let summary = try importer.importFiles([pois], options: options)
                #expect(summary.pois.inserted == 890 && summary.pois.updated == 10)
                together.append(importer.lastRowsInsertedTogether)
                results.append(try tables(f))
            }
            #expect(together[0] > 400 && together[1] == 0, "\(aside) \(together)")
            #expect(results[0] == results[1], "\(aside)")
        }
    }

    /// A table whose highest rowid is near the largest there is: SQLite then picks rowids at
    /// random, and the import still lands whole (it crashed counting rowids for the side index).
    @Test func bulkImportNearTheLastRowid() throws {
        let regions = fixture.write("regions.csv", Fixture.regions)
        try fixture.run([regions])
        try Connection(path: fixture.database, mode: .readWrite).execute(
            "INSERT INTO poi (rowid, id, name, lng, lat) VALUES (9223372036854775707, 'top', '顶', 120.5, 30.5)")
        var text = "id,name,lng,lat,adcode\n"
        for i in 0..<500 { text += "n\(i),远店\(i),\(120.0 + Double(i) / 3_000),30.2,330106\n" }
        let summary = try fixture.run([fixture.write("pois.csv", text)]) { $0.bulkIndexBytes = 0 }
        #expect(summary.pois.inserted == 500)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM poi") == .integer(501))
        #expect(try db.scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
        #expect(try db.scalar("SELECT count(*) FROM poi_fts WHERE poi_fts MATCH 'grams: 远店'") == .integer(500))
        #expect(try db.scalar("SELECT count(*) FROM poi_rtree") == .integer(501))
    }

    /// A tree too big to sort in memory is sorted by SQLite instead: the same tree, node for
    /// node; and ids far apart (a table with gaps) still get their `%_rowid` rows.
    @Test func bulkBuiltRTreeIsTheSameSortedEitherWay() throws {
        let regions = fixture.write("regions.csv", Fixture.regions)
        let pois = fixture.write("many.csv", Self.gridPOIs("s", untyped: 5, columns: 700, rows: 911))
        try fixture.run([regions, pois]) { $0.bulkIndexBytes = 0 }
        let streamed = Fixture()
        try streamed.run([regions, pois]) { $0.bulkIndexBytes = 0; $0.rtreeInMemoryPoints = 0 }
        #expect(try Self.treeTables(fixture.database) == (try Self.treeTables(streamed.database)))

        for inMemory in [RTreeBulkLoader.inMemoryPoints, 0] {
            let gaps = Fixture()
            try gaps.run([regions])
            try Connection(path: gaps.database, mode: .readWrite).execute("""
                INSERT INTO poi (rowid, id, name, lng, lat) VALUES (1, 'low', '低', 120.5, 30.5), (10000000, 'high', '高', 120.6, 30.6)
                """)
            try gaps.run([pois]) { $0.bulkIndexBytes = 0; $0.rtreeInMemoryPoints = inMemory }
            let db = try Connection(path: gaps.database, mode: .readOnly)
            #expect(try db.scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
            #expect(try db.scalar("""
                SELECT count(*) FROM poi p JOIN poi_rtree r ON r.id = p.rowid
                WHERE r.lng = p.lng AND r.lat = p.lat AND r.typecode IS CAST(p.typecode AS INTEGER)
                """) == .integer(3_002))
            #expect(try db.scalar("SELECT count(*) FROM poi_rtree WHERE min_lng <= 120.6 AND max_lng >= 120.6 AND min_lat <= 30.6 AND max_lat >= 30.6 AND id = 10000000") == .integer(1))
        }
    }

    /// A bulk import sorts the tree's points as it wrote them, on another thread during the
    /// index builds; when a row is updated instead (its point moves) the points are read back
    /// from the table. Both give the same tree, node for node.
    @Test func bulkBuiltRTreeIsTheSameFromKeptOrReadPoints() throws {
        let regions = fixture.write("regions.csv", Fixture.regions)
        let pois = fixture.write("many.csv", Self.gridPOIs("k", untyped: 7, columns: 613, rows: 877))
        try fixture.run([regions, pois]) { $0.bulkIndexBytes = 0 }
        let updated = Fixture()
        try updated.run([regions, updated.write("first.csv", "id,name,lng,lat\nk0,旧,121.0,31.0\n")])
        let summary = try updated.run([pois]) { $0.bulkIndexBytes = 0 }
        #expect(summary.pois.updated == 1 && summary.pois.inserted == 2_999)
        for path in [fixture.database, updated.database] {
            #expect(try Connection(path: path, mode: .readOnly).scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
        }
        #expect(try Self.treeTables(fixture.database, also: [("poi", 11)]) == (try Self.treeTables(updated.database, also: [("poi", 11)])))
    }

    /// 3,000 POIs named PREFIX0… on a grid of repeated longitudes and latitudes (so ties are
    /// broken by id), every `untyped`th without a category code.
    private static func gridPOIs(_ prefix: String, untyped: Int, columns: Int, rows: Int) -> String {
        var text = "id,name,typecode,lng,lat\n"
        for i in 0..<3_000 {
            text += "\(prefix)\(i),店\(i),\(i % untyped == 0 ? "" : "050100"),\(120.0 + Double(i % columns) / 1_000),\(30.1 + Double(i % rows) / 3_000)\n"
        }
        return text
    }

    /// The POI R*Tree's shadow tables, and the `also` tables (name, column count), row by row.
    private static func treeTables(_ path: String, also: [(String, Int)] = []) throws -> [[[SQLiteValue]]] {
        let db = try Connection(path: path, mode: .readOnly)
        return try (also + [("poi_rtree_node", 2), ("poi_rtree_parent", 2), ("poi_rtree_rowid", 5)]).map { table, columns in
            try db.cachedStatement("SELECT * FROM \(table) ORDER BY 1").rows { $0.values(Int32(columns)) }
        }
    }

    @Test func replaceReplacesTheDataset() throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("pois.csv", Fixture.pois)])
        let only = """
            code,level,name
            650000,province,新疆维吾尔自治区

            """
        let summary = try fixture.run([fixture.write("xj.csv", only)]) { $0.replace = true }
        #expect(summary.regions.inserted == 1)
        let info = try Repository(path: fixture.database).info()
        #expect(info.regionCounts["province"] == 1 && info.regionCounts["town"] == 0)
        #expect(info.poiCount == 0)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM region_fts WHERE region_fts MATCH 'chars : \"浙\"'") == .integer(0))
        #expect(try db.scalar("SELECT count(*) FROM region_fts WHERE region_fts MATCH 'chars : \"疆\"'") == .integer(1))
    }

    @Test func badRowLateInFileLeavesDatabaseAsItWas() throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("pois.csv", Fixture.pois)])
        let before = try fixture.snapshot()
        var big = "id,name,lng,lat,adcode\n"
        for i in 0..<5000 { big += "n\(i),新店\(i),120.1\(i % 10),30.2,330106\n" }
        big += "bad,坏点,120.1,300.2,330106\n"
        let error = #expect(throws: ImportFailure.self) { try fixture.run([fixture.write("late.csv", big)]) }
        #expect(error?.errors.first?.line == 5002)
        #expect(error?.errors.first?.column == "lat")
        #expect(try fixture.snapshot() == before)
    }

    /// POI files are read on a second thread, rows ahead of the writer: a file that cannot be
    /// read on past a line far in still fails at that line, and an import that gives up early
    /// (too many bad rows) stops the reader instead of waiting on it; neither changes anything.
    @Test func bigPOIFileFailsAtItsLineOrGivesUpEarly() throws {
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("pois.csv", Fixture.pois)])
        let before = try fixture.snapshot()
        var good = "id,name,lng,lat,adcode\n"
        for i in 0..<20_000 { good += "n\(i),新店\(i),120.1\(i % 10),30.2,330106\n" }
        let unreadable = good + "x,\"never closed,120.1,30.2,330106\n"
        let error = #expect(throws: ImportError.self) { try fixture.run([fixture.write("unreadable.csv", unreadable)]) }
        #expect(error?.line == 20_002)
        #expect(error?.description.contains("never closed") == true, "\(String(describing: error))")
        #expect(try fixture.snapshot() == before)

        var bad = "id,name,lng,lat,adcode\n"
        for i in 0..<20_000 { bad += "b\(i),坏点\(i),120.1,300.2,330106\n" }
        let failure = #expect(throws: ImportFailure.self) { try fixture.run([fixture.write("bad.csv", bad)]) }
        #expect(failure?.errors.first?.line == 2)
        #expect(failure?.errors.first?.column == "lat")
        #expect(try fixture.snapshot() == before)
    }

    @Test func skipInvalidImportsGoodRowsAndWritesRejects() throws {
        let rejects = fixture.directory.appendingPathComponent("rejects.csv").path
        let text = Fixture.pois + "p4,,,,,,120.1,30.2,,\np5,坏坐标,,,,,120.1,95,,\np1,重复,,,,,120.1,30.2,,\n"
        let summary = try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("pois.csv", text)]) {
            $0.skipInvalid = true
            $0.rejectsPath = rejects
        }
        #expect(summary.pois.inserted == 3)
        #expect(summary.rejected == 3)
        #expect(summary.rejectsPath == rejects)
        let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains(",5,name,"))
        #expect(lines[2].contains(",6,lat,"))
        #expect(lines[3].contains(",7,id,") && lines[3].contains("duplicate"))
    }

    @Test func encodingsLineEndsAndQuoting() throws {
        // BOM + CRLF + a quoted field holding a comma, a doubled quote and a newline.
        let crlf = "\u{FEFF}code,level,name,short_name\r\n330000,province,\"浙江省\",\"浙\"\"江,\r\n省\"\r\n"
        try fixture.run([fixture.write("bom.csv", crlf)])
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(try db.scalar("SELECT short_name FROM region WHERE code = 330000") == .text("浙\"江,\r\n省"))

        // GBK bytes: refused by default with a hint, imported with the encoding named.
        var gbk = Data("code,level,name\n110000,province,".utf8)
        gbk.append(contentsOf: [0xB1, 0xB1, 0xBE, 0xA9, 0xCA, 0xD0]) // 北京市 in GBK
        gbk.append(contentsOf: Array("\n".utf8))
        let path = fixture.write("gbk.csv", gbk)
        let refused = #expect(throws: ImportError.self) { try fixture.run([path]) }
        #expect(refused?.line == 2)
        #expect(refused?.description.contains("GB18030") == true)
        #expect(refused?.description.contains("--") == false, "the library names no CLI flag: \(String(describing: refused))")
        try fixture.run([path]) { $0.encoding = .gb18030 }
        #expect(try db.scalar("SELECT name FROM region WHERE code = 110000") == .text("北京市"))
    }

    /// Imports one file and returns the errors it was refused with.
    func errors(_ text: String, name: String = "in.csv", withRegions: Bool = true) throws -> [ImportError] {
        var files = [fixture.write(name, text)]
        if withRegions { files.insert(fixture.write("base-regions.csv", Fixture.regions), at: 0) }
        do {
            try fixture.run(files)
            return []
        } catch let failure as ImportFailure {
            return failure.errors
        } catch let error as ImportError {
            return [error]
        }
    }

    @Test func everyValidationErrorNamesFileLineAndColumn() throws {
        typealias Case = (text: String, line: Int?, column: String?, needle: String)
        let cases: [Case] = [
            ("id,name,lng,lat\nx,,120,30\n", 2, "name", "required"),
            ("code,level,name,parent\n33010,district,某区,330100\n", 2, "code", "6-digit"),
            ("code,level,name,parent\n330107,district,某区,330106\n", 2, "parent", "cannot sit under"),
            ("code,level,name,parent\n330107,district,某区,339900\n", 2, "parent", "neither in the imported files"),
            ("code,level,name,parent\n330200,city,宁波市,330100\n", 2, "parent", "cannot sit under"),
            ("code,level,name,parent\n330107,town,某镇,330106\n", 2, "code", "9 or 12-digit"),
            ("code,level,name\n330000,planet,某\n", 2, "level", "one of province"),
            ("id,name,lng,lat\nx,某,190,30\n", 2, "lng", "out of range"),
            ("id,name,lng,lat\nx,某,39.9,116.4\n", 2, "lat", "swapped"),
            ("id,name,lng,lat\nx,某,abc,30\n", 2, "lng", "decimal number"),
            ("id,name,lng,lat\nx,某,120,30\nx,某,120,30\n", 3, "id", "duplicate id x"),
            ("code,level,name\n330000,province,浙江省\n", 2, "code", "duplicate id 330000"),
            ("code,geometry\n330106,\"POLYGON((120 30,121 30,121 31,120 31))\"\n", 2, "geometry", "close"),
            ("code,geometry\n330106,POLYGON EMPTY\n", 2, "geometry", "empty"),
            ("code,geometry\n999999,\"POLYGON((120 30,121 30,121 31,120 30))\"\n", 2, "code", "no region has code 999999"),
            ("id,name,lng,lat,adcode\nx,某,120,30,330199\n", 2, "adcode", "no region has adcode"),
            ("id,name,lng,lat,colour\nx,某,120,30,red\n", 1, nil, "unknown column 'colour'"),
            ("id,name,lng,lat\nx,某,120\n", 2, nil, "3 fields where the header has 4"),
            ("id,name,lng,lat\nx,\"某,120,30\n", 2, nil, "never closed"),
            ("what,ever\n1,2\n", 1, nil, "cannot tell what this file holds"),
            ("", nil, nil, "empty"),
            ("id,name,lng,lat\nx,a\u{0}b,120,30\n", 2, nil, "NUL"),
        ]
        for c in cases {
            let found = try errors(c.text, name: "case.csv")
            #expect(found.count >= 1, "accepted: \(c.text)")
            guard let first = found.first else { continue }
            #expect(first.file.hasSuffix("case.csv") || first.file.hasSuffix("base-regions.csv"), "\(first)")
            #expect(first.line == c.line, "\(c.text): \(first)")
            #expect(first.column == c.column, "\(c.text): \(first)")
            #expect(first.description.contains(c.needle), "\(c.text): \(first)")
        }
    }

    @Test func severalErrorsAreListedTogether() throws {
        let text = "id,name,lng,lat\na,,120,30\nb,某,120,95\nc,某,500,30\n"
        let found = try errors(text)
        #expect(found.map(\.line) == [2, 3, 4])
    }
}

/// The reading thread's own checks stand in for the standard library's slower generic ones:
/// they must accept and give exactly what those did.
@Suite(.tags(.fast)) struct ImportFieldParsingTests {
    /// Every byte string the UTF-8 check is asked about: the edges of each encoded length, the
    /// ill-formed ones beside them, and random bytes biased towards lead and continuation bytes.
    @Test func utf8CheckIsTheStandardLibrarys() {
        var cases: [[UInt8]] = [
            [], [0x41], [0x7F], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF], [0xC2],
            [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF], [0xE4, 0xB8], [0xE4, 0xB8, 0x41],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xF0, 0x9F, 0x98, 0x41], [0xFE], [0xFF],
            Array("交通银行ATM(马林北路),🇨🇳 𠀀".utf8),
        ]
        var rng = SystemRandomNumberGenerator()
        let bytes: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<20_000 {
            cases.append((0..<Int.random(in: 1...40, using: &rng)).map { _ in bytes.randomElement(using: &rng)! })
        }
        for c in cases {
            let ours = c.withUnsafeBufferPointer { CSVReader.text($0) }
            #expect(ours == String(validating: c, as: UTF8.self), "bytes \(c)")
        }
    }

    /// A coordinate read without the parser is the Double the parser gives, to the bit.
    @Test func plainDecimalIsTheParsersDouble() {
        var texts = ["0", "-0", "116.397128", "-116.397128", "39.9", "180", "180.000000000001", "123456789012345",
                     "1234567890123456", "0.000000000000001", "00012.50", "1.", ".5", "-", "", "1e5", "+1", "1.2.3"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...17, using: &rng), point = Int.random(in: 0...digits, using: &rng)
            var t = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            if point < digits { t.insert(".", at: t.index(t.startIndex, offsetBy: point)) }
            texts.append(Bool.random(using: &rng) ? "-" + t : t)
        }
        for t in texts {
            let expected = Coordinate.plainDecimal(t[...])
            let ours = Coordinate.plainDecimal(t)
            #expect(ours?.bitPattern == expected?.bitPattern, "text \(t)")
        }
    }
}
