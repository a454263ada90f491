import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// The region cells a large batch reads are stored by the importer (`StoredBatchCells`): they
/// must be the cells a batch would build, read only while current, and a batch must answer the
/// same with them, without them (a database imported by an older binary) and with stale ones.
/// The POI cells are not stored (a batch builds them), so a POI import only re-tags the row.
@Suite(.tags(.seed), .skippedInFastRuns) struct StoredBatchCellsTests {
    /// A copy of the imported seed in `fixture`'s folder, to change freely.
    func seedCopy(_ fixture: Fixture) throws -> String {
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        try db.execute("VACUUM INTO '\(fixture.database)'")
        return fixture.database
    }

    /// The stored cells are current, and the ones a batch would build now.
    func expectStoredCellsAreBuilt(_ db: Connection) throws {
        try db.read {
            let built = try RegionLocator(cache: RegionCache(), db: db).buildCells()
            #expect(StoredBatchCells.regionCells(db) == built)
        }
    }

    @Test func theSeedsImportStoresTheCellsABatchWouldBuild() throws {
        let repo = SeedDatabase.repository
        try repo.read { db in
            let region = try #require(StoredBatchCells.regionCells(db))
            #expect(region == (try RegionLocator(cache: RegionCache(), db: db).buildCells()))
            #expect(try db.scalar("SELECT group_concat(kind) FROM batch_cells") == .text(StoredBatchCells.region))
        }
    }

    /// The stored region cells' blob, and where its cells begin: after the format (4 bytes),
    /// the grid (40) and the answers (a count, then 8 bytes each).
    func storedCells(_ db: Connection) throws -> (blob: [UInt8], cellsStart: Int) {
        let blob = try #require(try db.makeStatement("SELECT data FROM batch_cells").first([]) { $0.blob(0) })
        let answers = 4 + 40
        let count = blob[answers..<answers + 8].withUnsafeBytes { Int($0.loadUnaligned(as: Int64.self)) }
        return (blob, answers + 8 + 8 * count)
    }

    func storeCells(_ blob: [UInt8], _ db: Connection) throws {
        try db.makeStatement("UPDATE batch_cells SET data = ?").run([.blob(blob)])
    }

    /// Cells an earlier importer stored as runs along the rows (format RCL1) are still read,
    /// as the same cells; a blob of another layout is not.
    @Test func cellsStoredAsRunsAreRead() throws {
        let fixture = Fixture()
        let path = try seedCopy(fixture)
        let db = try Connection(path: path, mode: .readWrite)
        let cells = try db.read { try #require(StoredBatchCells.regionCells(db)) }
        let (blob, cellsStart) = try storedCells(db)
        // The grid and answers as stored, then the cells as runs.
        var values: [UInt16] = [], lengths: [UInt32] = []
        cells.forEachCellRun { v, n in values.append(v); lengths.append(UInt32(n)) }
        var runs = CellsBlobWriter(format: 0)
        runs.put(values); runs.put(lengths)
        let bytes = CellsBlobWriter(format: 0x5243_4C31).bytes + blob[4..<cellsStart] + runs.bytes.dropFirst(4)
        try storeCells(bytes, db)
        try db.read { #expect(StoredBatchCells.regionCells(db) == cells) }
        var other = bytes
        other[0] = 0x33
        try storeCells(other, db)
        try db.read { #expect(StoredBatchCells.regionCells(db) == nil) }
    }

    /// Stored tiles that do not fit the grid or name no answer are refused (the batch builds the
    /// cells, and answers the same): a tile index past the tiles, a cell value past the answers.
    @Test func damagedTilesAreRefused() throws {
        let fixture = Fixture()
        let path = try seedCopy(fixture)
        let points = RegionCellsTests.boxPoints(2_000)
        let stored = try batchLines(path, points)
        let db = try Connection(path: path, mode: .readWrite)
        // The cells begin with the top table: its count, then its first entry.
        let (blob, top) = try storedCells(db)
        var pastTheTiles = blob
        withUnsafeBytes(of: UInt32(0xFFFF_FFFF)) { pastTheTiles.replaceSubrange((top + 8)..<(top + 12), with: $0) }
        var pastTheAnswers = blob
        withUnsafeBytes(of: UInt16(0xFFFE)) { pastTheAnswers.replaceSubrange((blob.count - 2)..<blob.count, with: $0) }
        for damaged in [pastTheTiles, pastTheAnswers] {
            try storeCells(damaged, db)
            try db.read { #expect(StoredBatchCells.regionCells(db) == nil) }
            #expect(try batchLines(path, points) == stored)
        }
    }

    /// The JSON lines of a batch without POIs on the database at `path`, with the cells made
    /// ready as a large batch makes them.
    func batchLines(_ path: String, _ points: [Coordinate]) throws -> [String] {
        let repo = try Repository(path: path)
        repo.prepareBatch(RegionCache.regionCellsAfter)
        return PlaceBatchTests.placedLines(repo, points, system: .gcj02, limit: 0)
    }

    @Test func aBatchAnswersTheSameWithStoredMissingOrStaleCells() throws {
        let fixture = Fixture()
        let path = try seedCopy(fixture)
        let points = RegionCellsTests.boxPoints(6_000) + (try RegionCellsTests().pointsBesideBorders()).prefix(2_000)
        let stored = try batchLines(path, points)
        #expect(stored.count == points.count)

        let db = try Connection(path: path, mode: .readWrite)
        try db.read {
            #expect(StoredBatchCells.regionCells(db) != nil)
        }

        // Another writer changed the data (an older binary raises the generation, nothing more).
        try db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'data_generation'")
        try db.read {
            #expect(StoredBatchCells.regionCells(db) == nil)
        }
        #expect(try batchLines(path, points) == stored)

        // A database imported by an older binary: no table at all.
        try db.execute("DROP TABLE batch_cells")
        try db.read { #expect(StoredBatchCells.regionCells(db) == nil) }
        #expect(try batchLines(path, points) == stored)
    }

    @Test func anImportKeepsTheCellsCurrentInItsOwnTransaction() throws {
        let fixture = Fixture()
        let path = try seedCopy(fixture)
        func rows() throws -> [String: (generation: Int64, data: [UInt8])] {
            let db = try Connection(path: path, mode: .readOnly)
            var found: [String: (Int64, [UInt8])] = [:]
            for (kind, generation, data) in try db.makeStatement("SELECT kind, generation, data FROM batch_cells")
                .rows([], { ($0.text(0), $0.int64(1), $0.blob(2)) }) { found[kind] = (generation, data) }
            return found
        }
        let before = try rows()

        let kind = StoredBatchCells.region
        #expect(Set(before.keys) == [kind])

        // POIs only: the region cells are only re-tagged, and a 'poi' row an earlier build
        // stored is deleted.
        try Connection(path: path, mode: .readWrite).execute("INSERT INTO batch_cells VALUES ('poi', 0, x'00')")
        try fixture.run([fixture.write("p.csv", "id,name,lng,lat\nstored-cells-1,新店,120.13,30.26\n")])
        let after = try rows()
        #expect(Set(after.keys) == [kind])
        #expect(after[kind]?.generation == before[kind]!.generation + 1)
        #expect(after[kind]?.data == before[kind]!.data)
        let db = try Connection(path: path, mode: .readOnly)
        try db.read { #expect(StoredBatchCells.regionCells(db) != nil) }

        // A failed import leaves them exactly as they were.
        #expect(throws: (any Error).self) { try fixture.run([fixture.write("bad.csv", "id,name,lng,lat\nstored-cells-2,坏,abc,30.26\n")]) }
        let unchanged = try rows()
        #expect(unchanged.mapValues(\.generation) == after.mapValues(\.generation))
        #expect(unchanged.mapValues(\.data) == after.mapValues(\.data))

        // A database without the table (an older binary's) gets it, current, on its next import.
        try Connection(path: path, mode: .readWrite).execute("DROP TABLE batch_cells")
        try fixture.run([fixture.write("p2.csv", "id,name,lng,lat\nstored-cells-3,又一店,120.14,30.27\n")])
        try expectStoredCellsAreBuilt(db)
    }

    /// Cells another binary built (another kind: other rules) are not read, and the next import
    /// replaces them with this binary's.
    @Test func cellsOfOtherRulesAreNotRead() throws {
        let fixture = Fixture()
        let path = try seedCopy(fixture)
        let points = RegionCellsTests.boxPoints(3_000)
        let stored = try batchLines(path, points)
        let db = try Connection(path: path, mode: .readWrite)
        try db.execute("UPDATE batch_cells SET kind = 'region cells 0, grid 0.02°, slack 60.0 m'")
        try db.read { #expect(StoredBatchCells.regionCells(db) == nil) }
        #expect(try batchLines(path, points) == stored)
        try fixture.run([fixture.write("p.csv", "id,name,lng,lat\nother-rules-1,新店,120.13,30.26\n")])
        #expect(try db.scalar("SELECT group_concat(kind) FROM batch_cells") == .text(StoredBatchCells.region))
        try expectStoredCellsAreBuilt(db)
    }

    /// Cells that cannot be built (here a district boundary that does not decode) neither fail
    /// an import that does not touch the boundaries, nor are tried again by every later one.
    @Test func cellsThatCannotBeBuiltDoNotFailAnImport() throws {
        let fixture = Fixture()
        let path = try seedCopy(fixture)
        let db = try Connection(path: path, mode: .readWrite)
        try db.execute("DROP TABLE batch_cells")  // as imported by an older binary
        try db.execute("UPDATE region SET boundary = x'00' WHERE code = 650102")  // Urumqi, far from the POIs below
        try fixture.run([fixture.write("p.csv", "id,name,lng,lat\nunbuilt-1,新店,116.40,39.91\n")])
        func row() throws -> (generation: Int64, bytes: Int64)? {
            try db.makeStatement("SELECT generation, length(data) FROM batch_cells WHERE kind = ?")
                .first([.text(StoredBatchCells.region)]) { ($0.int64(0), $0.int64(1)) }
        }
        let first = try #require(try row())
        #expect(first.bytes == 0)
        #expect(first.generation == (try RegionCache.dataGeneration(db)))
        try db.read { #expect(StoredBatchCells.regionCells(db) == nil) }
        try fixture.run([fixture.write("p2.csv", "id,name,lng,lat\nunbuilt-2,又一店,116.41,39.92\n")])
        let second = try #require(try row())
        #expect(second.bytes == 0 && second.generation == first.generation + 1)
    }

    /// Each table the importer adds to an older database is the one schema.sql makes.
    @Test(arguments: [StoredBatchCells.row, StoredNameTable.row])
    func schemaAndImporterMakeTheSameTable(_ stored: StoredDerived) throws {
        let fresh = TemporaryDatabase(), old = TemporaryDatabase()
        let made = try Connection(path: fresh.path, mode: .readWrite)
        try made.execute(Schema.sql)
        let added = try Connection(path: old.path, mode: .readWrite)
        try added.execute(stored.createTable)
        func columns(_ db: Connection) throws -> [String] {
            try db.makeStatement("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)").rows([.text(stored.table)]) { s in
                (Int32(0)..<4).map { "\(s.value($0))" }.joined(separator: "|")
            }
        }
        #expect(try columns(made).count == 3)
        #expect(try columns(made) == (try columns(added)))
    }
}
