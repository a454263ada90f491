import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// A fresh temporary file path, removed with its WAL files when the test ends.
final class TemporaryDatabase {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gazetteer-test-\(UUID().uuidString).sqlite").path
    }
    deinit {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
