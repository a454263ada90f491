import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct SchemaTests {
    let file = TemporaryDatabase()

    @Test func schemaAppliedToFreshDatabase() throws {
        try Repository.create(at: file.path)
        let db = try Connection(path: file.path, mode: .readOnly)
        #expect(try db.scalar("PRAGMA user_version") == .integer(Int64(Schema.version)))
        let tables = Set(try db.cachedStatement("SELECT name FROM sqlite_schema WHERE type = 'table'").rows { $0.text(0) })
        for name in ["meta", "region", "poi", "region_rtree", "poi_rtree", "region_fts", "poi_fts"] {
            #expect(tables.contains(name), "missing table \(name)")
        }
        #expect(try db.scalar("SELECT value FROM meta WHERE key = 'coordinate_system'") == .text("GCJ-02"))
        #expect(try db.scalar("SELECT value FROM meta WHERE key = 'schema_version'") == .text("\(Schema.version)"))
    }

    /// schema.sql's page size reaches a new file (set too late, it would silently be SQLite's
    /// 4 KiB), and a database made with another keeps its own and opens as before.
    @Test func newFileGetsTheSchemasPageSize() throws {
        #expect(Schema.pageSize == 16_384)
        try Repository.create(at: file.path)
        #expect(try Connection(path: file.path, mode: .readOnly).scalar("PRAGMA page_size") == .integer(Int64(Schema.pageSize)))

        let older = TemporaryDatabase()
        try Connection(path: older.path, mode: .readWrite, pageSize: 4096).close()
        try Repository.create(at: older.path)
        _ = try Repository(path: older.path)
        #expect(try Connection(path: older.path, mode: .readOnly).scalar("PRAGMA page_size") == .integer(4096))
    }

    @Test func rtreeAndFTSAreUsable() throws {
        try Repository.create(at: file.path)
        let db = try Connection(path: file.path, mode: .readWrite)
        try db.cachedStatement("INSERT INTO poi_rtree (id, min_lng, max_lng, min_lat, max_lat, lng, lat) VALUES (?, ?, ?, ?, ?, ?, ?)")
            .run([1, 116.39, 116.39, 39.9, 39.9, 116.39, 39.9])
        let hits = try db.cachedStatement("SELECT id, lng FROM poi_rtree WHERE min_lng <= ? AND max_lng >= ? AND min_lat <= ? AND max_lat >= ?")
            .rows([116.5, 116.3, 40.0, 39.8]) { ($0.int(0), $0.double(1)) }
        #expect(hits.count == 1 && hits[0].0 == 1 && hits[0].1 == 116.39)
        try db.cachedStatement("INSERT INTO poi_fts (rowid, grams, chars) VALUES (?, ?, ?)")
            .run([7, "北京 京大 大学", "北 京 大 学"])
        let match = try db.cachedStatement("SELECT rowid FROM poi_fts WHERE poi_fts MATCH ?")
        #expect(try match.rows(["grams : \"京大\""]) { $0.int(0) } == [7])
        #expect(try match.rows(["chars : \"学\""]) { $0.int(0) } == [7])
        #expect(try match.rows(["grams : \"北京 京大\""]) { $0.int(0) } == [7])
        #expect(try match.rows(["grams : \"京大 北京\""]) { $0.int(0) } == [])
    }

    @Test func otherSchemaVersionIsRefused() throws {
        try Repository.create(at: file.path)
        let db = try Connection(path: file.path, mode: .readWrite)
        try db.execute("PRAGMA user_version = \(Schema.version + 1)")
        let error = #expect(throws: GazetteerError.self) { _ = try Repository(path: file.path) }
        guard case .schemaVersionMismatch(let path, let found, let expected)? = error else {
            Issue.record("expected schemaVersionMismatch, got \(String(describing: error))")
            return
        }
        #expect(path == file.path && found == Schema.version + 1 && expected == Schema.version)
        #expect(error?.description.contains("newer gazetteer") == true)
    }

    @Test func foreignFilesAreRefused() throws {
        try Data("not a database at all, just some text that is long enough".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect {
            _ = try Repository(path: file.path)
        } throws: { error in
            if case GazetteerError.notADatabase = error { return true }
            return false
        }
        let other = TemporaryDatabase()
        let db = try Connection(path: other.path, mode: .readWrite)
        try db.execute("CREATE TABLE something (x)")
        #expect {
            _ = try Repository(path: other.path)
        } throws: { error in
            if case GazetteerError.notAGazetteerDatabase = error { return true }
            return false
        }
    }

    @Test func infoOnEmptyDatabase() throws {
        try Repository.create(at: file.path)
        let info = try Repository(path: file.path).info()
        #expect(info.regionCounts == ["province": 0, "city": 0, "district": 0, "town": 0])
        #expect(info.poiCount == 0)
        #expect(info.schemaVersion == Schema.version)
        #expect(info.coordinateSystem == "GCJ-02")
        #expect(info.sqliteVersion.hasPrefix("3."))
    }
}
