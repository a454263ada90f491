import Foundation
import Testing
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// The geocoder's name table is stored by the importer (`StoredNameTable`): it must be the table
/// the geocoder would build, read only while current and made by these rules, and the geocoder
/// must answer the same with it, without it (a database imported by an older binary), with a
/// stale one and with a damaged one.
@Suite(.tags(.seed), .skippedInFastRuns) struct StoredNameTableTests {
    /// Addresses of every kind the suites hold: full, short, former names, zones, noise.
    static let addresses: [String] = {
        let suites = ["akebe-address-parse", "jionlp", "zh-address-parse-java", "bitlap-geocoding", "nca-test"]
        return suites.flatMap { ((try? GeocodeSuite($0))?.cases ?? []).prefix(300).map(\.address) }
            + ["襄樊市樊城区", "下城区武林广场", "成都高新区天府大道", "浦东新村", "察右中旗"]
    }()

    func answers(_ path: String) throws -> [String] {
        try Repository(path: path).geocode(Self.addresses).map { "\($0)" }
    }

    /// The stored names and rows are current, and the ones the geocoder would build now.
    func expectStoredTableIsBuilt(_ path: String) throws {
        let db = try Connection(path: path, mode: .readOnly)
        try db.read {
            let stored = try #require(StoredNameTable.tables(db))
            func encoding(_ names: NameTable, _ rows: RegionRows) -> [UInt8] {
                var w = CellsBlobWriter(format: 0)
                names.encode(into: &w)
                rows.encode(into: &w)
                return w.bytes
            }
            #expect(encoding(stored.names, stored.rows) == encoding(try NameTable(loading: db), try RegionRows(loading: db)))
        }
    }

    @Test func theSeedsImportStoresTheTableTheGeocoderWouldBuild() throws {
        try expectStoredTableIsBuilt(SeedDatabase.path)
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        #expect(try db.scalar("SELECT group_concat(kind) FROM geocode_names") == .text(StoredNameTable.kind))
    }

    /// Every region's stored row is the row its query reads; a code of no region has none.
    @Test func everyStoredRowIsTheRegionsRow() throws {
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        try db.read {
            let rows = try #require(StoredNameTable.tables(db)).rows
            let all = try db.makeStatement("SELECT \(RegionRow.columns) FROM region").rows { RegionRow($0) }
            #expect(all.count > 40_000)
            #expect(all.filter { rows.row($0.code) != $0 }.map(\.code) == [])
            // Rows with and without each optional field the seed leaves empty.
            for field in [\RegionRow.pinyin, \.citycode] { #expect(all.contains { $0[keyPath: field] == nil }) }
            #expect(all.contains { $0.center == nil } && all.contains { $0.boundingBox == nil } && all.contains { $0.hasBoundary })
            #expect(rows.row(330_199) == nil && rows.row(0) == nil && rows.row(.max) == nil)
            // Read alone, the names stepped over, as a large reverse batch reads them.
            let alone = try #require(StoredNameTable.rows(db))
            #expect(all.filter { alone.row($0.code) != $0 }.map(\.code) == [])
        }
    }

    /// The area stored with each row is its boundary's area as a batch read it from the
    /// boundary (a district's towns' reach), bit for bit; a region without one has none.
    @Test func everyStoredAreaIsTheBoundarysArea() throws {
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        try db.read {
            let rows = try #require(StoredNameTable.rows(db))
            let cache = RegionCache()
            let all = try db.makeStatement("SELECT code, boundary IS NOT NULL FROM region").rows { ($0.int64(0), $0.int(1) != 0) }
            var areas = 0
            for (code, hasBoundary) in all {
                if hasBoundary {
                    let area = try #require(try cache.boxedShape(code, db)).area
                    #expect(rows.area(code) == .area(area), "region \(code)")
                    areas += 1
                } else {
                    #expect(rows.area(code) == .noBoundary, "region \(code)")
                }
            }
            #expect(areas > 3_000)
            #expect(rows.area(330_199) == .unknown)
        }
    }

    @Test func theGeocoderAnswersTheSameWithAStoredStaleDamagedOrMissingTable() throws {
        let fixture = Fixture()
        let path = try StoredBatchCellsTests().seedCopy(fixture)
        let stored = try answers(path)
        #expect(stored.count == Self.addresses.count && Self.addresses.count > 400)
        let db = try Connection(path: path, mode: .readWrite)
        /// - Parameter rowsToo: the rows stored after the names are not read alone either
        ///   (false: the names are damaged and the rows whole).
        func expectNotRead(rowsToo: Bool = true) throws {
            try db.read {
                #expect(StoredNameTable.tables(db) == nil)
                #expect((StoredNameTable.rows(db) == nil) == rowsToo)
            }
            #expect(try answers(path) == stored)
        }
        // Another binary's rules.
        try db.execute("UPDATE geocode_names SET kind = 'names 0, tables 0'")
        try expectNotRead()
        // Cut short; then a chain that points forward (a loop, were it read).
        try db.execute("UPDATE geocode_names SET kind = '\(StoredNameTable.kind)', data = substr(data, 1, 100000)")
        try expectNotRead()
        try db.execute("DROP TABLE geocode_names")
        try fixture.run([fixture.write("p.csv", "id,name,lng,lat\nnames-1,新店,120.13,30.26\n")])
        try expectStoredTableIsBuilt(path)
        let data = try #require(try db.makeStatement("SELECT data FROM geocode_names").first([]) { $0.blob(0) })
        // A slot table far larger than the keys need (2^26 slots, 1.5 GB to fill).
        var oversized = data
        withUnsafeBytes(of: Int64(1 << 26)) { oversized.replaceSubrange(4..<12, with: $0) }
        try db.makeStatement("UPDATE geocode_names SET data = ?").run([.blob(oversized)])
        try expectNotRead(rowsToo: false)
        try db.makeStatement("UPDATE geocode_names SET data = ?").run([.blob(Self.forwardLinked(data))])
        try expectNotRead(rowsToo: false)
        // An area no boundary has (the last row's, the blob's last 8 bytes): the rows are refused.
        var negative = data
        withUnsafeBytes(of: (-1.0).bitPattern) { negative.replaceSubrange((negative.count - 8)..<negative.count, with: $0) }
        try db.makeStatement("UPDATE geocode_names SET data = ?").run([.blob(negative)])
        try expectNotRead()
        // Another writer changed the data (an older binary raises the generation, nothing more).
        try fixture.run([fixture.write("p2.csv", "id,name,lng,lat\nnames-2,又一店,120.14,30.27\n")])
        try db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'data_generation'")
        try expectNotRead()
        // Imported by an older binary: no table at all.
        try db.execute("DROP TABLE geocode_names")
        try expectNotRead()
    }

    /// `data` (`NameTable.encode`) with its first entry linked to its last: a loop, were it read.
    static func forwardLinked(_ data: [UInt8]) -> [UInt8] {
        var data = data, at = 4 + 8
        func count() -> Int { data[at..<at + 8].withUnsafeBytes { Int($0.loadUnaligned(as: Int64.self)) } }
        // Past the slots' keys, full, short and flags, and the entries' codes, starts and ends.
        for size in [8, 4, 4, 1, 8, 4, 4] { at += 8 + count() * size }
        let entries = count()
        withUnsafeBytes(of: Int32(entries - 1)) { data.replaceSubrange(at + 8..<at + 12, with: $0) }
        return data
    }

    @Test func anImportKeepsTheTableCurrentInItsOwnTransaction() throws {
        let fixture = Fixture()
        let path = try StoredBatchCellsTests().seedCopy(fixture)
        func row() throws -> (generation: Int64, data: [UInt8])? {
            try Connection(path: path, mode: .readOnly).makeStatement("SELECT generation, data FROM geocode_names WHERE kind = ?")
                .first([.text(StoredNameTable.kind)]) { ($0.int64(0), $0.blob(1)) }
        }
        let before = try #require(try row())

        // POIs only: re-tagged, not rebuilt.
        try fixture.run([fixture.write("p.csv", "id,name,lng,lat\nnames-3,新店,120.13,30.26\n")])
        let after = try #require(try row())
        #expect(after.generation == before.generation + 1 && after.data == before.data)

        // A failed import leaves it exactly as it was.
        #expect(throws: (any Error).self) { try fixture.run([fixture.write("bad.csv", "id,name,lng,lat\nnames-4,坏,abc,30.26\n")]) }
        let unchanged = try #require(try row())
        #expect(unchanged.generation == after.generation && unchanged.data == after.data)

        // Regions: rebuilt, and a name new to the data is read from the stored table.
        try fixture.run([fixture.write("regions.csv", """
            code,parent,level,name,short_name,pinyin,lng,lat,center_approx
            330106999000,330106,town,测试名表街道,测试名表,ce shi,120.10,30.27,0
            """)])
        let rebuilt = try #require(try row())
        #expect(rebuilt.data != after.data)
        try expectStoredTableIsBuilt(path)
        let found = try Repository(path: path).geocode("杭州市西湖区测试名表街道")
        #expect(found?.townCode9 == "330106999")
    }
}
