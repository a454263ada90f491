import Foundation
import Gazetteer
import GazetteerAMap
import Logging
@testable import GazetteerServer

/// An empty gazetteer database in a temporary file, removed when the value goes away. The AMap
/// service's answers don't depend on the data for these tests: they test the transport.
final class EmptyDatabase: Sendable {
    let path: String
    let repository: Repository

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gazetteer-serve-test-\(UUID().uuidString).sqlite").path
        try Repository.create(at: path)
        repository = try Repository(path: path)
    }

    deinit {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// A server over an empty database with `configuration` (port 0, loopback).
func makeServer(_ configuration: ServerConfiguration = ServerConfiguration(port: 0)) throws -> (GazetteerServer, EmptyDatabase) {
    let db = try EmptyDatabase()
    return (GazetteerServer(service: AMapService(repository: db.repository), configuration: configuration), db)
}

let testLogger: Logger = {
    var logger = Logger(label: "gazetteer.serve.test")
    logger.logLevel = .warning
    return logger
}()

/// The package root, from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The bundled national seed, imported once per test run for the tests that need real data
/// (the picker's base map and browser tests): about 20–40 s in a debug build.
enum ServerSeed {
    static let path: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gazetteer-server-seed-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
        do {
            _ = try DefaultDatabase.build(path: path, seed: packageRoot.appendingPathComponent("seed").path)
        } catch {
            fatalError("the seed does not import: \(error)")
        }
        atexit { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: ServerSeed.path + s) } }
        return path
    }()

    static let repository: Repository = try! Repository(path: path)
}

/// `GAZETTEER_TESTS=fast` runs only the tests that need neither the seed nor the binary.
let fastTestsOnly = ProcessInfo.processInfo.environment["GAZETTEER_TESTS"] == "fast"
