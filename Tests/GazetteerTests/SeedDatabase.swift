import Foundation
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// The real bundled seed, imported once per test run and shared by every test that needs
/// national data.
enum SeedDatabase {
    /// The repository's `seed/` folder.
    static let seedDirectory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("seed").path

    static let path: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gazetteer-seed-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
        do {
            _ = try DefaultDatabase.build(path: path, seed: seedDirectory)
        } catch {
            fatalError("the seed does not import: \(error)")
        }
        // With its -wal and -shm: the shared repository's connections are still open at exit, so
        // SQLite does not remove them itself (each test run left two files in the temporary folder).
        atexit { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: SeedDatabase.path + suffix) } }
        return path
    }()

    static let repository: Repository = try! Repository(path: path)
}
