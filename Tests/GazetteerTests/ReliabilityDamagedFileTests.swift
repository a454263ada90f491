import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

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

    /// The page size a database file's header gives (1 stands for 65,536).
    static func pageSize(_ data: Data) -> Int {
        let size = Int(data[data.startIndex + 16]) << 8 | Int(data[data.startIndex + 17])
        return size == 1 ? 65_536 : size
    }

    @Test(.tags(.fast)) func truncatedDatabase() throws {
        let fixture = try cleanFixture()
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture.database))
        // Two and a half pages: page 1 whole, later pages missing.
        let cut = Self.pageSize(data) * 5 / 2
        #expect(data.count > 2 * cut)
        let path = fixture.write("truncated.sqlite", data.prefix(cut))
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

    @Test(.tags(.fast)) func randomBytes() throws {
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
    @Test(.tags(.fast)) func emptyFile() throws {
        let fixture = Fixture()
        let path = fixture.write("empty.sqlite", Data())
        let error = gazetteerError { _ = try Repository(path: path) }
        guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("empty") && reason.contains("Create it by importing data into it."), "\(reason)")
        expectClear(error, path: path)
        _ = try Importer(path: path)
        #expect(try Repository(path: path).info().poiCount == 0)
    }

    @Test(.tags(.fast)) func otherSchemaVersion() throws {
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

    @Test(.tags(.fast)) func directoryAsDatabase() throws {
        let fixture = Fixture()
        let path = fixture.directory.path
        for open in [{ _ = try Repository(path: path) }, { _ = try Importer(path: path) }] {
            let error = gazetteerError(open)
            guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); continue }
            #expect(reason.contains("is a folder"), "\(reason)")
            expectClear(error, path: path)
        }
    }

    @Test(.tags(.fast)) func pathInMissingFolder() throws {
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

    @Test(.tags(.fast)) func missingFileForReading() throws {
        let fixture = Fixture()
        let error = gazetteerError { _ = try Repository(path: fixture.database) }
        guard case .cannotOpen(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("no such file"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: fixture.database))
    }

    /// The CLI, for each bad file: a non-zero exit (never a crash), the file named on stderr,
    /// no bare "disk I/O error".
    @Test(.tags(.cli), .skippedInFastRuns, arguments: ["truncated", "random", "empty", "old-schema", "folder", "missing-folder"])
    func cliOnBadFiles(kind: String) throws {
        let fixture = try cleanFixture()
        let csv = fixture.write("more.csv", Fixture.regions)
        let path: String
        switch kind {
        case "truncated":
            let data = try Data(contentsOf: URL(fileURLWithPath: fixture.database))
            path = fixture.write("t.sqlite", data.prefix(Self.pageSize(data) * 5 / 2))
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
