import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

// Reliability: `check` finds damage and names it; read-only files and file systems answer every
// query; damaged or foreign files give a clear error naming the file, in the library and the CLI.

/// A fixture database with regions, boundaries and POIs, its WAL folded in.
private func cleanFixture() throws -> Fixture {
    let fixture = Fixture()
    try fixture.run([
        fixture.write("regions.csv", Fixture.regions),
        fixture.write("boundaries.csv", Fixture.boundaries),
        fixture.write("pois.csv", Fixture.pois),
    ])
    try Connection(path: fixture.database, mode: .readWrite).execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return fixture
}

/// The error `body` throws, as GazetteerError (nil, with an issue recorded, otherwise).
private func gazetteerError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> GazetteerError? {
    do {
        try body()
        Issue.record("expected a GazetteerError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as GazetteerError {
        return error
    } catch {
        Issue.record("expected a GazetteerError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite struct ReliabilityCheckTests {
    @Test func cleanFixturePasses() throws {
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
    @Test(arguments: [
        ("DELETE FROM region_rtree WHERE id = 330106", IntegrityReport.CheckName.regionBoxes, "330106"),
        ("DELETE FROM poi_rtree WHERE id = 1", .poiPoints, "p1"),
        ("PRAGMA foreign_keys = OFF; UPDATE region SET parent = 990000 WHERE code = 110101", .regionParents, "110101"),
        ("PRAGMA foreign_keys = OFF; UPDATE region SET parent = 990000 WHERE code = 110101", .foreignKeys, "region"),
        ("UPDATE region SET parent = 110000 WHERE code = 330106", .regionCodes, "330106"),
        ("UPDATE region SET boundary = X'DEADBEEF0000000000' WHERE code = 330106", .boundaries, "330106"),
        // A contentless FTS5 'delete' given partly wrong tokens: FTS5's own check cannot see it.
        ("INSERT INTO region_fts (region_fts, rowid, grams, chars, pinyin) VALUES ('delete', 110101, '东城', 'x', 'y')", .regionFTSTokens, "110101"),
        ("INSERT INTO poi_fts (poi_fts, rowid, grams, chars, address) VALUES ('delete', 3, '故宫', 'x', 'y')", .poiFTSTokens, "3"),
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

    @Test func cliCheckReportsAndExits() throws {
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

/// Mounting a tmpfs and remounting it read-only: the real thing, not a permission bit root
/// ignores. Needs root and `mount`; tests that use it are disabled, with this reason, otherwise.
enum ReadOnlyMount {
    static let unavailableReason = "needs root and `mount -t tmpfs` (to make a real read-only file system)"

    @discardableResult
    static func sh(_ arguments: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// Whether a tmpfs can be mounted, remounted read-only and unmounted here.
    static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-mount-probe-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard sh(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]) == 0 else { return false }
        let remounted = sh(["mount", "-o", "remount,ro", dir]) == 0
        sh(["umount", "-l", dir])
        return remounted
    }()

    /// A folder on a fresh tmpfs holding copies of `files`, remounted read-only.
    final class Folder {
        let path: String
        init(copying files: [String: String]) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-ro-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            guard sh(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", path]) == 0 else {
                throw CLIError("mount -t tmpfs failed")
            }
            for (name, source) in files { try FileManager.default.copyItem(atPath: source, toPath: path + "/" + name) }
            guard sh(["mount", "-o", "remount,ro", path]) == 0 else { throw CLIError("mount -o remount,ro failed") }
        }
        func file(_ name: String) -> String { path + "/" + name }
        deinit {
            // Lazy, so a connection still open elsewhere cannot keep the mount alive.
            ReadOnlyMount.sh(["umount", "-l", path])
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    struct CLIError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

@Suite struct ReliabilityReadOnlyTests {
    @Test(.enabled(if: ReadOnlyMount.isAvailable, Comment(rawValue: ReadOnlyMount.unavailableReason)))
    func readOnlyFileSystemAnswersEveryQuery() throws {
        let fixture = try cleanFixture()
        #expect(!FileManager.default.fileExists(atPath: fixture.database + "-wal") || FileDiagnosis.size(fixture.database + "-wal") == 0)
        let folder = try ReadOnlyMount.Folder(copying: ["gazetteer.sqlite": fixture.database])
        let path = folder.file("gazetteer.sqlite")
        // The file system really is read-only.
        #expect(!FileManager.default.createFile(atPath: folder.file("probe"), contents: Data()))

        let repo = try Repository(path: path)
        do {
            let info = try repo.info()
            #expect(info.regionCounts["district"] == 2 && info.poiCount == 3)
            let reverse = try repo.reverseGeocode(Coordinate(longitude: 120.123, latitude: 30.265))
            #expect(reverse.address.district?.name == "西湖区", "\(reverse)")
            #expect(try repo.search("灵隐").hits.count >= 1)
            #expect(try repo.nearby(Coordinate(longitude: 116.397, latitude: 39.918)).pois.first?.poi.name == "故宫博物院")
            #expect(try repo.geocode("浙江省杭州市西湖区")?.district?.code == "330106")
            #expect(try repo.districts("杭州市").count == 1)
            // Many threads, so the pool opens more connections on the read-only medium.
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                #expect((try? repo.info().poiCount) == 3)
            }
        } catch {
            Issue.record("the tmpfs was mounted read-only but a query failed: \(error)")
        }
        #expect(try Connection(path: path, mode: .readOnly).isImmutable)

        // The check runs what it can and says what it skipped.
        let report = try repo.check()
        #expect(report.passed, "\(report.failed)")
        #expect(report[.regionFTS]?.status == .skipped && report[.poiFTS]?.status == .skipped)
        #expect(report[.regionFTS]?.summary.contains("read-only") == true, "\(String(describing: report[.regionFTS]))")
        #expect(report[.regionFTSTokens]?.status == .ok)

        // Writing says why it cannot and what to do.
        for target in [path, folder.file("new.sqlite")] {
            let error = gazetteerError { _ = try Importer(path: target) }
            guard case .readOnly(let p, let reason)? = error else {
                Issue.record("expected .readOnly for \(target), got \(String(describing: error))")
                continue
            }
            #expect(p == target)
            #expect(reason.contains("mounted read-only"), "\(reason)")
            #expect(reason.contains("writable"), "\(reason)")
        }

        // The CLI too: answers, and refuses imports with the reason.
        let r = try CLI.run(["reverse", "--location", "120.123,30.265", "--radius", "0", "--db", path])
        #expect(r.status == 0 && r.stdout.contains("西湖区"), "\(r)")
        let imp = try CLI.run(["import", "--db", path, fixture.write("again.csv", Fixture.regions)])
        #expect(imp.status != 0 && imp.stderr.contains("mounted read-only"), "\(imp)")
    }

    /// A -wal file with changes beside the database on a read-only medium cannot be read
    /// without the -shm; the error says so instead of reading an out-of-date main file.
    @Test(.enabled(if: ReadOnlyMount.isAvailable, Comment(rawValue: ReadOnlyMount.unavailableReason)))
    func pendingWALOnReadOnlyFileSystemIsExplained() throws {
        let fixture = try cleanFixture()
        let writer = try Connection(path: fixture.database, mode: .readWrite)
        try writer.execute("PRAGMA wal_autocheckpoint = 0; UPDATE meta SET value = 'x' WHERE key = 'dataset_version'")
        let wal = try #require(FileDiagnosis.size(fixture.database + "-wal"))
        #expect(wal > 0)
        let folder = try ReadOnlyMount.Folder(copying: ["g.sqlite": fixture.database, "g.sqlite-wal": fixture.database + "-wal"])
        let path = folder.file("g.sqlite")
        let result = Result<DatabaseInfo, any Error> { try Repository(path: path).info() }
        switch result {
        case .success(let info):
            // SQLite may manage to read the log on its own (heap-memory -shm); then it must be current.
            #expect(info.datasetVersion == "x")
        case .failure(let error):
            let text = "\(error)"
            #expect(text.contains("\(path)-wal"), "\(text)")
            #expect(text.contains("writable"), "\(text)")
        }
    }

    /// A database file the user may not write (mode 444 in a folder of mode 555, as a package
    /// manager installs data): every query answers, an import says why it cannot and changes
    /// nothing. As root, whom permissions do not stop, the CLI runs as `nobody` via setpriv.
    @Test(.enabled(if: UnprivilegedRun.isAvailable, Comment(rawValue: UnprivilegedRun.unavailableReason)))
    func unwritableFileAnswersAndRefusesImports() throws {
        let fixture = try cleanFixture()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-ro-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let path = folder + "/gazetteer.sqlite"
        try FileManager.default.copyItem(atPath: fixture.database, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let run = { (args: [String]) in try CLI.run(args + ["--db", path], through: UnprivilegedRun.wrapper) }

        let reverse = try run(["reverse", "--location", "120.123,30.265", "--radius", "0"])
        #expect(reverse.status == 0 && reverse.stdout.contains("西湖区"), "\(reverse)")
        let search = try run(["search", "灵隐", "--json"])
        #expect(search.status == 0 && search.stdout.contains("灵隐"), "\(search)")
        let check = try run(["check"])
        #expect(check.status == 0, "\(check)")

        let csv = fixture.write("again.csv", Fixture.regions)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: csv)
        let imp = try run(["import", csv])
        #expect(imp.status != 0, "\(imp)")
        #expect(imp.stderr.contains(path) && imp.stderr.contains("permissions"), "\(imp)")
        #expect(imp.stderr.contains("chmod") || imp.stderr.contains("copy"), "says what to do: \(imp)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file changed")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func readOnlyConnectionReadsAndRefusesWrites() throws {
        let fixture = try cleanFixture()
        let repo = try Repository(path: fixture.database)
        #expect(try repo.info().poiCount == 3)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(!db.isImmutable, "a writable folder must not need immutable=1")
        #expect(throws: SQLiteError.self) { try db.execute("DELETE FROM poi") }
    }

    @Test func uriEscapesSpecialCharacters() {
        #expect(Connection.uri("/tmp/a?b#c%d.sqlite", "immutable=1") == "file:/tmp/a%3Fb%23c%25d.sqlite?immutable=1")
    }
}

@Suite struct ReliabilityDamagedFileTests {
    /// What a person must see for every bad file: its name, no bare SQLite jargon, no advice
    /// to delete a file that may simply be the wrong one.
    func expectClear(_ error: GazetteerError?, path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { return }
        let text = error.description
        #expect(text.contains(path), "the message does not name the file: \(text)", sourceLocation: sourceLocation)
        #expect(!text.lowercased().hasPrefix("disk i/o error") && !text.contains("SQLite error 10 "), "bare I/O error: \(text)", sourceLocation: sourceLocation)
        #expect(!text.lowercased().contains("delete it"), "advises deleting: \(text)", sourceLocation: sourceLocation)
    }

    @Test func truncatedDatabase() throws {
        let fixture = try cleanFixture()
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture.database))
        #expect(data.count > 20_480)
        let path = fixture.write("truncated.sqlite", data.prefix(10_240))
        for open in [{ _ = try Repository(path: path) }, { _ = try Importer(path: path) }] {
            let error = gazetteerError(open)
            guard case .damaged(_, let reason)? = error else {
                Issue.record("expected .damaged, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("cut off"), "\(reason)")
            #expect(error!.description.contains("rebuild it by importing your data into a new file"), "\(error!)")
            expectClear(error, path: path)
        }
    }

    @Test func randomBytes() throws {
        let fixture = Fixture()
        var bytes = [UInt8](repeating: 0, count: 8192)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        let path = fixture.write("random.sqlite", Data(bytes))
        for open in [{ _ = try Repository(path: path) }, { _ = try Importer(path: path) }] {
            let error = gazetteerError(open)
            guard case .notADatabase? = error else { Issue.record("expected .notADatabase, got \(String(describing: error))"); continue }
            #expect(error!.description.contains("if this is the gazetteer database, it is damaged"), "\(error!)")
            expectClear(error, path: path)
        }
        // Shorter than SQLite's header.
        let tiny = fixture.write("tiny.sqlite", "SQLite format 3")
        guard case .notADatabase? = gazetteerError({ _ = try Repository(path: tiny) }) else { Issue.record("tiny file"); return }
    }

    /// An empty file is not an error for a writer (it gets the schema, as `info --db NEW` does),
    /// but a reader says it is empty and how to fill it.
    @Test func emptyFile() throws {
        let fixture = Fixture()
        let path = fixture.write("empty.sqlite", Data())
        let error = gazetteerError { _ = try Repository(path: path) }
        guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("empty") && reason.contains("Create it by importing data into it."), "\(reason)")
        expectClear(error, path: path)
        _ = try Importer(path: path)
        #expect(try Repository(path: path).info().poiCount == 0)
    }

    @Test func otherSchemaVersion() throws {
        let fixture = try cleanFixture()
        try Connection(path: fixture.database, mode: .readWrite).execute("PRAGMA user_version = \(Schema.version - 1)")
        for open in [{ _ = try Repository(path: fixture.database) }, { _ = try Importer(path: fixture.database) }] {
            let error = gazetteerError(open)
            guard case .schemaVersionMismatch(_, let found, _)? = error else { Issue.record("got \(String(describing: error))"); continue }
            #expect(found == Schema.version - 1)
            #expect(error!.description.contains("older gazetteer"), "\(error!)")
            expectClear(error, path: fixture.database)
        }
    }

    @Test func directoryAsDatabase() throws {
        let fixture = Fixture()
        let path = fixture.directory.path
        for open in [{ _ = try Repository(path: path) }, { _ = try Importer(path: path) }] {
            let error = gazetteerError(open)
            guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); continue }
            #expect(reason.contains("is a folder"), "\(reason)")
            expectClear(error, path: path)
        }
    }

    @Test func pathInMissingFolder() throws {
        let fixture = Fixture()
        let path = fixture.directory.appendingPathComponent("no/such/folder/g.sqlite").path
        for open in [{ _ = try Repository(path: path) }, { _ = try Importer(path: path) }] {
            let error = gazetteerError(open)
            guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); continue }
            #expect(reason.contains("does not exist"), "\(reason)")
            expectClear(error, path: path)
        }
        #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
    }

    @Test func missingFileForReading() throws {
        let fixture = Fixture()
        let error = gazetteerError { _ = try Repository(path: fixture.database) }
        guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("no such file"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: fixture.database))
    }

    /// The CLI, for each bad file: a non-zero exit (never a crash), the file named on stderr,
    /// no bare "disk I/O error".
    @Test(arguments: ["truncated", "random", "empty", "old-schema", "folder", "missing-folder"])
    func cliOnBadFiles(kind: String) throws {
        let fixture = try cleanFixture()
        let csv = fixture.write("more.csv", Fixture.regions)
        let path: String
        switch kind {
        case "truncated":
            path = fixture.write("t.sqlite", try Data(contentsOf: URL(fileURLWithPath: fixture.database)).prefix(10_240))
        case "random":
            path = fixture.write("r.sqlite", Data((0..<4096).map { _ in UInt8.random(in: 0...255) }))
        case "empty":
            path = fixture.write("e.sqlite", Data())
        case "old-schema":
            try Connection(path: fixture.database, mode: .readWrite).execute("PRAGMA user_version = 1")
            path = fixture.database
        case "folder":
            path = fixture.directory.path
        default:
            path = fixture.directory.appendingPathComponent("nowhere/g.sqlite").path
        }
        let reverse = try CLI.run(["reverse", "--location", "120.123,30.265", "--db", path])
        #expect(reverse.status == 1, "\(reverse)")
        #expect(reverse.stderr.contains(path), "\(reverse)")
        #expect(!reverse.stderr.contains("disk I/O error") && !reverse.stderr.contains("Fatal error"), "\(reverse)")
        let imp = try CLI.run(["import", "--db", path, csv])
        #expect(!imp.stderr.contains("disk I/O error") && !imp.stderr.contains("Fatal error"), "\(imp)")
        if kind == "empty" {
            #expect(imp.status == 0, "an empty file is a new database to import into: \(imp)")
        } else {
            #expect(imp.status == 1, "\(imp)")
            #expect(imp.stderr.contains(path), "\(imp)")
        }
    }
}

/// How to run the CLI as a user whom file permissions apply to: directly when the tests are not
/// root; as root, through `setpriv` as `nobody`, if it can reach the binary and the temporary folder.
enum UnprivilegedRun {
    static let wrapper: [String] = getuid() == 0
        ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []

    static let unavailableReason: String = {
        guard getuid() == 0 else { return "" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return "running as root without setpriv" }
        guard let binary = CLI.binary else { return "no gazetteer binary" }
        // nobody must be able to run the binary and enter the temporary folder.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        probe.arguments = Array(wrapper.dropFirst()) + ["/bin/sh", "-c", "test -x \"$0\" && test -x \"$1\"", binary,
                                                        FileManager.default.temporaryDirectory.path]
        guard (try? probe.run()) != nil else { return "setpriv cannot start" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? "" : "nobody cannot run \(binary) (a parent folder is private)"
    }()

    static var isAvailable: Bool { unavailableReason.isEmpty }
}
