import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerQuery

/// When the default database is (re)built: every command that opens it asks first.
@Suite struct DefaultDatabaseTests {
    @Test func stalenessSaysWhyTheDefaultDatabaseMustBeBuilt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-stale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let missing = dir.appendingPathComponent("none.sqlite").path
        #expect(DefaultDatabase.staleness(path: missing, seed: SeedDatabase.seedDirectory) == "it does not exist yet")

        let empty = dir.appendingPathComponent("empty.sqlite").path
        try Repository.create(at: empty)
        #expect(DefaultDatabase.staleness(path: empty, seed: SeedDatabase.seedDirectory) == "it is empty")

        // The seed's own database is ready for that seed, and stale for another version of it.
        #expect(DefaultDatabase.staleness(path: SeedDatabase.path, seed: SeedDatabase.seedDirectory) == nil)
        let other = dir.appendingPathComponent("seed")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try "2099.01.1\n".write(to: other.appendingPathComponent("VERSION"), atomically: true, encoding: .utf8)
        let reason = try #require(DefaultDatabase.staleness(path: SeedDatabase.path, seed: other.path))
        #expect(reason.hasPrefix("the bundled seed changed") && reason.hasSuffix("→ seed-2099.01.1)"), "\(reason)")

        let garbage = dir.appendingPathComponent("garbage.sqlite").path
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect(DefaultDatabase.staleness(path: garbage, seed: SeedDatabase.seedDirectory)?.hasPrefix("it cannot be read") == true)
    }
}
