import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

// End-to-end tests of the `gazetteer` command: the real built binary runs as a subprocess and
// the tests look at what a user sees — stdout, stderr and the exit status. Every run names its
// database with --db (the seed imported once per test run, or a fixture's temporary file), and
// runs with XDG_DATA_HOME pointing into a temporary folder and GAZETTEER_DB unset, so the user's
// default database is never read or written.

/// What one run of the command printed and how it ended.
struct CLIRun: CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stdout: String
    let stderr: String

    var description: String {
        "gazetteer \(arguments.joined(separator: " ")) → exit \(status)\n--- stdout:\n\(stdout.prefix(2_000))\n--- stderr:\n\(stderr.prefix(2_000))"
    }

    /// stdout parsed as one JSON object.
    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(object as? [String: Any], "stdout is not a JSON object: \(self)", sourceLocation: sourceLocation)
    }

    /// stdout's lines, each parsed as one JSON object (for --batch).
    func jsonLines(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast(stdout.hasSuffix("\n") ? 1 : 0).map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "a batch line is not a JSON object: \(line)", sourceLocation: sourceLocation)
        }
    }

    /// Progress bars redraw with a carriage return and clear the line with an escape sequence;
    /// neither may reach a pipe.
    var stderrHasTerminalControls: Bool {
        stderr.contains("\r") || stderr.contains("\u{1B}")
    }
}

enum CLITestError: Error, CustomStringConvertible {
    case binaryNotFound([String])
    case timedOut(CLIRun)

    var description: String {
        switch self {
        case .binaryNotFound(let candidates):
            return "the gazetteer binary was not found; build it with `swift build` (looked at: \(candidates.joined(separator: ", ")))"
        case .timedOut(let run):
            return "timed out and was killed: \(run)"
        }
    }
}

/// A box the reading threads fill in; read only after they are done.
/// Output read on another thread; locked so a timed-out wait never reads it mid-write
/// (ThreadSanitizer flagged the unlocked version).
private final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Data()
    var data: Data {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); defer { lock.unlock() }; stored = newValue }
    }
}

enum CLI {
    /// Places the binary may be, best first: the products folder of this test process (where
    /// `swift test` builds every product of the package), then the package's own build folders.
    static let candidates: [String] = {
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment["GAZETTEER_TEST_BINARY"], !override.isEmpty {
            return [override]
        }
        // Linux: the test process is `<products>/gazetteerPackageTests.xctest`.
        if let main = Bundle.main.executableURL {
            folders.append(main.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first, !first.isEmpty {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        // macOS: the runner is Xcode's `xctest`; the test bundle sits in the products folder.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        // The source tree: Tests/GazetteerTests/CLITests.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        folders.append(root.appendingPathComponent(".build/debug"))
        folders.append(root.appendingPathComponent(".build/release"))
        var seen = Set<String>()
        return folders.map { $0.appendingPathComponent("gazetteer").standardizedFileURL.path }.filter { seen.insert($0).inserted }
    }()

    static let binary: String? = candidates.first { path in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }

    /// A temporary folder standing in for `$XDG_DATA_HOME`, so a run that names no database
    /// builds its default one here and never in the user's home.
    static let sandbox: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-cli-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CLI.sandbox) }
        return url.path
    }()

    /// Runs `gazetteer ARGUMENTS`, feeding `stdin` (or nothing) through a pipe, with stdout and
    /// stderr piped back, as a script would run it.
    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: Double = 120,
        through wrapper: [String] = [], program: String? = nil
    ) throws -> CLIRun {
        guard let binary = program ?? binary else { throw CLITestError.binaryNotFound(candidates) }
        let process = Process()
        // A wrapper (such as setpriv, to run as another user) gets the binary as its command.
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? binary)
        process.arguments = wrapper.isEmpty ? arguments : Array(wrapper.dropFirst()) + [binary] + arguments
        var env = ProcessInfo.processInfo.environment
        env["GAZETTEER_DB"] = nil
        env["XDG_DATA_HOME"] = sandbox
        for (key, value) in environment { env[key] = value }
        process.environment = env

        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe: Pipe?
        if stdin != nil {
            let pipe = Pipe()
            process.standardInput = pipe
            inPipe = pipe
        } else {
            process.standardInput = FileHandle.nullDevice
            inPipe = nil
        }

        let out = DataBox(), err = DataBox()
        let group = DispatchGroup()
        let outHandle = outPipe.fileHandleForReading, errHandle = errPipe.fileHandleForReading
        try process.run()
        // Threads of their own, not the global dispatch pool: with many tests running CLIs at
        // once (slower still under a sanitizer) blocked readers could fill the pool and leave a
        // child waiting for stdin that no thread is free to write.
        func background(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread { body(); group.leave() }.start()
        }
        background { out.data = outHandle.readDataToEndOfFile() }
        background { err.data = errHandle.readDataToEndOfFile() }
        if let inPipe, let stdin {
            let writer = inPipe.fileHandleForWriting
            let data = Data(stdin.utf8)
            background {
                writer.write(data)
                try? writer.close()
            }
        }
        let timedOut = group.wait(timeout: .now() + timeout) == .timedOut
        if timedOut {
            process.terminate()
            _ = group.wait(timeout: .now() + 5)
        }
        process.waitUntilExit()
        let result = CLIRun(
            arguments: arguments, status: process.terminationStatus,
            stdout: String(decoding: out.data, as: UTF8.self), stderr: String(decoding: err.data, as: UTF8.self))
        if timedOut { throw CLITestError.timedOut(result) }
        return result
    }

    /// Runs `gazetteer-bench ARGUMENTS`, built beside the gazetteer binary.
    static func bench(_ arguments: [String]) throws -> CLIRun {
        guard let binary else { throw CLITestError.binaryNotFound(candidates) }
        let bench = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("gazetteer-bench").path
        return try run(arguments, program: bench)
    }

    /// Runs a query verb on the seed database.
    static func seed(_ arguments: [String], stdin: String? = nil) throws -> CLIRun {
        try run(arguments + ["--db", SeedDatabase.path], stdin: stdin)
    }
}

@Suite(.tags(.cli), .skippedInFastRuns) struct CLITests {
    // MARK: - the command itself

    @Test func binaryIsFound() {
        if CLI.binary == nil {
            Issue.record("\(CLITestError.binaryNotFound(CLI.candidates))")
        }
    }

    @Test func version() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == GazetteerVersion.release, "\(r)")
    }

    @Test func helpListsEveryVerb() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0, "\(r)")
        for verb in ["reverse", "nearby", "search", "geocode", "district", "import", "info"] {
            #expect(r.stdout.contains("  \(verb) "), "--help does not list '\(verb)': \(r)")
        }
    }

    /// The root help's discussion is paragraphs wrapped to the width, not lines broken by hand
    /// mid-sentence (a line that ends early and is followed by more of its paragraph).
    @Test func rootHelpWrapsSensibly() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0, "\(r)")
        let overview = r.stdout.components(separatedBy: "USAGE:").first ?? ""
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            #expect(line.count >= 60, "a line broken early: '\(line)' before '\(next)'\n\(r.stdout)")
        }
        #expect(r.stdout.contains("--location=-70.1,40"), "\(r)")
    }

    @Test func reverseLimitHelpGivesItsRange() throws {
        let r = try CLI.run(["help", "reverse"])
        #expect(r.status == 0, "\(r)")
        let help = r.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(help.contains("--limit <n> Most POIs listed, 0 to 100"), "\(r)")
    }

    @Test(arguments: [
        ("reverse", ["--location", "--batch", "--radius", "--coordsys", "--json", "--db"]),
        ("nearby", ["--location", "--radius", "--keywords", "--types", "--limit", "--page"]),
        ("search", ["<text>", "--city", "--citylimit", "--location", "--limit", "--page"]),
        ("geocode", ["<address>", "--city"]),
        ("district", ["--subdistrict", "--polygon", "--json", "--coordsys"]),
        ("import", ["--replace", "--skip-invalid", "--rejects", "--encoding", "--coordsys"]),
        ("info", ["--json", "--db"]),
    ])
    func helpForEachVerb(verb: String, options: [String]) throws {
        let r = try CLI.run(["help", verb])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("USAGE: gazetteer \(verb)"), "\(r)")
        for option in options {
            #expect(r.stdout.contains(option), "help \(verb) does not mention \(option): \(r)")
        }
    }

    @Test func unknownVerbFails() throws {
        let r = try CLI.run(["frobnicate"])
        #expect(r.status == 64, "a usage error: \(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("frobnicate"), "\(r)")
    }

    // MARK: - info

    @Test(.tags(.seed), .skippedInFastRuns) func infoJSONHasTheSeedCounts() throws {
        let r = try CLI.seed(["info", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        let expected = try SeedDatabase.repository.info()
        let counts = try #require(json["region_counts"] as? [String: Int], "\(r)")
        #expect(counts == expected.regionCounts)
        #expect(counts["province"] == 34)
        #expect(counts["town"] ?? 0 > 38_000)
        #expect(json["poi_count"] as? Int == expected.poiCount)
        #expect(json["boundary_count"] as? Int == expected.boundaryCount)
        #expect(json["coordinate_system"] as? String == "GCJ-02")
        #expect(json["path"] as? String == SeedDatabase.path)
        #expect((json["dataset_version"] as? String)?.hasPrefix("seed-") == true)
    }

    @Test(.tags(.seed), .skippedInFastRuns) func infoText() throws {
        let r = try CLI.seed(["info"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains(SeedDatabase.path), "\(r)")
        #expect(r.stdout.contains("provinces"), "\(r)")
        #expect(r.stdout.contains("POIs"), "\(r)")
        #expect(r.stdout.contains("GCJ-02"), "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func databaseFromEnvironment() throws {
        let r = try CLI.run(["info", "--json"], environment: ["GAZETTEER_DB": SeedDatabase.path])
        #expect(r.status == 0, "\(r)")
        #expect(try r.json()["path"] as? String == SeedDatabase.path)
    }

    @Test func missingDatabaseIsNotCreatedByAQuery() throws {
        let fixture = Fixture()
        let r = try CLI.run(["reverse", "--location", "116.397477,39.908692", "--db", fixture.database])
        #expect(r.status != 0, "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("no database at \(fixture.database)"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: fixture.database), "a query created the database named by --db")
    }

    @Test(arguments: [
        ["reverse", "--location", "116.397477,39.908692"],
        ["nearby", "--location", "120.1551,30.2741"],
        ["search", "西湖"],
        ["geocode", "杭州市西湖区"],
        ["district", "杭州市"],
    ])
    func missingDatabaseInJSONMode(arguments: [String]) throws {
        let fixture = Fixture()
        let r = try CLI.run(arguments + ["--json", "--db", fixture.database])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.isEmpty, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "0", "\(r)")
        #expect((json["info"] as? String)?.contains("no database at \(fixture.database)") == true, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: fixture.database))
    }

    @Test func notADatabaseInJSONMode() throws {
        let fixture = Fixture()
        let junk = fixture.write("junk.sqlite", "this is not a database\n")
        let r = try CLI.run(["reverse", "--location", "116.397477,39.908692", "--json", "--db", junk])
        #expect(r.status == 1, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "0", "\(r)")
        #expect((json["info"] as? String)?.contains("not a SQLite database") == true, "\(r)")
        #expect((json["info"] as? String)?.contains("Check that --db names the right file") == true, "the CLI's advice: \(r)")
        let text = try CLI.run(["reverse", "--location", "116.397477,39.908692", "--db", junk])
        #expect(text.status == 1 && text.stdout.isEmpty, "\(text)")
        #expect(text.stderr == "Error: \(junk) is not a SQLite database. Check that --db names the right file; "
            + "if this is the gazetteer database, it is damaged: rebuild it with `gazetteer import` into a new file.\n", "\(text)")
    }

    /// The library's reasons name no CLI flags; the CLI adds its own advice when it prints them.
    @Test func emptyDatabaseFileAdvisesImport() throws {
        let fixture = Fixture()
        let empty = fixture.write("empty.sqlite", Data())
        let r = try CLI.run(["search", "西湖", "--db", empty])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr == "Error: cannot open database \(empty): the database is empty (it holds no tables). "
            + "Create it with `gazetteer import --db \(empty) FILES…`.\n", "\(r)")
        let folder = fixture.directory.path
        let f = try CLI.run(["search", "西湖", "--db", folder])
        #expect(f.status == 1, "\(f)")
        #expect(f.stderr.contains("Name the database file itself, e.g. --db \(folder)/gazetteer.sqlite."), "\(f)")
    }

    // MARK: - reverse

    @Test(.tags(.seed), .skippedInFastRuns) func reverseTiananmenJSON() throws {
        let r = try CLI.seed(["reverse", "--location", "116.397477,39.908692", "--json"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.isEmpty, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "1")
        #expect(json["info"] as? String == "OK")
        let regeocode = try #require(json["regeocode"] as? [String: Any], "\(r)")
        let component = try #require(regeocode["addressComponent"] as? [String: Any], "\(r)")
        #expect(component["province"] as? String == "北京市")
        #expect(component["district"] as? String == "东城区")
        #expect(component["adcode"] as? String == "110101")
        // A municipality has no city level: AMap gives an empty city.
        #expect(component["city"] as? String == "")
        #expect((regeocode["formatted_address"] as? String)?.hasPrefix("北京市东城区") == true)
        let pois = try #require(regeocode["pois"] as? [[String: Any]], "\(r)")
        let distances = pois.compactMap { ($0["distance"] as? String).flatMap(Double.init) }
        #expect(distances.count == pois.count)
        #expect(distances == distances.sorted())
        #expect(distances.allSatisfy { $0 <= 1_000 })
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseText() throws {
        let r = try CLI.seed(["reverse", "--location", "116.397477,39.908692"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("北京市东城区"), "\(r)")
        #expect(r.stdout.contains("110101"), "\(r)")
        #expect(r.stderr.isEmpty, "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseSwappedCoordinatesJSON() throws {
        let r = try CLI.seed(["reverse", "--location", "39.908692,116.397477", "--json"])
        #expect(r.status == 64, "a bad --location is a usage error: \(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "0")
        let info = try #require(json["info"] as? String, "\(r)")
        #expect(info.contains("swapped"), "\(r)")
        #expect(json["regeocode"] == nil)
    }

    @Test(.tags(.seed), .skippedInFastRuns, arguments: [
        ("39.908692,116.397477", "swapped"),
        ("abc", "LNG,LAT"),
        ("116.397477", "LNG,LAT"),
    ])
    func reverseBadInputInTextMode(location: String, message: String) throws {
        let r = try CLI.seed(["reverse", "--location", location])
        #expect(r.status == 64, "a usage error: \(r)")
        #expect(r.stderr.hasPrefix("Error: The value '\(location)' is invalid for '--location <lng,lat>': "), "\(r)")
        #expect(r.stdout.isEmpty, "nothing may reach stdout: \(r)")
        #expect(r.stderr.contains(message), "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchFromStdin() throws {
        let input = "116.397477,39.908692\nnot a point\n125.0,30.0\n120.1551,30.2741\n"
        let r = try CLI.seed(["reverse", "--batch", "-", "--radius", "0"], stdin: input)
        #expect(r.status == 1, "a failed line must make the exit status 1: \(r)")
        let lines = try r.jsonLines()
        try #require(lines.count == 4, "one JSON line per input line: \(r)")
        func component(_ line: [String: Any]) -> [String: Any]? {
            (line["regeocode"] as? [String: Any])?["addressComponent"] as? [String: Any]
        }
        #expect(lines[0]["status"] as? String == "1")
        #expect(component(lines[0])?["district"] as? String == "东城区")
        #expect(component(lines[0])?["adcode"] as? String == "110101")

        #expect(lines[1]["status"] as? String == "0")
        #expect((lines[1]["info"] as? String)?.contains("line 2") == true, "\(r)")

        // The East China Sea: a valid point outside every region, not an error.
        #expect(lines[2]["status"] as? String == "1")
        #expect(component(lines[2])?["province"] as? String == "")
        #expect(component(lines[2])?["district"] as? String == "")

        #expect(lines[3]["status"] as? String == "1")
        #expect(component(lines[3])?["province"] as? String == "浙江省")
        #expect(component(lines[3])?["city"] as? String == "杭州市")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func geocodeBatchFromStdin() throws {
        let long = String(repeating: "西", count: 300)
        let input = "\u{FEFF}浙江省杭州市西湖区灵隐街道\r\n\n\(long)\n完全不存在的地名\n上海市黄浦区"
        let r = try CLI.seed(["geocode", "--batch", "-"], stdin: input)
        #expect(r.status == 1, "a failed line must make the exit status 1: \(r)")
        let lines = try r.jsonLines()
        try #require(lines.count == 5, "one JSON line per input line, blank ones too: \(r)")
        func first(_ line: [String: Any]) -> [String: Any]? { (line["geocodes"] as? [[String: Any]])?.first }
        #expect(first(lines[0])?["adcode"] as? String == "330106" && first(lines[0])?["township"] as? String == "灵隐街道", "BOM and CRLF are not part of the address: \(lines[0])")
        #expect(lines[1]["status"] as? String == "1" && lines[1]["count"] as? String == "0", "a blank line finds nothing: \(lines[1])")
        #expect(lines[2]["status"] as? String == "0" && (lines[2]["info"] as? String)?.contains("line 3") == true, "\(lines[2])")
        #expect(lines[3]["count"] as? String == "0", "\(lines[3])")
        #expect(first(lines[4])?["district"] as? String == "黄浦区")
        // Each line is what `geocode --json` answers for that address alone.
        let single = try CLI.seed(["geocode", "--json", "上海市黄浦区"])
        #expect(r.stdout.split(separator: "\n").last.map(String.init) == single.stdout.trimmingCharacters(in: .newlines))
        let none = try CLI.seed(["geocode"])
        #expect(none.status == 64 && none.stderr.contains("give one of <address>, --batch FILE or --csv FILE"), "\(none)")
    }

    /// A spreadsheet's column: the file written back with ten columns appended, GBK read as
    /// import reads it, rows that find nothing kept with empty columns, a bad column named.
    @Test(.tags(.seed), .skippedInFastRuns) func geocodeCSVAppendsColumns() throws {
        let dir = CLI.sandbox + "/csv-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let text = "name,地址,phone\n张三,\"浙江省杭州市西湖区灵隐街道法云弄16号\",133\n李四,北京市海淀区\n王五,,135\n赵六,\"上海市,黄浦区\",136\n"
        let utf8 = dir + "/in.csv", gbk = dir + "/in-gbk.csv", out = dir + "/out.csv"
        try text.write(toFile: utf8, atomically: true, encoding: .utf8)
        // GBK bytes, as a Chinese spreadsheet saves them (glibc's iconv, on every Debian machine).
        let iconv = Process()
        iconv.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
        iconv.arguments = ["-f", "UTF-8", "-t", "GBK", "-o", gbk, utf8]
        try iconv.run()
        iconv.waitUntilExit()
        try #require(iconv.terminationStatus == 0)
        let r = try CLI.seed(["geocode", "--csv", utf8, "--column", "地址"])
        #expect(r.status == 0, "\(r)")
        let rows = r.stdout.split(separator: "\n").map(String.init)
        try #require(rows.count == 5, "\(r)")
        #expect(rows[0] == "name,地址,phone,province,city,district,town,adcode,towncode,lng,lat,level,unmatched")
        #expect(rows[1].hasPrefix("张三,浙江省杭州市西湖区灵隐街道法云弄16号,133,浙江省,杭州市,西湖区,灵隐街道,330106,330106003,"), "\(rows[1])")
        #expect(rows[1].hasSuffix(",乡镇,法云弄16号"), "\(rows[1])")
        #expect(rows[2].hasPrefix("李四,北京市海淀区,,北京市,北京市,海淀区,,110108,,"), "a short row is padded: \(rows[2])")
        #expect(rows[3] == "王五,,135,,,,,,,,,,", "\(rows[3])")
        #expect(rows[4].hasPrefix("赵六,\"上海市,黄浦区\",136,上海市,上海市,黄浦区,"), "\(rows[4])")
        // GBK in, the same rows out (in UTF-8); by number, to a file.
        let g = try CLI.seed(["geocode", "--csv", gbk, "--encoding", "gbk", "--column", "2", "--output", out])
        #expect(g.status == 0 && g.stdout.isEmpty, "\(g)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == r.stdout)
        let bad = try CLI.seed(["geocode", "--csv", utf8, "--column", "address"])
        #expect(bad.status == 64 && bad.stderr.contains("no such column") && bad.stderr.contains("'地址'") && bad.stdout.isEmpty, "\(bad)")
        let missing = try CLI.seed(["geocode", "--csv", utf8])
        #expect(missing.status == 64 && missing.stderr.contains("--column"), "\(missing)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchAllGoodExitsZero() throws {
        // CRLF line ends and no final newline, as files from Windows come.
        let input = "116.397477,39.908692\r\n120.1551,30.2741\r\n113.7518,23.0205"
        let r = try CLI.seed(["reverse", "--batch", "-", "--radius", "0"], stdin: input)
        #expect(r.status == 0, "\(r)")
        let lines = try r.jsonLines()
        #expect(lines.count == 3, "\(r)")
        #expect(lines.allSatisfy { $0["status"] as? String == "1" }, "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchFromFileKeepsOrder() throws {
        let fixture = Fixture()
        let points = ["116.397477,39.908692", "120.1551,30.2741", "x"]
        var text = ""
        for i in 0..<600 { text += points[i % 3] + "\n" }
        let path = fixture.write("points.txt", "\(text)")
        let r = try CLI.seed(["reverse", "--batch", path, "--radius", "0"])
        #expect(r.status == 1, "\(r.arguments) → \(r.status)")
        let lines = try r.jsonLines()
        try #require(lines.count == 600, "one JSON line per input line, got \(lines.count)")
        for (i, line) in lines.enumerated() {
            let component = (line["regeocode"] as? [String: Any])?["addressComponent"] as? [String: Any]
            switch i % 3 {
            case 0: #expect(component?["adcode"] as? String == "110101", "line \(i + 1) out of order")
            case 1: #expect(component?["province"] as? String == "浙江省", "line \(i + 1) out of order")
            default:
                #expect(line["status"] as? String == "0", "line \(i + 1) out of order")
                #expect((line["info"] as? String)?.contains("line \(i + 1):") == true, "line \(i + 1): \(line)")
            }
        }
    }

    /// Blocks are answered two at a time (the next one's queued before the last one is
    /// written): lines still come out one per input line, in order, each error naming its own
    /// line, over several blocks.
    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchKeepsOrderOverManyBlocks() throws {
        let fixture = Fixture()
        // Three blocks of `GazetteerCommand.Reverse.blockLines` (131,072), each answered along a
        // curve through the map, not in line order. Every point a little apart from the others
        // of its place, so that a line answered for another line shows in its location.
        let places = [(116.397477, 39.908692), (120.1551, 30.2741), (113.7518, 23.0205)]
        let count = 2 * 131_072 + 1_001
        var text = "", locations: [String] = []
        for i in 0..<count {
            switch i % 5 {
            case 3: text += "x\n"; locations.append("")
            case 4: text += "200,95\n"; locations.append("")
            default:
                let (lng, lat) = places[i % 5]
                let location = String(format: "%.6f,%.6f", lng + Double(i % 1_000) * 0.000_001, lat + Double(i / 1_000) * 0.000_001)
                text += location + "\n"
                locations.append(location)
            }
        }
        let path = fixture.write("points.txt", text)
        let r = try CLI.seed(["reverse", "--batch", path, "--radius", "0"])
        #expect(r.status == 1, "\(r.arguments) → \(r.status)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(lines.count == count, "one line per input line, got \(lines.count)")
        for (i, line) in lines.enumerated() {
            let ok: Bool
            switch i % 5 {
            case 0: ok = line.contains(#""adcode":"110101""#)
            case 1: ok = line.contains(#""province":"浙江省""#)
            case 2: ok = line.contains(#""city":"东莞市""#)
            default: ok = line.contains(#""status":"0""#) && line.contains("line \(i + 1):")
            }
            let placed = locations[i].isEmpty || line.contains(#""location":"\#(locations[i])""#)
            if !ok || !placed { Issue.record("line \(i + 1) out of order: \(line.prefix(300))"); break }
        }
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchToAFullDeviceSaysSo() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let r = try HostileInputTests.shell(
            #"printf '116.397477,39.908692\nx\n' | "$BIN" reverse --db "$DB" --batch - --radius 0 > /dev/full"#, label: "batch to /dev/full")
        #expect(r.status == 1 && !r.crashed, "an error exit, not a crash: \(r)")
        #expect(r.stderr.contains("cannot write the answers"), "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func geocodeBatchAndCSVToAFullDeviceSaySo() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let fixture = Fixture()  // kept: its folder goes with it
        let csv = fixture.write("a.csv", "id,addr\n1,北京市东城区\n")
        for (command, label) in [(#"printf '北京市\n浙江省杭州市西湖区\n' | "$BIN" geocode --db "$DB" --batch - > /dev/full"#, "batch"),
                                 (#""$BIN" geocode --db "$DB" --csv "\#(csv)" --column addr > /dev/full"#, "csv")] {
            let r = try HostileInputTests.shell(command, label: "\(label) to /dev/full")
            #expect(r.status == 1 && !r.crashed, "an error exit, not a crash: \(r)")
            #expect(r.stderr.contains("No space left on device") && !r.stderr.contains("NSCocoaErrorDomain"), "\(r)")
        }
        withExtendedLifetime(fixture) {}
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchFolderIsRefused() throws {
        let folder = Fixture().directory.path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let r = try CLI.seed(["reverse", "--batch", folder])
        #expect(r.status == 1, "an error exit, not a crash: \(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains(folder) && r.stderr.contains("folder"), "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchMissingFile() throws {
        let fixture = Fixture()
        let missing = fixture.directory.appendingPathComponent("no-such-file.txt").path
        let r = try CLI.seed(["reverse", "--batch", missing])
        #expect(r.status != 0, "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains(missing), "\(r)")
        #expect(r.stderr.contains("no such file"), "the message says why: \(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseBatchMissingFileInJSONMode() throws {
        let fixture = Fixture()
        let missing = fixture.directory.appendingPathComponent("no-such-file.txt").path
        let r = try CLI.seed(["reverse", "--batch", missing, "--json"])
        #expect(r.status == 1, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "0", "\(r)")
        #expect((json["info"] as? String)?.contains("no such file") == true, "\(r)")
    }

    // MARK: - nearby

    @Test(.tags(.seed), .skippedInFastRuns) func nearbyJSON() throws {
        let r = try CLI.seed(["nearby", "--location", "120.1551,30.2741", "--radius", "1000", "--limit", "10", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "1")
        let pois = try #require(json["pois"] as? [[String: Any]], "\(r)")
        #expect(!pois.isEmpty && pois.count <= 10, "\(r)")
        let count = try #require((json["count"] as? String).flatMap(Int.init), "count is a number in a string: \(r)")
        #expect(count >= pois.count)
        let distances = pois.compactMap { ($0["distance"] as? String).flatMap(Double.init) }
        #expect(distances.count == pois.count, "every POI has a distance: \(r)")
        #expect(distances == distances.sorted(), "nearest first: \(distances)")
        #expect(distances.allSatisfy { $0 <= 1_000 })
        for poi in pois {
            #expect((poi["adname"] as? String)?.isEmpty == false, "\(poi)")
            #expect(poi["pname"] as? String == "浙江省", "\(poi)")
            #expect((poi["name"] as? String)?.isEmpty == false, "\(poi)")
            #expect((poi["location"] as? String)?.contains(",") == true, "\(poi)")
        }
    }

    @Test(.tags(.seed), .skippedInFastRuns) func nearbyPageTwoContinuesPageOne() throws {
        let base = ["nearby", "--location", "120.1551,30.2741", "--radius", "2000", "--limit", "5", "--json"]
        let one = try CLI.seed(base + ["--page", "1"]), two = try CLI.seed(base + ["--page", "2"])
        #expect(one.status == 0 && two.status == 0, "\(one)\n\(two)")
        let first = try #require(try one.json()["pois"] as? [[String: Any]])
        let second = try #require(try two.json()["pois"] as? [[String: Any]])
        try #require(first.count == 5 && !second.isEmpty)
        let ids1 = Set(first.compactMap { $0["id"] as? String }), ids2 = Set(second.compactMap { $0["id"] as? String })
        #expect(ids1.isDisjoint(with: ids2))
        let last = (first.last?["distance"] as? String).flatMap(Double.init) ?? .infinity
        let next = (second.first?["distance"] as? String).flatMap(Double.init) ?? -1
        #expect(next >= last)
    }

    /// `count` is the number of POIs found in all (AMap's meaning, and what `search --json`
    /// prints), not the length of the page.
    @Test(.tags(.seed), .skippedInFastRuns) func nearbyCountIsTheTotalNotThePageLength() throws {
        let base = ["nearby", "--location", "120.1551,30.2741", "--radius", "1000", "--json"]
        let all = try CLI.seed(base + ["--limit", "100"])
        let everything = try #require(try all.json()["pois"] as? [[String: Any]], "\(all)")
        try #require(everything.count > 3 && everything.count < 100, "the test needs 4 to 99 POIs here, found \(everything.count)")
        let page = try CLI.seed(base + ["--limit", "3"])
        let json = try page.json()
        #expect((json["pois"] as? [Any])?.count == 3)
        #expect(json["count"] as? String == String(everything.count), "count on a 3-POI page of \(everything.count): \(page)")
        let past = try CLI.seed(base + ["--limit", "3", "--page", "50"])
        #expect(try past.json()["count"] as? String == String(everything.count), "count past the last page: \(past)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func nearbyInWGS84() throws {
        let gcj = Coordinate(longitude: 120.1551, latitude: 30.2741)
        let wgs = gcj.converted(from: .gcj02, to: .wgs84)
        let a = try CLI.seed(["nearby", "--location", "120.1551,30.2741", "--radius", "500", "--limit", "1", "--json"])
        let b = try CLI.seed(["nearby", "--location", String(format: "%.7f,%.7f", wgs.longitude, wgs.latitude),
                              "--coordsys", "wgs84", "--radius", "500", "--limit", "1", "--json"])
        #expect(a.status == 0 && b.status == 0, "\(a)\n\(b)")
        let p = try #require((try a.json()["pois"] as? [[String: Any]])?.first, "\(a)")
        let q = try #require((try b.json()["pois"] as? [[String: Any]])?.first, "\(b)")
        #expect(p["id"] as? String == q["id"] as? String, "the same point in another system finds the same POI")
        func coordinate(_ s: Any?) -> Coordinate? {
            let parts = (s as? String)?.split(separator: ",").compactMap { Double($0) } ?? []
            return parts.count == 2 ? Coordinate(longitude: parts[0], latitude: parts[1]) : nil
        }
        let pg = try #require(coordinate(p["location"])), qw = try #require(coordinate(q["location"]))
        // Answers come back in the system asked in: the WGS-84 location is the GCJ-02 one converted.
        let expected = pg.converted(from: .gcj02, to: .wgs84)
        #expect(qw.distance(to: expected) < 2, "\(qw) vs \(expected)")
        #expect(qw.distance(to: pg) > 100, "the WGS-84 answer was not converted: \(qw)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func nearbyNothingInTheSea() throws {
        let r = try CLI.seed(["nearby", "--location", "125.0,30.0", "--radius", "1000"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("no POIs within"), "\(r)")
    }

    // MARK: - search

    @Test(.tags(.seed), .skippedInFastRuns) func searchTownJSON() throws {
        let r = try CLI.seed(["search", "灵隐街道", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "1")
        let pois = try #require(json["pois"] as? [[String: Any]], "\(r)")
        let first = try #require(pois.first, "no hit: \(r)")
        #expect(first["name"] as? String == "灵隐街道")
        #expect(first["level"] as? String == "town")
        #expect(first["towncode"] as? String == "330106003000")
        #expect(first["adcode"] as? String == "330106")
        #expect(first["adname"] as? String == "西湖区")
        #expect(first["cityname"] as? String == "杭州市")
        #expect(first["pname"] as? String == "浙江省")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func searchPinyin() throws {
        let r = try CLI.seed(["search", "xihu", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        let pois = try #require(json["pois"] as? [[String: Any]], "\(r)")
        #expect(pois.contains { $0["name"] as? String == "西湖区" && $0["adcode"] as? String == "330106" }, "\(r)")
        let count = try #require((json["count"] as? String).flatMap(Int.init), "\(r)")
        #expect(count >= pois.count)
    }

    @Test(.tags(.seed), .skippedInFastRuns) func searchCityLimit() throws {
        let r = try CLI.seed(["search", "西湖", "--city", "杭州市", "--citylimit", "--json"])
        #expect(r.status == 0, "\(r)")
        let pois = try #require(try r.json()["pois"] as? [[String: Any]], "\(r)")
        #expect(!pois.isEmpty, "\(r)")
        #expect(pois.allSatisfy { $0["cityname"] as? String == "杭州市" }, "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns, arguments: [
        ("西湖区", "330106", "浙江省", "杭州市", "西湖区"),
        ("杭州市", "330100", "浙江省", "杭州市", ""),
        ("浙江省", "330000", "浙江省", "", ""),
    ])
    func searchRegionHitFillsItsOwnLevel(text: String, adcode: String, pname: String, cityname: String, adname: String) throws {
        let r = try CLI.seed(["search", text, "--json"])
        #expect(r.status == 0, "\(r)")
        let pois = try #require(try r.json()["pois"] as? [[String: Any]], "\(r)")
        let hit = try #require(pois.first { $0["adcode"] as? String == adcode && $0["name"] as? String == text }, "\(r)")
        #expect(hit["pname"] as? String == pname, "\(hit)")
        #expect(hit["cityname"] as? String == cityname, "\(hit)")
        #expect(hit["adname"] as? String == adname, "\(hit)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func searchPagePastTheEnd() throws {
        let all = try CLI.seed(["search", "西湖区", "--json"])
        let count = try #require((try all.json()["count"] as? String).flatMap(Int.init), "\(all)")
        try #require(count > 0 && count < 20 * 99)
        let r = try CLI.seed(["search", "西湖区", "--page", "99"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("page 99 is past the last one (\(count) hits)"), "\(r)")
        #expect(!r.stdout.contains("no match"), "\(r)")
        let none = try CLI.seed(["search", "zzqqxxjj"])
        #expect(none.stdout.contains("no match for 'zzqqxxjj'"), "\(none)")
    }

    @Test func searchCityHelpSaysMatchClassComesFirst() throws {
        let r = try CLI.run(["help", "search"])
        let help = r.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(help.contains("Among equally good matches, rank hits in this city"), "\(r)")
        #expect(help.contains("exact names still come before prefixes"), "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func searchText() throws {
        let r = try CLI.seed(["search", "灵隐街道"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("灵隐街道"), "\(r)")
        #expect(r.stdout.contains("330106003000"), "\(r)")
    }

    // MARK: - geocode

    @Test(.tags(.seed), .skippedInFastRuns) func geocodeTownAddressJSON() throws {
        let r = try CLI.seed(["geocode", "浙江省杭州市西湖区灵隐街道法云弄16号", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "1")
        #expect(json["count"] as? String == "1")
        let geocodes = try #require(json["geocodes"] as? [[String: Any]], "\(r)")
        let g = try #require(geocodes.first, "\(r)")
        #expect(g["level"] as? String == "乡镇")
        #expect(g["towncode"] as? String == "330106003000")
        #expect(g["township"] as? String == "灵隐街道")
        #expect(g["district"] as? String == "西湖区")
        #expect(g["adcode"] as? String == "330106")
        #expect(g["unmatched"] as? String == "法云弄16号")
        #expect((g["location"] as? String)?.contains(",") == true, "\(r)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func geocodeText() throws {
        let r = try CLI.seed(["geocode", "浙江省杭州市西湖区灵隐街道法云弄16号"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("330106003000"), "\(r)")
        #expect(r.stdout.contains("法云弄16号"), "\(r)")
    }

    // MARK: - district

    @Test(.tags(.seed), .skippedInFastRuns) func districtHangzhouWithChildren() throws {
        let r = try CLI.seed(["district", "杭州市", "--subdistrict", "1", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "1")
        let districts = try #require(json["districts"] as? [[String: Any]], "\(r)")
        let hangzhou = try #require(districts.first, "\(r)")
        #expect(hangzhou["adcode"] as? String == "330100")
        #expect(hangzhou["name"] as? String == "杭州市")
        #expect(hangzhou["level"] as? String == "city")
        #expect(hangzhou["polygon"] == nil, "no boundary without --polygon")
        let children = try #require(hangzhou["districts"] as? [[String: Any]], "\(r)")
        #expect(children.count >= 10, "\(children.count) children")
        #expect(children.contains { $0["adcode"] as? String == "330106" && $0["name"] as? String == "西湖区" })
        #expect(children.allSatisfy { $0["level"] as? String == "district" })
        // --subdistrict 1: one level of children and no more.
        #expect(children.allSatisfy { ($0["districts"] as? [Any])?.isEmpty == true })
    }

    /// district takes --coordsys as the other query verbs do: centres, boxes and the country's
    /// centre come back in that system.
    @Test(.tags(.seed), .skippedInFastRuns) func districtCoordsys() throws {
        func centre(_ arguments: [String]) throws -> [Double] {
            let r = try CLI.seed(arguments)
            #expect(r.status == 0, "\(r)")
            let districts = try #require(try r.json()["districts"] as? [[String: Any]], "\(r)")
            let text = try #require(districts.first?["center"] as? String, "\(r)")
            return text.split(separator: ",").compactMap { Double($0) }
        }
        for keyword in [["杭州市"], []] {
            let gcj = try centre(["district"] + keyword + ["--subdistrict", "0", "--json"])
            let wgs = try centre(["district"] + keyword + ["--subdistrict", "0", "--json", "--coordsys", "wgs84"])
            let expected = Coordinate(longitude: gcj[0], latitude: gcj[1]).converted(from: .gcj02, to: .wgs84)
            #expect(wgs.count == 2 && abs(wgs[0] - expected.longitude) < 1e-5 && abs(wgs[1] - expected.latitude) < 1e-5, "\(keyword): \(gcj) → \(wgs)")
            #expect(abs(wgs[0] - gcj[0]) > 1e-4, "\(keyword): the centre did not move")
        }
        let text = try CLI.seed(["district", "杭州市", "--subdistrict", "0", "--coordsys", "bd09"])
        #expect(text.status == 0 && text.stdout.contains("centre"), "\(text)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func districtPolygon() throws {
        let r = try CLI.seed(["district", "330106", "--polygon", "--json"])
        #expect(r.status == 0, "\(r)")
        let districts = try #require(try r.json()["districts"] as? [[String: Any]], "\(r.arguments) → \(r.status)")
        let xihu = try #require(districts.first)
        #expect(xihu["name"] as? String == "西湖区")
        // AMap's polyline: "lng,lat;lng,lat" per ring, rings joined by "|" (extensions=all).
        #expect(xihu["polygon"] == nil, "no GeoJSON: AMap's polyline instead")
        let polyline = try #require(xihu["polyline"] as? String, "no polyline")
        let rings = polyline.split(separator: "|").map { $0.split(separator: ";").map { $0.split(separator: ",").compactMap { Double($0) } } }
        let ring = try #require(rings.first)
        #expect(ring.count >= 4)
        #expect(ring.first == ring.last, "rings are closed")
        #expect(ring.allSatisfy { $0.count == 2 && (119...121).contains($0[0]) && (29...31).contains($0[1]) })
    }

    /// AMap's config/district: a town is level `street`, its adcode is its district's and its
    /// own 12-digit code is in `towncode`.
    @Test(.tags(.seed), .skippedInFastRuns) func districtTownsAreStreetsWithTheirDistrictsAdcode() throws {
        let r = try CLI.seed(["district", "西湖区", "--json"])
        #expect(r.status == 0, "\(r)")
        let districts = try #require(try r.json()["districts"] as? [[String: Any]], "\(r)")
        let xihu = try #require(districts.first { $0["adcode"] as? String == "330106" }, "\(r)")
        #expect(xihu["level"] as? String == "district")
        #expect(xihu["towncode"] == nil, "only towns have a towncode")
        let towns = try #require(xihu["districts"] as? [[String: Any]], "\(r)")
        #expect(!towns.isEmpty)
        #expect(towns.allSatisfy { $0["level"] as? String == "street" && $0["adcode"] as? String == "330106" }, "\(towns)")
        #expect(towns.contains { $0["name"] as? String == "灵隐街道" && $0["towncode"] as? String == "330106003000" }, "\(towns)")

        let town = try CLI.seed(["district", "330106003000", "--json"])
        let top = try #require((try town.json()["districts"] as? [[String: Any]])?.first, "\(town)")
        #expect(top["level"] as? String == "street")
        #expect(top["adcode"] as? String == "330106")
        #expect(top["towncode"] as? String == "330106003000")
        // Towns directly under a city (东莞) carry the city's adcode.
        let dongguan = try CLI.seed(["district", "441900", "--json"])
        let dgTowns = try #require((try dongguan.json()["districts"] as? [[String: Any]])?.first?["districts"] as? [[String: Any]], "\(dongguan)")
        #expect(!dgTowns.isEmpty && dgTowns.allSatisfy { $0["adcode"] as? String == "441900" && $0["level"] as? String == "street" })
    }

    /// Namesakes are told apart by where they are: 鼓楼 names districts in four cities and
    /// towns in many districts.
    @Test(.tags(.seed), .skippedInFastRuns) func districtNamesakesShowTheirParents() throws {
        let r = try CLI.seed(["district", "鼓楼", "--subdistrict", "0"])
        #expect(r.status == 0, "\(r)")
        let heads = r.stdout.split(separator: "\n").filter { $0.hasPrefix("鼓楼") }
        #expect(heads.count >= 10, "\(r)")
        #expect(Set(heads).count == heads.count, "two namesakes print the same line: \(heads)")
        #expect(r.stdout.contains("鼓楼区  320106  district  in 江苏省南京市"), "\(r)")
        #expect(r.stdout.contains("鼓楼区  350102  district  in 福建省福州市"), "\(r)")
        #expect(r.stdout.contains("鼓楼街道  110118001000  town  in 北京市密云区"), "\(r)")
        let province = try CLI.seed(["district", "浙江省", "--subdistrict", "0"])
        #expect(province.stdout.hasPrefix("浙江省  330000  province\n"), "a province has no parents: \(province)")
    }

    @Test(.tags(.seed), .skippedInFastRuns, arguments: [[], ["100000"], ["中国"]])
    func districtCountry(arguments: [String]) throws {
        let r = try CLI.seed(["district"] + arguments + ["--json"])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        #expect(json["count"] as? String == "1", "\(r)")
        let country = try #require((json["districts"] as? [[String: Any]])?.first, "\(r)")
        #expect(country["adcode"] as? String == "100000")
        #expect(country["level"] as? String == "country")
        let provinces = try #require(country["districts"] as? [[String: Any]])
        #expect(provinces.count == 34, "\(provinces.count) provinces")
        let text = try CLI.seed(["district"] + arguments)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("中华人民共和国  100000  country\n"), "\(text)")
        #expect(text.stdout.contains("  浙江省  330000  province"), "\(text)")
    }

    @Test(.tags(.seed), .skippedInFastRuns) func districtUnknownName() throws {
        let r = try CLI.seed(["district", "不存在的地方"])
        #expect(r.stdout.contains("no region") || r.stderr.contains("no region"), "\(r)")
    }

    // MARK: - import

    static let regions = """
        code,parent,level,name,short_name,pinyin,lng,lat,center_approx
        330000,,province,浙江省,浙江,zhe jiang,120.15,30.27,0
        330100,330000,city,杭州市,杭州,hang zhou,120.21,30.25,0
        330106,330100,district,西湖区,西湖,xi hu,120.13,30.26,0

        """

    static let moreRegions = """
        code,parent,level,name,short_name,pinyin,lng,lat,center_approx
        110000,,province,北京市,北京,bei jing,116.40,39.90,0
        110101,110000,district,东城区,东城,dong cheng,116.42,39.93,0

        """

    /// Line 3 has a latitude out of range.
    static let badPOIs = """
        id,name,type,typecode,address,phone,lng,lat,adcode,towncode
        p1,浙江大学(玉泉校区),科教文化服务;学校;高等院校,141201,西湖区浙大路38号,,120.123,30.265,330106,
        p2,灵隐寺,风景名胜;风景名胜;寺庙道观,110205,,,120.101,95.5,330106,

        """

    /// What `info --json` says about a database, less what an import may touch without
    /// changing the data.
    static func contents(_ database: String) throws -> [String: String] {
        let r = try CLI.run(["info", "--json", "--db", database])
        #expect(r.status == 0, "\(r)")
        let json = try r.json()
        var out: [String: String] = [:]
        for key in ["poi_count", "boundary_count", "dataset_version", "dataset_sources", "approximate_town_centres"] {
            out[key] = json[key].map { "\($0)" } ?? "nil"
        }
        // A dictionary's description order differs between processes: compare it sorted.
        let counts = json["region_counts"] as? [String: Any] ?? [:]
        out["region_counts"] = counts.keys.sorted().map { "\($0)=\(counts[$0]!)" }.joined(separator: ",")
        return out
    }

    @Test func importGoodCSV() throws {
        let fixture = Fixture()
        let regions = fixture.write("regions.csv", Self.regions)
        let r = try CLI.run(["import", "--db", fixture.database, regions])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("imported into \(fixture.database)"), "\(r)")
        #expect(r.stdout.contains("3 new"), "\(r)")
        #expect(!r.stderrHasTerminalControls, "a progress bar reached a pipe: \(r.stderr.debugDescription)")
        let info = try CLI.run(["info", "--json", "--db", fixture.database]).json()
        let counts = try #require(info["region_counts"] as? [String: Int])
        #expect(counts["province"] == 1 && counts["city"] == 1 && counts["district"] == 1)

        // The same file again changes nothing.
        let again = try CLI.run(["import", "--db", fixture.database, regions])
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("0 new"), "\(again)")
        #expect(again.stdout.contains("3 unchanged"), "\(again)")
        #expect(!again.stderrHasTerminalControls)

        // And the imported data answers queries.
        let search = try CLI.run(["search", "西湖区", "--json", "--db", fixture.database])
        #expect(search.status == 0, "\(search)")
        let pois = try #require(try search.json()["pois"] as? [[String: Any]])
        #expect(pois.first?["adcode"] as? String == "330106", "\(search)")
    }

    @Test func importBadRowChangesNothing() throws {
        let fixture = Fixture()
        let regions = fixture.write("regions.csv", Self.regions)
        let first = try CLI.run(["import", "--db", fixture.database, regions])
        try #require(first.status == 0, "\(first)")
        let before = try Self.contents(fixture.database)

        let more = fixture.write("more-regions.csv", Self.moreRegions)
        let bad = fixture.write("pois-bad.csv", Self.badPOIs)
        let r = try CLI.run(["import", "--db", fixture.database, more, bad])
        #expect(r.status != 0, "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("pois-bad.csv:3"), "the message names file:line: \(r)")
        #expect(r.stderr.contains("'lat'"), "the message names the column: \(r)")
        #expect(r.stderr.contains("--skip-invalid"), "the message says how to go on: \(r)")
        #expect(!r.stderrHasTerminalControls, "a progress bar reached a pipe: \(r.stderr.debugDescription)")
        #expect(try Self.contents(fixture.database) == before, "a failed import changed the database")
        let beijing = try CLI.run(["district", "110101", "--json", "--db", fixture.database])
        let found = try #require(try beijing.json()["districts"] as? [Any], "\(beijing)")
        #expect(found.isEmpty, "regions of a failed import landed: \(beijing)")
    }

    @Test func importBadRowIntoNewDatabase() throws {
        let fixture = Fixture()
        let bad = fixture.write("pois-bad.csv", Self.badPOIs)
        let regions = fixture.write("regions.csv", Self.regions)
        let r = try CLI.run(["import", "--db", fixture.database, regions, bad])
        #expect(r.status != 0, "\(r)")
        #expect(r.stderr.contains("pois-bad.csv:3"), "\(r)")
        let info = try CLI.run(["info", "--json", "--db", fixture.database]).json()
        #expect(info["poi_count"] as? Int == 0)
        #expect((info["region_counts"] as? [String: Int])?.values.reduce(0, +) == 0, "\(info)")
    }

    @Test func importSkipInvalidWritesRejects() throws {
        let fixture = Fixture()
        let regions = fixture.write("regions.csv", Self.regions)
        let bad = fixture.write("pois-bad.csv", Self.badPOIs)
        let rejects = fixture.directory.appendingPathComponent("rejects.csv").path
        let r = try CLI.run(["import", "--db", fixture.database, "--skip-invalid", "--rejects", rejects, regions, bad])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("rejected 1 row"), "\(r)")
        #expect(r.stdout.contains(rejects), "\(r)")
        #expect(!r.stderrHasTerminalControls)
        let text = try String(contentsOfFile: rejects, encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline)
        #expect(lines.count == 2, "a header and one rejected row: \(text)")
        #expect(lines.first?.contains("line") == true && lines.first?.contains("column") == true, "\(text)")
        #expect(lines.last?.contains("灵隐寺") == true, "\(text)")
        #expect(lines.last?.contains(",3,") == true, "the rejected row's line: \(text)")
        #expect(lines.last?.contains("lat") == true, "\(text)")
        let info = try CLI.run(["info", "--json", "--db", fixture.database]).json()
        #expect(info["poi_count"] as? Int == 1)
    }

    @Test func importRejectsIntoAMissingFolder() throws {
        let fixture = Fixture()
        let regions = fixture.write("regions.csv", Self.regions)
        let bad = fixture.write("pois-bad.csv", Self.badPOIs)
        let rejects = fixture.directory.appendingPathComponent("no-such-folder/rejects.csv").path
        let r = try CLI.run(["import", "--db", fixture.database, "--skip-invalid", "--rejects", rejects, regions, bad])
        #expect(r.status != 0, "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("cannot create the rejects file at \(rejects)"), "\(r)")
        #expect(r.stderr.contains("does not exist"), "the message says why: \(r)")
        #expect(!r.stderr.contains("cannot read"), "\(r)")
    }

    @Test func importGBKNeedsEncoding() throws {
        let fixture = Fixture()
        // 北京市 in GBK bytes, as a Chinese spreadsheet saves it.
        var data = Data("code,level,name\n110000,province,".utf8)
        data.append(contentsOf: [0xB1, 0xB1, 0xBE, 0xA9, 0xCA, 0xD0])
        data.append(contentsOf: Array("\n".utf8))
        let path = fixture.write("regions-gbk.csv", data)
        let plain = try CLI.run(["import", "--db", fixture.database, path])
        #expect(plain.status != 0, "a GBK file read as UTF-8 must be refused: \(plain)")
        #expect(plain.stderr.contains("regions-gbk.csv"), "\(plain)")
        #expect(plain.stderr.contains("--encoding gbk"), "the message says what to do: \(plain)")
        let converted = try CLI.run(["import", "--db", fixture.database, "--encoding", "gbk", path])
        #expect(converted.status == 0, "\(converted)")
        let search = try CLI.run(["district", "110000", "--json", "--db", fixture.database])
        let districts = try #require(try search.json()["districts"] as? [[String: Any]])
        #expect(districts.first?["name"] as? String == "北京市", "\(search)")
    }

    // MARK: - argument validation

    @Test(.tags(.seed), .skippedInFastRuns, arguments: [
        (["nearby", "--location", "120.1551,30.2741", "--radius", "60000"], "--radius"),
        (["nearby", "--location", "120.1551,30.2741", "--limit", "0"], "--limit"),
        (["nearby", "--location", "120.1551,30.2741", "--page", "0"], "--page"),
        (["nearby"], "--location"),
        (["search", "x", "--limit", "0"], "--limit"),
        (["search", "x", "--citylimit"], "--city"),
        (["search"], "<text>"),
        (["reverse"], "--location"),
        (["reverse", "--location", "116.397477,39.908692", "--batch", "-"], "--batch"),
        (["reverse", "--location", "116.397477,39.908692", "--radius", "60000"], "--radius"),
        (["reverse", "--location", "116.397477,39.908692", "--limit", "101"], "--limit"),
        (["reverse", "--location", "116.397477,39.908692", "--coordsys", "wgs"], "--coordsys"),
        (["reverse", "--location", "abc"], "--location"),
        (["nearby", "--location", "39.9,116.4"], "swapped"),
        (["search", "x", "--location", "1,2,3"], "--location"),
        (["district", "杭州市", "--subdistrict", "4"], "--subdistrict"),
        (["district", "杭州市", "--coordsys", "baidu"], "--coordsys"),
        (["import", "--encoding", "latin1", "x.csv"], "--encoding"),
        (["import"], "<path>"),
        (["info", "--db", ""], "--db"),
    ])
    func argumentErrors(arguments: [String], mention: String) throws {
        // No --db here on purpose for the last case; the others name the seed.
        let r = arguments.contains("--db") ? try CLI.run(arguments) : try CLI.seed(arguments)
        #expect(r.status == 64, "a usage error: \(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("Error:"), "\(r)")
        #expect(r.stderr.contains(mention), "the message should name \(mention): \(r)")
        #expect(r.stderr.contains("Usage: gazetteer") || r.stderr.contains("Help:"), "\(r)")
    }

    /// In --json mode the query verbs answer their own argument errors as AMap failures on
    /// stdout, as they do every other failure, with the usage error's exit status 64.
    @Test(.tags(.seed), .skippedInFastRuns, arguments: [
        (["reverse", "--location", "120,30", "--radius", "99999", "--json"], "--radius"),
        (["reverse", "--json"], "--location"),
        (["reverse", "--location", "116.397477,39.908692", "--limit", "101", "--json"], "--limit"),
        (["reverse", "--location", "116.397477,39.908692", "--coordsys", "wgs", "--json"], "--coordsys"),
        (["nearby", "--radius", "60000", "--json"], "--location"),
        (["nearby", "--location", "120.1551,30.2741", "--radius", "60000", "--json"], "--radius"),
        (["nearby", "--location", "120.1551,30.2741", "--page", "0", "--json"], "--page"),
        (["search", "x", "--limit", "0", "--json"], "--limit"),
        (["search", "x", "--citylimit", "--json"], "--city"),
        (["search", "--json"], "<text>"),
        (["geocode", "--json"], "<address>"),
        (["district", "杭州市", "--subdistrict", "4", "--json"], "--subdistrict"),
        (["district", "杭州市", "--json", "--db", ""], "--db"),
        (["reverse", "--location", "120,30", "--json", "--db"], "--db"),
        (["reverse", "--location", "abc", "--json"], "--location"),
        (["search", "x", "--location", "1,2,3", "--json"], "--location"),
        (["district", "杭州市", "--coordsys", "baidu", "--json"], "--coordsys"),
    ])
    func argumentErrorsInJSONMode(arguments: [String], mention: String) throws {
        let r = arguments.contains("--db") ? try CLI.run(arguments) : try CLI.seed(arguments)
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.isEmpty, "\(r)")
        let json = try r.json()
        #expect(json["status"] as? String == "0", "\(r)")
        #expect(json["infocode"] as? String == "20000", "\(r)")
        let info = try #require(json["info"] as? String, "\(r)")
        #expect(info.contains(mention), "the reason should name \(mention): \(r)")
        #expect(!info.hasPrefix("Error:"), "\(r)")
    }

    /// gazetteer-bench: a usage error exits 64 with ArgumentParser's message; a failure of the
    /// work is a message and exit status 1, never a trap.
    @Test(arguments: [
        (["run", "--op", "frobnicate", "--input", "x.txt"], "--op"),
        (["run", "--op", "reverse"], "--input"),
        (["points", "--count", "many"], "--count"),
        (["frobnicate"], "frobnicate"),
    ])
    func benchUsageErrors(arguments: [String], mention: String) throws {
        let r = try CLI.bench(arguments)
        #expect(r.status == 64, "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("Error:") && r.stderr.contains(mention), "\(r)")
    }

    @Test func benchFailureIsAnErrorNotATrap() throws {
        let missing = Fixture().directory.appendingPathComponent("no-such-input.txt").path
        let r = try CLI.bench(["run", "--db", SeedDatabase.path, "--op", "reverse", "--input", missing])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: cannot read \(missing)"), "\(r)")
    }

    @Test func helpWithJSONIsStillHelp() throws {
        let r = try CLI.run(["reverse", "--json", "--help"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("USAGE: gazetteer reverse"), "\(r)")
    }

    // MARK: - the default database

    @Test func defaultDatabaseIsBuiltUnderXDGDataHome() throws {
        let fixture = Fixture()
        let home = fixture.directory.appendingPathComponent("xdg").path
        let expected = URL(fileURLWithPath: home).appendingPathComponent("gazetteer/gazetteer.sqlite").path
        let arguments = ["reverse", "--location", "116.397477,39.908692", "--radius", "0", "--json"]
        let r = try CLI.run(arguments, environment: ["XDG_DATA_HOME": home], timeout: 300)
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("building the default database at \(expected)"), "\(r)")
        #expect(!r.stderrHasTerminalControls, "a progress bar reached a pipe: \(r.stderr.debugDescription)")
        #expect(try r.json()["status"] as? String == "1", "stdout holds the answer only")
        #expect(FileManager.default.fileExists(atPath: expected))

        let again = try CLI.run(arguments, environment: ["XDG_DATA_HOME": home])
        #expect(again.status == 0, "\(again)")
        #expect(again.stderr.isEmpty, "the default database is built once: \(again)")
        let info = try CLI.run(["info", "--json"], environment: ["XDG_DATA_HOME": home]).json()
        #expect(info["path"] as? String == expected)
    }
}
