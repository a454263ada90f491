import Foundation
import Testing

/// The location picker in a real browser: starts the built `gazetteer serve` on the seed on a
/// free port and runs Tests/Browser/picker_test.py (Playwright driving Debian's headless
/// Chromium), failing with the script's output. Screenshots go to .build/picker-screenshots.
///
/// Needs a Python with Playwright (`GAZETTEER_BROWSER_PYTHON`, else .build/browser-venv, which
/// `.ci/run` makes, else `python3`) and Chromium (`GAZETTEER_CHROMIUM`, else /usr/bin/chromium).
/// Without them the test is skipped locally and saying why; under CI (`CI=true`) it fails instead.
@Suite(.disabled(if: fastTestsOnly, "GAZETTEER_TESTS=fast: needs the seed, the binary and a browser"))
struct PickerBrowserTests {
    static let environment = ProcessInfo.processInfo.environment
    static let underCI = ["true", "1"].contains(environment["CI"]?.lowercased() ?? "")

    static let chromium: String? = {
        if let path = environment["GAZETTEER_CHROMIUM"], !path.isEmpty { return path }
        return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// A Python that can import Playwright.
    static let python: String? = {
        var candidates: [String] = []
        if let path = environment["GAZETTEER_BROWSER_PYTHON"], !path.isEmpty { candidates.append(path) }
        candidates.append(packageRoot.appendingPathComponent(".build/browser-venv/bin/python").path)
        candidates += ["/usr/bin/python3", "/usr/local/bin/python3"]
        return candidates.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            return (try? run(path, ["-c", "import playwright.sync_api"], timeout: 60).status) == 0
        }
    }()

    static var missing: [String] {
        var out: [String] = []
        if ServeProcessTests.binary == nil { out.append("the gazetteer binary (swift build --product gazetteer)") }
        if chromium == nil { out.append("Chromium (apt-get install chromium)") }
        if python == nil { out.append("Playwright for Python (pip install playwright into .build/browser-venv)") }
        return out
    }

    /// Runs a program to its end (or `timeout` seconds), returning its exit status and its
    /// stdout and stderr together.
    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let collected = ServeProcessTests.Collected()
        pipe.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
            return (-1, collected.text + "\n(timed out after \(Int(timeout)) s)")
        }
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        collected.append(pipe.fileHandleForReading.readDataToEndOfFile())
        return (process.terminationStatus, collected.text)
    }

    /// Locally a missing browser only skips the test; CI installs everything, so there it runs
    /// and fails.
    static let runnable = missing.isEmpty || underCI
    static let skipReason = Comment(rawValue: "needs " + missing.joined(separator: ", ") + " (.ci/run installs them)")

    @Test(.enabled(if: runnable, skipReason))
    func theWholeFlowInChromium() async throws {
        let missing = Self.missing
        guard missing.isEmpty else {
            Issue.record("CI must install: \(missing.joined(separator: ", "))")
            return
        }
        let database = ServerSeed.path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: ServeProcessTests.binary!)
        server.arguments = ["serve", "--db", database, "--port", "0"]
        let log = ServeProcessTests.Collected()
        let errPipe = Pipe()
        errPipe.fileHandleForReading.readabilityHandler = { log.append($0.availableData) }
        server.standardError = errPipe
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer {
            if server.isRunning { server.terminate(); server.waitUntilExit() }
            errPipe.fileHandleForReading.readabilityHandler = nil
        }
        var base: String?
        for _ in 0..<400 {
            if let line = log.text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                base = String(line.dropFirst("listening on ".count))
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let url = try #require(base, "the server did not start: \(log.text)")
        let screenshots = packageRoot.appendingPathComponent(".build/picker-screenshots").path
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        // Playwright must use the system Chromium, never download one.
        environment["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"
        let script = packageRoot.appendingPathComponent("Tests/Browser/picker_test.py").path
        let result = try Self.run(
            Self.python!, [script, "--base", url, "--chromium", Self.chromium!, "--screenshots", screenshots],
            environment: environment, timeout: 900)
        #expect(result.status == 0, "picker_test.py failed:\n\(result.output)\n--- server log (tail) ---\n\(log.text.suffix(3000))")
        #expect(result.output.contains(" 0 failed"), "\(result.output)")
    }
}
