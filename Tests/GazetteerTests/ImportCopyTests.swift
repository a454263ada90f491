import Foundation
import Testing
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// A big import into a small database writes into a copy renamed over it (`ImportCopy`): the
/// result must be the database the usual way makes, a failure must leave the original as it was
/// with no copy left, and the path must not be taken while anyone else has the file open.
@Suite(.tags(.fast)) struct ImportCopyTests {
    /// Imports the regions and POIs, then `file` by copy as asked; returns whether it went by copy.
    static func importing(
        _ fixture: Fixture, _ file: String, byCopy: ImportOptions.WhenItPays,
        beforeLock: (@Sendable () -> Void)? = nil, progress: ((ImportProgress) -> Void)? = nil
    ) throws -> Bool {
        let importer = try fixture.importer()
        var options = ImportOptions()
        options.bulkIndexBytes = 0
        options.importByCopy = byCopy
        options.exclusiveWaitMilliseconds = 300
        options.beforeExclusiveLock = beforeLock
        _ = try importer.importFiles([file], options: options, progress: progress)
        return importer.lastImportedByCopy
    }

    /// What a test's hook opened, kept open past the hook.
    final class Held: @unchecked Sendable { var repository: Repository? }

    static func seeded() throws -> Fixture {
        let fixture = Fixture()
        try SideSearchIndexTests.seeded(fixture)
        return fixture
    }

    /// The files beside the database, other than the database itself and the CSV files.
    static func sideFiles(_ fixture: Fixture) throws -> [String] {
        let name = (fixture.database as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
            .filter { $0.hasPrefix(name) && $0 != name && $0 != name + "-wal" && $0 != name + "-shm" }.sorted()
    }

    static func journalMode(_ path: String) throws -> SQLiteValue {
        try Connection(path: path, mode: .readOnly).scalar("PRAGMA journal_mode")
    }

    /// A database reached through a symbolic link is written in place: renaming a copy over
    /// the name would turn the link into a file of its own and leave the linked file as it was.
    @Test func linkedDatabaseIsWrittenInPlace() throws {
        let fixture = try Self.seeded()
        let file = fixture.write("many.csv", SideSearchIndexTests.pois)
        let symbolic = fixture.directory.appendingPathComponent("symbolic.db").path
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: fixture.database)
        let count = { () throws -> SQLiteValue in try Connection(path: fixture.database, mode: .readOnly).scalar("SELECT count(*) FROM poi") }
        let before = try count()
        var options = ImportOptions()
        options.bulkIndexBytes = 0
        options.importByCopy = .always
        options.exclusiveWaitMilliseconds = 300
        do {
            let importer = try Importer(path: symbolic)
            _ = try importer.importFiles([file], options: options)
            #expect(!importer.lastImportedByCopy)
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: symbolic) == fixture.database)
        #expect(try count() != before)
    }

    @Test func byCopyGivesTheSameDatabase() throws {
        let copied = try Self.seeded(), usual = try Self.seeded()
        let file = copied.write("many.csv", SideSearchIndexTests.pois)
        let mode = FileDiagnosis.permissions(copied.database)
        #expect(try Self.importing(copied, file, byCopy: .always))
        #expect(try !Self.importing(usual, file, byCopy: .never))
        #expect(try copied.snapshot() == (try usual.snapshot()))
        #expect(try SideSearchIndexTests.vocabulary(copied.database) == (try SideSearchIndexTests.vocabulary(usual.database)))
        #expect(try SideSearchIndexTests.answers(copied.database) == (try SideSearchIndexTests.answers(usual.database)))
        #expect(try Self.sideFiles(copied).isEmpty)
        #expect(try Self.journalMode(copied.database) == .text("wal"))
        #expect(FileDiagnosis.permissions(copied.database) == mode)
        let check = try Repository(path: copied.database).check()
        #expect(check.passed, "\(check.failed)")
        // The importer goes on with the new file: a second import lands in it.
        let importer = try copied.importer()
        _ = try importer.importFiles([copied.write("one.csv", "id,name,lng,lat\nnew1,新来的书店,120.2,30.2\n")])
        #expect(try Repository(path: copied.database).search("新来的书店").hits.first?.name == "新来的书店")
    }

    @Test func aFailedImportByCopyLeavesTheDatabaseAsItWas() throws {
        let fixture = try Self.seeded()
        let before = try fixture.snapshot()
        let bad = fixture.write("bad.csv", SideSearchIndexTests.pois + "bad1,坏的,050100,500,30.2,330106\n")
        #expect(throws: ImportFailure.self) { try Self.importing(fixture, bad, byCopy: .always) }
        #expect(try fixture.snapshot() == before)
        #expect(try Self.sideFiles(fixture).isEmpty)
        // Not left locked: another import goes ahead at once.
        #expect(try Self.importing(fixture, fixture.write("good.csv", SideSearchIndexTests.pois), byCopy: .always))
    }

    @Test func notByCopyWhileAnotherConnectionHasItOpen() throws {
        let fixture = try Self.seeded()
        let reader = try Repository(path: fixture.database)
        #expect(try reader.search("灵隐寺").hits.first?.name == "灵隐寺")
        #expect(try !Self.importing(fixture, fixture.write("many.csv", SideSearchIndexTests.pois), byCopy: .always))
        // The reader sees the import, as it would have without the copy path.
        #expect(try reader.search("灵隐寺").hits.first?.name == "灵隐寺")
        #expect(try reader.info().poiCount > 3_000)
    }

    /// A reader that starts while the import runs reads the data from before it, with no wait
    /// and no "database is locked" (the original is only in a write transaction until the end).
    @Test func aReaderDuringTheImportReadsTheOldData() throws {
        let fixture = try Self.seeded()
        let before = try Repository(path: fixture.database).info().poiCount
        var reads: [Int] = [], failures: [String] = []
        #expect(try Self.importing(fixture, fixture.write("many.csv", SideSearchIndexTests.pois), byCopy: .always, progress: { _ in
            do {
                let reader = try Repository(path: fixture.database)
                reads.append(try reader.info().poiCount)
                _ = try reader.search("灵隐寺")
            } catch {
                failures.append("\(error)")
            }
        }))
        #expect(!reads.isEmpty)
        #expect(reads.allSatisfy { $0 == before })
        #expect(failures.isEmpty)
        #expect(try Repository(path: fixture.database).info().poiCount == before + 3_000)
    }

    /// A reader that opened the file during the import and still has it open at the end keeps
    /// the exclusive lock from coming: the copy is dropped, the import done the usual way, and
    /// the result is the same; the reader goes on and sees it.
    @Test func aReaderOpenAtTheEndMakesItGoTheUsualWay() throws {
        let fallen = try Self.seeded(), usual = try Self.seeded()
        let file = fallen.write("many.csv", SideSearchIndexTests.pois)
        let held = Held(), path = fallen.database
        #expect(try !Self.importing(fallen, file, byCopy: .always, beforeLock: {
            held.repository = try? Repository(path: path)
            _ = try? held.repository?.info()
        }))
        #expect(held.repository != nil)
        #expect(try !Self.importing(usual, file, byCopy: .never))
        #expect(try fallen.snapshot() == (try usual.snapshot()))
        #expect(try Self.sideFiles(fallen).isEmpty)
        #expect(try held.repository?.info().poiCount == (try Repository(path: usual.database).info().poiCount))
    }

    /// A writer that commits between the end of the import's write transaction and its
    /// exclusive lock is not lost: the copy, made before, lacks its change, so it is dropped and
    /// the import done again the usual way, over the writer's change.
    @Test func aWriterBetweenTheEndAndTheLockIsNotLost() throws {
        let fixture = try Self.seeded()
        let path = fixture.database
        #expect(try !Self.importing(fixture, fixture.write("many.csv", SideSearchIndexTests.pois), byCopy: .always, beforeLock: {
            let writer = try! Connection(path: path, mode: .readWrite)
            try! writer.execute("UPDATE poi SET name = '插进来的' WHERE id = 'p2'")
            writer.close()
        }))
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.scalar("SELECT name FROM poi WHERE id = 'p2'") == .text("插进来的"))
        #expect(try db.scalar("SELECT count(*) FROM poi WHERE id LIKE 's%'") == .integer(3_000))
        #expect(try Repository(path: path).search("插进来的").hits.first?.name == "插进来的")
    }

    /// Changes committed to the -wal and not yet folded into the file (a writer that was killed)
    /// are part of the copy, and no -wal or -shm of the old file stays beside the new one.
    @Test func changesStillInTheWALAreCopied() throws {
        let fixture = try Self.seeded()
        let crashed = fixture.directory.appendingPathComponent("crashed.sqlite").path
        let writer = try Connection(path: fixture.database, mode: .readWrite)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("UPDATE poi SET name = '只在日志里' WHERE id = 'p2'")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: fixture.database + suffix, toPath: crashed + suffix) }
        writer.close()
        #expect((FileDiagnosis.size(crashed + "-wal") ?? 0) > 0)
        let importer = try Importer(path: crashed)
        var options = ImportOptions()
        options.bulkIndexBytes = 0
        options.importByCopy = .always
        _ = try importer.importFiles([fixture.write("many.csv", SideSearchIndexTests.pois)], options: options)
        #expect(importer.lastImportedByCopy)
        #expect(try Connection(path: crashed, mode: .readOnly).scalar("SELECT name FROM poi WHERE id = 'p2'") == .text("只在日志里"))
        #expect(try Connection(path: crashed, mode: .readOnly).scalar("SELECT count(*) FROM poi WHERE id LIKE 's%'") == .integer(3_000))
        // The old -wal's frames, replayed onto the new file, would have broken it.
        #expect(try Connection(path: crashed, mode: .readOnly).scalar("PRAGMA integrity_check") == .text("ok"))
    }

    /// A copy left by an import that was killed does not trip the next one.
    @Test func aCopyLeftByAKilledImportIsReplaced() throws {
        let fixture = try Self.seeded()
        _ = fixture.write((fixture.database as NSString).lastPathComponent + ".importing", "half a database")
        #expect(try Self.importing(fixture, fixture.write("many.csv", SideSearchIndexTests.pois), byCopy: .always))
        #expect(try Self.sideFiles(fixture).isEmpty)
        #expect(try Repository(path: fixture.database).info().poiCount > 3_000)
    }

    /// Only big imports into a database no larger than their POI files go by copy.
    @Test func paysOnlyForBigImportsIntoSmallerFiles() throws {
        let fixture = try Self.seeded()
        let size = Int(FileDiagnosis.size(fixture.database)!)
        #expect(ImportCopy.pays(path: fixture.database, poiBytes: size * 2, bulkBytes: 0))
        #expect(!ImportCopy.pays(path: fixture.database, poiBytes: size / 2, bulkBytes: 0))
        #expect(!ImportCopy.pays(path: fixture.database, poiBytes: size * 2, bulkBytes: size * 2))
        #expect(try !Self.importing(fixture, fixture.write("few.csv", "id,name,lng,lat\nf1,小店,120.2,30.2\n"), byCopy: .whenItPays))
        // Off unless asked, even where it would pay (see `ImportOptions.importByCopy` for why).
        #expect(ImportOptions().importByCopy == .never)
    }

    /// A connection opened on the old file sees that it was renamed over (`Schema.open` then
    /// opens the new one).
    @Test func aConnectionSeesItsFileReplaced() throws {
        let fixture = try Self.seeded()
        let old = try Connection(path: fixture.database, mode: .readOnly)
        _ = try old.scalar("SELECT count(*) FROM poi")
        #expect(!old.fileHasMoved)
        let other = fixture.directory.appendingPathComponent("other.sqlite").path
        try FileManager.default.copyItem(atPath: fixture.database, toPath: other)
        #expect(rename(other, fixture.database) == 0)
        #expect(old.fileHasMoved)
    }
}
