import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `gazetteer import` killed with SIGKILL part-way (the small version of Scripts/crash_import.sh):
/// the database must hold exactly the data from before, pass SQLite's, FTS5's and the R*Tree's
/// own checks, and take the same import again.
@Suite(.tags(.cli), .skippedInFastRuns) struct CrashImportTests {
    /// Everything an import writes, table by table, in a fixed order. `exact: false` leaves out
    /// what two complete runs of one import legitimately differ in: the time stamp, statistics,
    /// and FTS5's counter of writes to its configuration (the first 4 bytes of record 10).
    static func dump(_ path: String, exact: Bool) throws -> [String] {
        let db = try Connection(path: path, mode: .readOnly)
        var lines: [String] = []
        var queries = [
            "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name",
            exact ? "SELECT * FROM meta ORDER BY key" : "SELECT * FROM meta WHERE key <> 'imported_at' ORDER BY key",
            "SELECT code, parent, level, name, short_name, pinyin, citycode, lng, lat, center_approx, min_lng, min_lat, max_lng, max_lat, hex(boundary) FROM region ORDER BY code",
            "SELECT rowid, * FROM poi ORDER BY rowid",
            "SELECT * FROM category ORDER BY typecode",
        ]
        for rtree in ["region_rtree", "poi_rtree"] {
            queries += ["SELECT * FROM \(rtree) ORDER BY id", "SELECT nodeno, hex(data) FROM \(rtree)_node ORDER BY nodeno",
                        "SELECT * FROM \(rtree)_rowid ORDER BY rowid", "SELECT * FROM \(rtree)_parent ORDER BY nodeno"]
        }
        for fts in ["region_fts", "poi_fts"] {
            queries += [exact ? "SELECT id, hex(block) FROM \(fts)_data ORDER BY id"
                              : "SELECT id, CASE WHEN id = 10 THEN hex(substr(block, 5)) ELSE hex(block) END FROM \(fts)_data ORDER BY id",
                        "SELECT * FROM \(fts)_idx ORDER BY segid, term", "SELECT * FROM \(fts)_config ORDER BY k"]
        }
        if exact, try db.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'") == .integer(1) {
            queries.append("SELECT * FROM sqlite_stat1 ORDER BY tbl, idx")
        }
        for sql in queries {
            lines.append(sql)
            lines += try db.cachedStatement(sql).rows { row in (0..<row.columnCount).map { "\(row.value($0))" }.joined(separator: "|") }
        }
        return lines
    }

    /// What is wrong with the database by its own checks; empty when it is sound.
    static func problems(_ path: String) throws -> [String] {
        let db = try Connection(path: path, mode: .readWrite)
        var found: [String] = []
        if let r = try? db.scalar("PRAGMA integrity_check"), r != .text("ok") { found.append("integrity_check: \(r)") }
        for fts in ["region_fts", "poi_fts"] {
            do { try db.execute("INSERT INTO \(fts) (\(fts)) VALUES ('integrity-check')") } catch { found.append("\(fts): \(error)") }
        }
        for rtree in ["region_rtree", "poi_rtree"] {
            let r = try db.scalar("SELECT rtreecheck('\(rtree)')")
            if r != .text("ok") { found.append("\(rtree): \(r)") }
        }
        return found
    }

    static func copyDatabase(_ from: String, to: String) throws {
        let fm = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            try? fm.removeItem(atPath: to + suffix)
            if suffix != "-shm", fm.fileExists(atPath: from + suffix) { try fm.copyItem(atPath: from + suffix, toPath: to + suffix) }
        }
    }

    /// Starts `gazetteer import --db DB CSV`; returns the process.
    static func startImport(db: String, csv: String, log: String) throws -> Process {
        guard let binary = CLI.binary else { throw CLITestError.binaryNotFound(CLI.candidates) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["import", "--db", db, csv]
        var env = ProcessInfo.processInfo.environment
        env["GAZETTEER_DB"] = nil
        env["XDG_DATA_HOME"] = CLI.sandbox
        process.environment = env
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)!
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func killedImportLeavesTheDatabaseAsItWas() throws {
        let fixture = Fixture()
        // The base: the fixture's regions, boundaries and POIs, imported in full.
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries),
                         fixture.write("pois.csv", Fixture.pois)])
        // 30,000 POIs in 西湖区 and 东城区, some updating the base's.
        var csv = "id,name,type,typecode,address,phone,lng,lat,adcode,towncode\n"
        csv.reserveCapacity(3 << 20)
        for i in 0..<30_000 {
            let (lng, lat, adcode) = i % 3 == 0 ? (116.39, 39.90, 110101) : (120.05, 30.15, 330106)
            let id = i < 3 ? "p\(i + 1)" : "k\(i)"
            csv += "\(id),测试店\(i),餐饮服务;中餐厅;中餐厅,050100,某路\(i)号,,\(lng + Double(i % 173) * 0.0003),\(lat + Double(i % 211) * 0.0003),\(adcode),\n"
        }
        let big = fixture.write("big.csv", csv)
        let base = fixture.database
        let baseExact = try Self.dump(base, exact: true)
        let baseLoose = try Self.dump(base, exact: false)
        #expect(try Self.problems(base).isEmpty)

        // A complete run: how long an import takes, and the state it leaves.
        let reference = fixture.directory.appendingPathComponent("reference.sqlite").path
        try Self.copyDatabase(base, to: reference)
        let started = Date()
        let complete = try Self.startImport(db: reference, csv: big, log: reference + ".log")
        complete.waitUntilExit()
        let duration = Date().timeIntervalSince(started)
        #expect(complete.terminationStatus == 0, "\((try? String(contentsOfFile: reference + ".log", encoding: .utf8)) ?? "")")
        let after = try Self.dump(reference, exact: false)
        #expect(after != baseLoose, "the import changed nothing; the test would prove little")

        // Kills early, midway and late (where the commit is).
        var outcomes: [String] = []
        for (k, fraction) in [0.25, 0.6, 0.9].enumerated() {
            let db = fixture.directory.appendingPathComponent("kill-\(k).sqlite").path
            try Self.copyDatabase(base, to: db)
            let process = try Self.startImport(db: db, csv: big, log: db + ".log")
            Thread.sleep(forTimeInterval: duration * fraction)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal
            #expect(killed || process.terminationStatus == 0, "kill \(k): the import failed on its own")
            // A reader opens the killed file first, as an app would.
            let poiCount = try Repository(path: db).info().poiCount
            let found = try Self.problems(db)
            #expect(found.isEmpty, "kill \(k) at \(fraction): \(found)")
            let state = try Self.dump(db, exact: true)
            if state == baseExact {
                #expect(poiCount == 3)
                outcomes.append("killed at \(Int(fraction * 100)) %: the base data")
            } else {
                #expect(try Self.dump(db, exact: false) == after, "kill \(k) at \(fraction): neither the data before nor after the import")
                outcomes.append("\(killed ? "killed" : "finished") at \(Int(fraction * 100)) %: the completed import")
            }
            // The same import again succeeds and gives the complete state.
            let again = try Self.startImport(db: db, csv: big, log: db + ".log2")
            again.waitUntilExit()
            #expect(again.terminationStatus == 0, "kill \(k): the following import failed: \((try? String(contentsOfFile: db + ".log2", encoding: .utf8)) ?? "")")
            #expect(try Self.dump(db, exact: false) == after, "kill \(k): the following import left another state")
            #expect(try Self.problems(db).isEmpty)
        }
        #expect(outcomes.contains { $0.hasSuffix("the base data") }, "no kill landed inside the import: \(outcomes)")
    }
}
