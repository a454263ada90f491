// Shared by the fuzz targets: a small gazetteer database built once per process from
// Fuzz/fixture (a slice of the seed: Beijing, Zhejiang and Jiangxi regions, some POIs, and a
// few POIs with awkward names: an emoji with a variation selector, a decomposed accent,
// FTS5 operators in quotes).
import Foundation

enum FuzzFixture {
    static let directory: String = {
        if let d = ProcessInfo.processInfo.environment["GAZETTEER_FUZZ_FIXTURE"] { return d }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fixture").path
    }()

    /// Scratch space: /dev/shm when there is one (fuzzing writes a file per input).
    static let scratch: String = {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDir), isDir.boolValue { return "/dev/shm" }
        return NSTemporaryDirectory()
    }()

    static let databasePath: String = {
        let path = "\(scratch)/gazetteer-fuzz-\(getpid()).sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        do {
            let importer = try Importer(path: path)
            _ = try importer.importFiles(["\(directory)/regions.csv", "\(directory)/pois.csv"])
        } catch {
            fatalError("fuzz fixture does not import: \(error)")
        }
        atexit {
            for suffix in ["", "-wal", "-shm"] { unlink(FuzzFixture.databasePath + suffix) }
        }
        return path
    }()

    static let repository: Repository = {
        do { return try Repository(path: databasePath) } catch { fatalError("cannot open fuzz fixture: \(error)") }
    }()

    /// A plain read-only connection, for running MATCH strings by hand.
    static let connection: Connection = {
        do { return try Connection(path: databasePath, mode: .readOnly) } catch { fatalError("cannot open fuzz fixture: \(error)") }
    }()
}

/// Input bytes as text, invalid UTF-8 replaced (what a caller with a String could pass).
func fuzzText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    guard let data, size > 0 else { return "" }
    return String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// Stops the fuzzer with a message naming the input's problem.
func fuzzFailure(_ message: String, input: String) -> Never {
    fatalError("\(message)\ninput: \(input.debugDescription)")
}
