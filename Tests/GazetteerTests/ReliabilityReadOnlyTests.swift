import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite struct ReliabilityReadOnlyTests {
    @Test(.tags(.cli), .skippedInFastRuns, .enabled(if: ReadOnlyMount.isAvailable, Comment(rawValue: ReadOnlyMount.unavailableReason)))
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
    @Test(.tags(.fast), .enabled(if: ReadOnlyMount.isAvailable, Comment(rawValue: ReadOnlyMount.unavailableReason)))
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
    @Test(.tags(.cli), .skippedInFastRuns, .enabled(if: UnprivilegedRun.isAvailable, Comment(rawValue: UnprivilegedRun.unavailableReason)))
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

    @Test(.tags(.fast)) func readOnlyConnectionReadsAndRefusesWrites() throws {
        let fixture = try cleanFixture()
        let repo = try Repository(path: fixture.database)
        #expect(try repo.info().poiCount == 3)
        let db = try Connection(path: fixture.database, mode: .readOnly)
        #expect(!db.isImmutable, "a writable folder must not need immutable=1")
        #expect(throws: SQLiteError.self) { try db.execute("DELETE FROM poi") }
    }

    @Test(.tags(.fast)) func uriEscapesSpecialCharacters() {
        #expect(Connection.uri("/tmp/a?b#c%d.sqlite", "immutable=1") == "file:/tmp/a%3Fb%23c%25d.sqlite?immutable=1")
    }
}
