import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite struct ReliabilityCheckTests {
    @Test(.tags(.fast)) func cleanFixturePasses() throws {
        let fixture = try cleanFixture()
        let report = try Repository(path: fixture.database).check()
        #expect(report.passed, "\(report.failed)")
        #expect(report.checks.map(\.name) == IntegrityReport.CheckName.allCases)
        #expect(report.checks.allSatisfy { $0.status == .ok }, "\(report.checks.filter { $0.status != .ok })")
        // The check changes nothing.
        let before = try fixture.snapshot()
        _ = try Repository(path: fixture.database).check()
        #expect(try fixture.snapshot() == before)
    }

    /// Damage done behind the library's back, and the check that must name it.
    @Test(.tags(.fast), arguments: [
        ("DELETE FROM region_rtree WHERE id = 330106", IntegrityReport.CheckName.regionBoxes, "330106"),
        ("DELETE FROM poi_rtree WHERE id = 1", .poiPoints, "p1"),
        ("UPDATE poi SET lat = lat + 0.01 WHERE id = 'p2'", .poiPoints, "p2"),
        ("PRAGMA foreign_keys = OFF; UPDATE region SET parent = 990000 WHERE code = 110101", .regionParents, "110101"),
        ("PRAGMA foreign_keys = OFF; UPDATE region SET parent = 990000 WHERE code = 110101", .foreignKeys, "region"),
        ("UPDATE region SET parent = 110000 WHERE code = 330106", .regionCodes, "330106"),
        ("UPDATE region SET boundary = X'DEADBEEF0000000000' WHERE code = 330106", .boundaries, "330106"),
        // A contentless FTS5 'delete' given partly wrong tokens: FTS5's own check cannot see it.
        ("INSERT INTO region_fts (region_fts, rowid, grams, chars, pinyin) VALUES ('delete', 110101, '东城', 'x', 'y')", .regionFTSTokens, "110101"),
        ("INSERT INTO poi_fts (poi_fts, rowid, grams, chars) VALUES ('delete', 3, '故宫', 'x')", .poiFTSTokens, "3"),
        ("UPDATE region_fts_data SET block = zeroblob(length(block)) WHERE id > 10", .regionFTS, "malformed"),
        ("UPDATE poi_rtree_rowid SET nodeno = 99", .poiRTree, "rowid"),
        ("PRAGMA foreign_keys = OFF; UPDATE poi SET adcode = 999999 WHERE id = 'p3'", .poiRegions, "p3"),
        ("DELETE FROM meta WHERE key = 'coordinate_system'", .meta, "coordinate_system"),
    ])
    func damageIsNamed(sql: String, name: IntegrityReport.CheckName, offender: String) throws {
        let fixture = try cleanFixture()
        try Connection(path: fixture.database, mode: .readWrite).execute(sql)
        let report = try Repository(path: fixture.database).check()
        #expect(!report.passed)
        let check = try #require(report[name])
        #expect(check.status == .failed, "\(name) did not fail after \(sql): \(check)")
        let text = ([check.summary] + check.details).joined(separator: "\n")
        #expect(text.contains(offender), "\(name) does not name \(offender): \(text)")
        #expect(check.details.count <= IntegrityReport.detailLimit)
    }

    @Test(.tags(.cli), .skippedInFastRuns) func cliCheckReportsAndExits() throws {
        let fixture = try cleanFixture()
        let ok = try CLI.run(["check", "--db", fixture.database])
        #expect(ok.status == 0, "\(ok)")
        #expect(ok.stdout.contains("all 15 checks passed"), "\(ok)")
        try Connection(path: fixture.database, mode: .readWrite).execute("DELETE FROM region_rtree WHERE id = 330106")
        let bad = try CLI.run(["check", "--db", fixture.database])
        #expect(bad.status == 1, "\(bad)")
        #expect(bad.stdout.contains("region_boxes") && bad.stdout.contains("FAILED") && bad.stdout.contains("330106"), "\(bad)")
        #expect(bad.stdout.contains("1 check failed"), "\(bad)")
        let json = try CLI.run(["check", "--json", "--db", fixture.database])
        #expect(json.status == 1, "\(json)")
        let checks = try #require(try json.json()["checks"] as? [[String: Any]])
        #expect(checks.first { $0["name"] as? String == "region_boxes" }?["status"] as? String == "failed", "\(json)")
    }
}
