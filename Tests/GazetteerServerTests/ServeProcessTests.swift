import Foundation
import Testing

/// End to end: the real `gazetteer serve` binary on a free port, spoken to with curl, stopped
/// with SIGTERM. Skipped when the binary has not been built or curl is missing.
@Suite struct ServeProcessTests {
    static let binary: String? = {
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment["GAZETTEER_TEST_BINARY"], !override.isEmpty {
            return override
        }
        if let main = Bundle.main.executableURL { folders.append(main.resolvingSymlinksInPath().deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first, !first.isEmpty {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        folders.append(packageRoot.appendingPathComponent(".build/debug"))
        return folders.map { $0.appendingPathComponent("gazetteer").path }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let curl: String? = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Text written by the child, collected as it arrives.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ d: Data) { lock.withLock { data.append(d) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    /// (HTTP status, body) from curl.
    static func get(_ url: String) throws -> (Int, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl!)
        process.arguments = ["-s", "--max-time", "10", "-w", "\n%{http_code}", url]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test(.enabled(if: binary != nil && curl != nil, "needs the gazetteer binary (swift build) and curl"))
    func servesAndStopsOnSIGTERM() async throws {
        let db = try EmptyDatabase()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary!)
        process.arguments = ["serve", "--db", db.path, "--port", "0"]
        let errPipe = Pipe()
        let stderrText = Collected()
        errPipe.fileHandleForReading.readabilityHandler = { stderrText.append($0.availableData) }
        process.standardError = errPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.interrupt(); process.terminate() } }

        var url: String?
        for _ in 0..<200 {
            if let line = stderrText.text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                url = String(line.dropFirst("listening on ".count))
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let base = try #require(url, "no 'listening on' line; stderr: \(stderrText.text)")
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let (healthStatus, health) = try Self.get(base + "/health")
        #expect(healthStatus == 200)
        #expect(health == #"{"status":"ok"}"#)
        let (status, body) = try Self.get(base + "/v3/geocode/regeo?location=116.397477,39.908692&key=secret-key-value")
        #expect(status == 200)
        #expect(body.hasPrefix(#"{"status":"#))
        let (missingStatus, _) = try Self.get(base + "/nowhere")
        #expect(missingStatus == 404)

        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        errPipe.fileHandleForReading.readabilityHandler = nil
        let log = stderrText.text
        // One line per request, with the path and status, and never the key.
        #expect(log.contains("GET /v3/geocode/regeo 200 10000 "), "\(log)")
        #expect(log.contains("GET /nowhere 404 "), "\(log)")
        #expect(!log.contains("secret-key-value"))
    }
}
