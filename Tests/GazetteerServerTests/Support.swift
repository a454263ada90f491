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
