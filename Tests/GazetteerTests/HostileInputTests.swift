import Dispatch
import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// Hostile input to every entry point of the library and every verb of the CLI: each must give
/// a clear error or a correct (often empty) answer — never a crash, a hang or a changed database.
@Suite struct HostileInputTests {
    // MARK: - inputs

    static let oneMegabyte = String(repeating: "西湖区灵隐街道a1,; ", count: 1 << 16)

    /// Text that is empty, blank, control characters, FTS5 and SQL syntax, odd Unicode, long.
    static let texts: [String] = [
        "", " ", "\t\n \r", "\u{3000}", "\u{0}", "a\u{0}b", "西\u{0}湖", "\u{1B}[2J\u{1B}[31m", "\u{7F}\u{8}\u{7}",
        "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{200B}", "\u{202E}西湖", "\u{0301}", "🙂", "👨‍👩‍👧",
        String(decoding: [0xFF, 0xFE, 0x31, 0xC3], as: UTF8.self),
        "\"", "\"\"", "\"西湖", "*", "西湖*", "^", "^西湖", "NEAR(", "NEAR(西湖 灵隐", "NEAR(a b, 2)", "OR", "AND", "NOT",
        "a OR b", "西湖 OR 灵隐", "-西湖", "+", ":", "grams:西湖", "{grams chars}: 西湖", "(", ")", "()", "[", "'", "''",
        "'; DROP TABLE poi; --", "\" OR 1=1 --", "%", "_", "\\", "西湖区'", "110000; DELETE FROM region",
        "000000", "0", "-1", "99999999999999999999", "１１００００", "١٢٣", "½", "110101002", "1e5",
        String(repeating: "西", count: 200), String(repeating: "西", count: 201), String(repeating: "a ", count: 5_000),
        oneMegabyte,
    ]

    /// Coordinates that are not places, and extreme ones that are.
    static let invalidCoordinates: [Coordinate] = [
        Coordinate(longitude: .nan, latitude: 30), Coordinate(longitude: 120, latitude: .nan),
        Coordinate(longitude: .infinity, latitude: 30), Coordinate(longitude: 120, latitude: -.infinity),
        Coordinate(longitude: 181, latitude: 30), Coordinate(longitude: -180.0001, latitude: 30),
        Coordinate(longitude: 120, latitude: 90.0001), Coordinate(longitude: 120, latitude: -91),
        Coordinate(longitude: 39.9, latitude: 116.4), // swapped
        Coordinate(longitude: .greatestFiniteMagnitude, latitude: -.greatestFiniteMagnitude),
        Coordinate(longitude: .signalingNaN, latitude: .signalingNaN),
    ]
    static let extremeCoordinates: [Coordinate] = [
        Coordinate(longitude: 180, latitude: 90), Coordinate(longitude: -180, latitude: -90),
        Coordinate(longitude: 180, latitude: -90), Coordinate(longitude: -180, latitude: 90),
        Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: -0.0, latitude: -0.0),
        Coordinate(longitude: 179.9999, latitude: 89.9999), Coordinate(longitude: .leastNonzeroMagnitude, latitude: 0),
        Coordinate(longitude: 116.397477, latitude: 89.99), Coordinate(longitude: 150, latitude: 10), // the sea
        Coordinate(longitude: 73.5, latitude: 39.4), Coordinate(longitude: 135.1, latitude: 48.4), // China's far corners
    ]

    /// Fails the test unless `body` returns, or throws a `GazetteerError` with a message.
    static func answersOrFailsClearly<T>(_ what: String, _ body: () throws(GazetteerError) -> T, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try body()
        } catch {
            #expect(!error.description.isEmpty, "\(what): an error without a message", sourceLocation: sourceLocation)
        }
    }

    static func shown(_ s: String) -> String { s.count > 30 ? "\(s.prefix(30).debugDescription)… (\(s.utf8.count) bytes)" : s.debugDescription }

    // MARK: - the library

    @Test(.tags(.fast)) func coordinateParsingRefusesNonsense() throws {
        let bad = [
            "", " ", ",", "1", "1,", ",1", "1,2,3", "nan,nan", "NaN,30", "inf,30", "120,-inf", "1e999,30", "0x10,30",
            "120;30", "120 30", "120,30\u{0}", "\u{0}", "120\u{2028},30", "١٢٠,٣٠", "１２０,３０", "39.9,116.4", "181,0", "0,91",
            "--1,2", "1..2,3", "+-1,2", "120,30,", String(decoding: [0xFF, 0x2C, 0x31], as: UTF8.self), Self.oneMegabyte,
            String(repeating: "1", count: 100_000) + ",30",
        ]
        for text in bad {
            do {
                let c = try Coordinate(parsing: text)
                Issue.record("\(Self.shown(text)) parsed as \(c)")
            } catch let error as GazetteerError {
                guard case .invalidArgument(name: "location", let reason) = error else {
                    Issue.record("\(Self.shown(text)): \(error)"); continue
                }
                #expect(!reason.isEmpty)
                #expect(reason.count < 300, "the message quotes all of a long input: \(reason.count) characters")
            } catch {
                Issue.record("\(Self.shown(text)): \(error)")
            }
        }
        for (text, lng, lat) in [(String, Double, Double)]([(" 120.1 , 30.2 ", 120.1, 30.2), ("120.1，30.2", 120.1, 30.2), ("-0,-0", 0, 0), ("180,90", 180, 90), ("\t-180,-90\t", -180, -90)]) {
            #expect(try Coordinate(parsing: text) == Coordinate(longitude: lng, latitude: lat), "\(text.debugDescription)")
        }
    }

    @Test(.tags(.seed), .skippedInFastRuns) func reverseGeocodeRefusesBadCoordinatesAndAnswersExtremeOnes() throws {
        let r = SeedDatabase.repository
        for c in Self.invalidCoordinates {
            for system in CoordinateSystem.allCases {
                #expect(throws: GazetteerError.self, "\(c) \(system)") { try r.reverseGeocode(c, system: system) }
            }
        }
        for c in Self.extremeCoordinates {
            for system in CoordinateSystem.allCases {
                for radius in [0.0, 1, 50_000] {
                    Self.answersOrFailsClearly("reverse \(c) \(system) \(radius)") { () throws(GazetteerError) in
                        try r.reverseGeocode(c, system: system, radius: radius)
                    }
                }
            }
        }
        let tiananmen = Coordinate(longitude: 116.397477, latitude: 39.908692)
        for radius in [-1, .nan, .infinity, -.infinity, 50_000.5, -0.0001] {
            #expect(throws: GazetteerError.self, "radius \(radius)") { try r.reverseGeocode(tiananmen, radius: radius) }
        }
        for limit in [-1, 0, Int.min, Int.max, 1_000_000] {
            Self.answersOrFailsClearly("poiLimit \(limit)") { () throws(GazetteerError) in
                try r.reverseGeocode(tiananmen, radius: 1_000, poiLimit: limit)
            }
        }
        // Outside China: an empty address, not an error.
        let sea = try r.reverseGeocode(Coordinate(longitude: 150, latitude: 10))
        #expect(sea.address.isEmpty && sea.formattedAddress.isEmpty)
    }

    @Test(.tags(.seed), .skippedInFastRuns) func nearbyRefusesBadArgumentsAndSurvivesHostileText() throws {
        let r = SeedDatabase.repository
        let hangzhou = Coordinate(longitude: 120.1551, latitude: 30.2741)
        for c in Self.invalidCoordinates {
            #expect(throws: GazetteerError.self, "\(c)") { try r.nearby(c) }
        }
        for c in Self.extremeCoordinates {
            var o = NearbyOptions()
            o.radius = 50_000
            o.countAll = true
            for system in CoordinateSystem.allCases {
                o.system = system
                Self.answersOrFailsClearly("nearby \(c) \(system)") { () throws(GazetteerError) in try r.nearby(c, options: o) }
            }
        }
        func options(_ change: (inout NearbyOptions) -> Void) -> NearbyOptions { var o = NearbyOptions(); change(&o); return o }
        for bad in [
            options { $0.radius = .nan }, options { $0.radius = 0 }, options { $0.radius = -5 }, options { $0.radius = .infinity },
            options { $0.radius = 50_001 }, options { $0.limit = 0 }, options { $0.limit = 101 }, options { $0.limit = Int.min },
            options { $0.page = 0 }, options { $0.page = Int.max }, options { $0.page = 1_001 },
        ] {
            #expect(throws: GazetteerError.self) { try r.nearby(hangzhou, options: bad) }
        }
        // The last page allowed, far past the end: empty, not an error.
        #expect(try r.nearby(hangzhou, options: options { $0.page = 1_000; $0.limit = 100 }).pois.isEmpty)
        for text in Self.texts {
            for o in [options { $0.keywords = text; $0.countAll = true }, options { $0.types = [text] }, options { $0.types = [text, "050000", ""] }] {
                Self.answersOrFailsClearly("nearby \(Self.shown(text))") { () throws(GazetteerError) in try r.nearby(hangzhou, options: o) }
            }
        }
        // Query syntax is text: a keyword of FTS5 or SQL syntax finds only names containing it.
        for text in ["'; DROP TABLE poi; --", "\"", "*", "NEAR(", "OR", "^"] {
            let hits = try r.nearby(hangzhou, options: options { $0.keywords = text; $0.radius = 50_000 }).pois
            #expect(hits.allSatisfy { $0.poi.name.lowercased().contains(text.lowercased()) }, "\(text): \(hits.map(\.poi.name))")
        }
        #expect(try r.info().poiCount > 9_000)
    }

    @Test(.tags(.seed), .skippedInFastRuns) func searchGeocodeAndDistrictsSurviveHostileText() throws {
        let r = SeedDatabase.repository
        let infoBefore = try r.info()
        for text in Self.texts {
            Self.answersOrFailsClearly("search \(Self.shown(text))") { () throws(GazetteerError) in try r.search(text) }
            Self.answersOrFailsClearly("search --city \(Self.shown(text))") { () throws(GazetteerError) in
                var o = SearchOptions()
                o.city = text
                o.cityLimit = true
                return try r.search("西湖", options: o)
            }
            Self.answersOrFailsClearly("search --types \(Self.shown(text))") { () throws(GazetteerError) in
                var o = SearchOptions()
                o.types = [text]
                return try r.search("大学", options: o)
            }
            Self.answersOrFailsClearly("geocode \(Self.shown(text))") { () throws(GazetteerError) in try r.geocode(text) }
            Self.answersOrFailsClearly("geocode --city \(Self.shown(text))") { () throws(GazetteerError) in try r.geocode("西湖区", city: text) }
            for depth in [0, 3] {
                Self.answersOrFailsClearly("districts \(Self.shown(text))") { () throws(GazetteerError) in
                    try r.districts(text, subdistrict: depth)
                }
            }
        }
        // Blank text is an empty answer, not an error.
        for blank in ["", " ", "\t\n", "\u{3000}"] {
            #expect(try r.search(blank).hits.isEmpty)
            #expect(try r.geocode(blank) == nil)
        }
        for depth in [-1, 4, Int.min, Int.max] {
            #expect(throws: GazetteerError.self) { try r.districts("杭州市", subdistrict: depth) }
        }
        var o = SearchOptions()
        for (name, change) in [("limit 0", { (o: inout SearchOptions) in o.limit = 0 }), ("limit max", { $0.limit = Int.max }),
                               ("page 0", { $0.page = 0 }), ("page min", { $0.page = Int.min }),
                               ("nan location", { $0.location = Coordinate(longitude: .nan, latitude: 1) }),
                               ("citylimit without city", { $0.cityLimit = true; $0.city = nil })] {
            o = SearchOptions()
            change(&o)
            #expect(throws: GazetteerError.self, "\(name)") { try r.search("西湖", options: o) }
        }
        // SQL and FTS5 syntax never reached the database as syntax.
        let infoAfter = try r.info()
        #expect(infoAfter.poiCount == infoBefore.poiCount && infoAfter.regionCounts == infoBefore.regionCounts)
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        #expect(try db.scalar("PRAGMA quick_check") == .text("ok"))
    }

    /// Names made of query syntax are found as the literal text they are.
    @Test(.tags(.fast)) func querySyntaxInNamesIsFoundLiterally() throws {
        let fixture = Fixture()
        let names = ["'; DROP TABLE poi; --", "\"NEAR(西湖\"", "a OR b", "*星*", "^开头", "grams: 西湖", "NOT 店"]
        var csv = "id,name,lng,lat\n"
        for (i, n) in names.enumerated() {
            csv += "s\(i),\"\(n.replacingOccurrences(of: "\"", with: "\"\""))\",120.12\(i),30.26\n"
        }
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries), fixture.write("p.csv", csv)])
        let r = try Repository(path: fixture.database)
        for n in names {
            let hits = try r.search(n).hits
            #expect(hits.first?.name == n && hits.first?.match == .exact, "\(n): \(hits.map(\.name))")
            var o = NearbyOptions()
            o.keywords = n
            o.radius = 5_000
            #expect(try r.nearby(Coordinate(longitude: 120.12, latitude: 30.26), options: o).pois.map(\.poi.name) == [n])
        }
        #expect(try r.info().poiCount == names.count)
    }

    // MARK: - the importer

    /// A CSV that is not a valid input, and what it must give.
    struct BadFile: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        /// nil: the import must fail; otherwise how many POIs it imports.
        var imports: Int?
        var description: String { name }

        init(_ name: String, _ text: String, imports: Int? = nil) { self.init(name, Array(text.utf8), imports: imports) }
        init(_ name: String, _ bytes: [UInt8], imports: Int? = nil) { self.name = name; self.bytes = bytes; self.imports = imports }
    }

    static let header = "id,name,type,typecode,address,phone,lng,lat,adcode,towncode\n"
    static let row = "h1,某店,,,,,120.13,30.26,330106,\n"

    static let badFiles: [BadFile] = [
        BadFile("empty", ""),
        BadFile("bom-only", [0xEF, 0xBB, 0xBF]),
        BadFile("blank-lines", "\n\r\n\n"),
        BadFile("header-only", header, imports: 0),
        BadFile("bom-header-only", [0xEF, 0xBB, 0xBF] + Array(header.utf8), imports: 0),
        BadFile("ragged-short", header + "h1,某店,,,,,120.13\n"),
        BadFile("ragged-long", header + "h1,某店,,,,,120.13,30.26,330106,,extra,more\n"),
        BadFile("unterminated-quote", header + "h1,\"某店,,,,,120.13,30.26,330106,\n" + row),
        BadFile("text-after-quote", header + "h1,\"某\"店,,,,,120.13,30.26,330106,\n"),
        BadFile("nul-byte", Array(header.utf8) + Array("h1,某".utf8) + [0] + Array("店,,,,,120.13,30.26,330106,\n".utf8)),
        BadFile("nul-in-header", [0] + Array(header.utf8) + Array(row.utf8)),
        BadFile("invalid-utf8", Array(header.utf8) + Array("h1,".utf8) + [0xC4, 0xE3, 0xBA, 0xC3, 0xFF] + Array(",,,,,120.13,30.26,330106,\n".utf8)),
        BadFile("10000-column-header", (0..<10_000).map { "c\($0)" }.joined(separator: ",") + "\n" + row),
        BadFile("10000-column-row", header + String(repeating: "x,", count: 9_999) + "x\n"),
        BadFile("5mb-field", header + "h1," + String(repeating: "店", count: 5 << 20 / 3) + ",,,,,120.13,30.26,330106,\n", imports: 1),
        BadFile("5mb-quoted-unterminated", header + "h1,\"" + String(repeating: "a,\n", count: 5 << 20 / 3)),
        BadFile("lone-cr", header.replacingOccurrences(of: "\n", with: "\r") + row.replacingOccurrences(of: "\n", with: "\r")
                + "h2,另一店,,,,,120.14,30.27,330106,\r", imports: 2),
        BadFile("crlf", header.replacingOccurrences(of: "\n", with: "\r\n") + row.replacingOccurrences(of: "\n", with: "\r\n"), imports: 1),
        BadFile("nan-coordinates", header + "h1,某店,,,,,nan,nan,330106,\n"),
        BadFile("inf-coordinates", header + "h1,某店,,,,,inf,30,330106,\n"),
        BadFile("swapped-coordinates", header + "h1,某店,,,,,30.26,120.13,330106,\n"),
        BadFile("out-of-range", header + "h1,某店,,,,,200,30,330106,\n"),
        BadFile("hex-float", header + "h1,某店,,,,,0x1p7,30,330106,\n"),
        BadFile("control-characters", header + "h1,\"店\u{1B}[2J\u{2028}\u{7}\",,,,,120.13,30.26,330106,\n", imports: 1),
        BadFile("sql-in-fields", header + "\"'; DROP TABLE poi; --\",\"\"\"NEAR(\",,,,,120.13,30.26,330106,\n", imports: 1),
        BadFile("blank-id", header + " ,某店,,,,,120.13,30.26,330106,\n"),
        BadFile("duplicate-id", header + row + row),
        BadFile("huge-code", header + "h1,某店,,,,,120.13,30.26,99999999999999999999999,\n"),
        BadFile("unknown-header", "foo,bar\n1,2\n"),
        BadFile("duplicate-column", "id,name,name,lng,lat\n1,a,b,120,30\n"),
    ]

    /// Each bad file through `Importer`: a clear error and an unchanged, sound database, or the
    /// expected rows.
    @Test(.tags(.fast), .timeLimit(.minutes(1)), arguments: badFiles)
    func importerRefusesOrImportsCorrectly(_ file: BadFile) throws {
        let fixture = Fixture()
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries)])
        let before = try fixture.snapshot()
        let path = fixture.write("\(file.name).csv", Data(file.bytes))
        do {
            let summary = try fixture.run([path])
            if let n = file.imports {
                #expect(summary.pois.inserted == n, "\(file.name): \(summary)")
            } else {
                Issue.record("\(file.name) was imported: \(summary)")
            }
        } catch let error as ImportError {
            #expect(file.imports == nil, "\(file.name): \(error)")
            #expect(error.file == path && !error.reason.isEmpty, "\(error)")
            #expect(error.description.count < 2_000, "\(file.name): the message is \(error.description.count) characters")
            #expect(try fixture.snapshot() == before)
        } catch let error as ImportFailure {
            #expect(file.imports == nil, "\(file.name): \(error)")
            #expect(!error.errors.isEmpty && error.errors.allSatisfy { $0.file == path && $0.line != nil }, "\(error)")
            #expect(error.description.count < 5_000, "\(file.name): the message is \(error.description.count) characters")
            #expect(try fixture.snapshot() == before)
        }
        let db = try Connection(path: fixture.database, mode: .readWrite)
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"), "\(file.name)")
        try db.execute("INSERT INTO poi_fts (poi_fts) VALUES ('integrity-check')")
        #expect(try db.scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
    }

    @Test(.tags(.fast)) func importerRefusesPathsThatAreNotFiles() throws {
        let fixture = Fixture()
        for path in ["", "/nonexistent/x.csv", fixture.directory.path, "/dev/null", "a\u{0}b.csv"] {
            #expect(throws: (any Error).self, "\(path.debugDescription)") { try fixture.run([path]) }
        }
    }

    /// Coordinates at the edge of the world stay in range when converted from WGS-84 or BD-09:
    /// every one imports, except the BD-09 corners that the conversion would take out of range,
    /// which are refused by line (and skipped with `skipInvalid`).
    @Test(.tags(.fast)) func extremeImportedCoordinatesStayValid() throws {
        // Lines of the file (the header is line 1) that each system must refuse.
        let refused: [CoordinateSystem: [Int]] = [.gcj02: [], .wgs84: [], .bd09: [3, 4, 5]]
        for system in CoordinateSystem.allCases {
            let fixture = Fixture()
            var csv = "id,name,lng,lat\n"
            for (i, c) in Self.extremeCoordinates.enumerated() { csv += "e\(i),端\(i),\(c.longitude),\(c.latitude)\n" }
            let path = fixture.write("e.csv", csv)
            let lines = try #require(refused[system])
            if !lines.isEmpty {
                do {
                    let summary = try fixture.run([path]) { $0.coordinateSystem = system }
                    Issue.record("\(system): lines \(lines) were imported: \(summary)")
                } catch let failure as ImportFailure {
                    #expect(failure.errors.compactMap(\.line) == lines && failure.errors.count == lines.count, "\(system): \(failure)")
                    #expect(failure.errors.allSatisfy { $0.file == path && $0.reason.contains("out of range") }, "\(failure)")
                }
            }
            let summary = try fixture.run([path]) {
                $0.coordinateSystem = system
                $0.skipInvalid = !lines.isEmpty
                $0.rejectsPath = fixture.directory.appendingPathComponent("rejects.csv").path
            }
            #expect(summary.pois.inserted == Self.extremeCoordinates.count - lines.count, "\(system): \(summary)")
            #expect(summary.rejected == lines.count, "\(system): \(summary)")
            let db = try Connection(path: fixture.database, mode: .readOnly)
            #expect(try db.scalar("SELECT count(*) FROM poi") == .integer(Int64(Self.extremeCoordinates.count - lines.count)), "\(system)")
            #expect(try db.scalar("SELECT count(*) FROM poi WHERE NOT (lng BETWEEN -180 AND 180 AND lat BETWEEN -90 AND 90)") == .integer(0), "\(system)")
            #expect(try db.scalar("SELECT rtreecheck('poi_rtree')") == .text("ok"))
        }
    }

    // MARK: - the CLI

    /// What one run printed, and how it ended (a signal is a crash).
    struct Run: CustomStringConvertible {
        var status: Int32
        var crashed: Bool
        var stdout: String
        var stderr: String
        var label: String
        var description: String { "\(label) → \(crashed ? "signal" : "exit") \(status)\nstdout: \(stdout.prefix(500))\nstderr: \(stderr.prefix(500))" }
    }

    /// Runs `/bin/sh -c SCRIPT` with `$BIN` the gazetteer binary, so arguments and stdin can be
    /// raw bytes that a Swift String cannot hold.
    static func shell(_ script: String, label: String, timeout: Double = 60) throws -> Run {
        guard let binary = CLI.binary else { throw CLITestError.binaryNotFound(CLI.candidates) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var env = ProcessInfo.processInfo.environment
        env["GAZETTEER_DB"] = nil
        env["XDG_DATA_HOME"] = CLI.sandbox
        env["BIN"] = binary
        env["DB"] = SeedDatabase.path
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        final class Box: @unchecked Sendable { var data = Data() }
        let o = Box(), e = Box()
        let group = DispatchGroup()
        try process.run()
        group.enter()
        DispatchQueue.global().async { o.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { e.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            Issue.record("\(label): timed out after \(timeout) s")
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, crashed: process.terminationReason == .uncaughtSignal,
                   stdout: String(decoding: o.data, as: UTF8.self), stderr: String(decoding: e.data, as: UTF8.self), label: label)
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Checks a run: no crash; success, or failure with a message (a JSON failure object with --json).
    static func check(_ r: Run, json: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!r.crashed, "\(r)", sourceLocation: sourceLocation)
        if json {
            let object = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            #expect(object != nil, "stdout is not one JSON object: \(r)", sourceLocation: sourceLocation)
            if r.status != 0 {
                #expect(object?["status"] as? String == "0" && !((object?["info"] as? String) ?? "").isEmpty, "\(r)", sourceLocation: sourceLocation)
            }
        } else if r.status != 0 {
            #expect(!r.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "a failure without a message: \(r)", sourceLocation: sourceLocation)
        }
    }

    /// Arguments (as shell words: `$(printf …)` makes raw bytes) for every query verb.
    static let cliTexts: [String] = [
        "''", "' '", "'\t'", "\"$(printf '\\033[2J\\007')\"", "\"$(printf '\\342\\200\\250')\"", "\"$(printf '\\377\\376\\061')\"",
        "\"$(printf '\\344\\270')\"", "'\"'", "'*'", "'^'", "'NEAR('", "'OR'", "\"'; DROP TABLE poi; --\"", "'西湖*'",
        "\"$(head -c 100000 /dev/zero | tr '\\0' 'a')\"", "'-'", "'--'", "'%s%n'",
    ]

    @Test(.tags(.cli, .seed), .skippedInFastRuns) func queryVerbsSurviveHostileArguments() throws {
        var runs = 0
        for text in Self.cliTexts {
            for json in [false, true] {
                let j = json ? " --json" : ""
                for command in [
                    "search -- \(text)", "geocode -- \(text)", "district -- \(text)", "district --subdistrict 3 -- \(text)",
                    "nearby --location 120.1551,30.2741 --keywords \(text)", "nearby --location 120.1551,30.2741 --types \(text)",
                    "search 西湖 --city \(text) --citylimit", "geocode 西湖区 --city \(text)", "reverse --location \(text)",
                    "nearby --location \(text)", "search 银行 --location \(text)",
                ] where json || text.count < 40 {
                    // The options first: after `--` everything is the text.
                    let verb = command.prefix { $0 != " " }
                    let r = try Self.shell("exec \"$BIN\" \(verb) --db \"$DB\"\(j)\(command.dropFirst(verb.count))", label: command + j)
                    Self.check(r, json: json)
                    runs += 1
                }
            }
        }
        for location in ["nan,nan", "inf,30", "39.9,116.4", "181,0", "0,-91", "1e999,1", "116.4,39.9,1", "116.4", "0x1p7,30"] {
            for verb in ["reverse", "nearby"] {
                let r = try Self.shell("exec \"$BIN\" \(verb) --location=\(location) --db \"$DB\"", label: "\(verb) \(location)")
                Self.check(r, json: false)
                #expect(r.status != 0, "\(r)")
            }
        }
        for options in ["--radius nan", "--radius inf", "--radius=-1", "--radius 50001", "--limit=-1", "--limit 101",
                        "--limit 99999999999999999999", "--radius 1e999", "--coordsys nonsense", "--page 0"] {
            let r = try Self.shell("exec \"$BIN\" nearby --location 120.1551,30.2741 \(options) --db \"$DB\" --json", label: "nearby \(options)")
            Self.check(r, json: true)
            #expect(r.status != 0, "\(r)")
        }
        for options in ["--subdistrict=-1", "--subdistrict 4", "--subdistrict nan"] {
            let r = try Self.shell("exec \"$BIN\" district 杭州市 \(options) --db \"$DB\"", label: "district \(options)")
            Self.check(r, json: false)
            #expect(r.status != 0, "\(r)")
        }
        #expect(runs > 100)
        let info = try Self.shell("exec \"$BIN\" info --db \"$DB\" --json", label: "info")
        #expect(info.status == 0, "\(info)")
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        #expect(try db.scalar("PRAGMA quick_check") == .text("ok"))
    }

    /// `reverse --batch -` takes raw bytes on stdin: every line gets one answer line, bad lines
    /// an error line naming them, and nothing crashes.
    @Test(.tags(.cli, .seed), .skippedInFastRuns) func reverseBatchSurvivesRawBytes() throws {
        let fixture = Fixture()
        var bytes: [UInt8] = []
        let lines: [[UInt8]] = [
            Array("116.397477,39.908692".utf8), [], Array("   ".utf8), [0xFF, 0xFE, 0x2C, 0x31], [0x31, 0x32, 0x30, 0x00, 0x2C, 0x33, 0x30],
            Array("nan,nan".utf8), Array("39.9,116.4".utf8), Array("\u{1B}[2J".utf8), Array("120.1551,30.2741\u{2028}".utf8),
            Array("'; DROP TABLE poi; --".utf8), Array(repeating: 0x31, count: 200_000), Array("120.1551,30.2741\r".utf8),
            Array("120.1551，30.2741".utf8), [0xEF, 0xBB, 0xBF] + Array("121.4737,31.2304".utf8), Array("180,90".utf8),
        ]
        for line in lines { bytes += line + [0x0A] }
        bytes += Array("113.7518,23.0205".utf8) // no final newline
        let input = fixture.write("batch.bin", Data(bytes))
        for json in ["", " --json"] {
            let r = try Self.shell("exec \"$BIN\" reverse --batch - --radius 0 --db \"$DB\"\(json) < \(Self.quote(input))", label: "batch\(json)")
            #expect(!r.crashed, "\(r)")
            #expect(r.status == 1, "some lines are bad: \(r)")
            let out = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(out.count == lines.count + 1, "one answer per line: \(r)")
            for (i, line) in out.enumerated() {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "line \(i + 1) is not JSON: \(line.prefix(200))")
                if object?["status"] as? String == "0" {
                    #expect((object?["info"] as? String)?.contains("line \(i + 1)") == true, "\(line.prefix(300))")
                    #expect(line.utf8.count < 1_000, "the error line quotes all of a long input")
                }
            }
            #expect(out.first?.contains("北京市") == true)
            #expect(out.last?.contains("东莞市") == true)
        }
        // Invalid UTF-8 in a batch file named on the command line, and a missing one.
        let r = try Self.shell("exec \"$BIN\" reverse --batch \(Self.quote(input)) --radius 0 --db \"$DB\"", label: "batch file")
        #expect(!r.crashed && r.status == 1, "\(r)")
        let missing = try Self.shell("exec \"$BIN\" reverse --batch \"$(printf '/nonexistent/\\377.txt')\" --db \"$DB\"", label: "batch missing")
        Self.check(missing, json: false)
        #expect(missing.status != 0)
    }

    /// `gazetteer import` with the bad files: a non-zero exit with a message for the bad ones,
    /// and the database still sound and unchanged.
    @Test(.tags(.cli, .seed), .skippedInFastRuns) func importVerbRefusesBadFiles() throws {
        let fixture = Fixture()
        try fixture.run([fixture.write("regions.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries)])
        let before = try fixture.snapshot()
        for file in Self.badFiles where file.imports == nil && file.bytes.count < 1_000_000 {
            let path = fixture.write("\(file.name).csv", Data(file.bytes))
            for args in ["", " --skip-invalid --rejects \(Self.quote(fixture.directory.appendingPathComponent("rejects.csv").path))"] {
                let r = try Self.shell("exec \"$BIN\" import --db \(Self.quote(fixture.database))\(args) \(Self.quote(path))", label: "import \(file.name)\(args)")
                #expect(!r.crashed, "\(r)")
                if args.isEmpty {
                    #expect(r.status != 0, "\(r)")
                    #expect(r.stderr.contains("\(file.name).csv"), "the message names the file: \(r)")
                } else if r.status != 0 {
                    #expect(!r.stderr.isEmpty, "\(r)")
                }
            }
        }
        // With --skip-invalid some rows may have gone in; without it nothing did. Check without.
        let clean = Fixture()
        try clean.run([clean.write("regions.csv", Fixture.regions), clean.write("b.csv", Fixture.boundaries)])
        for file in Self.badFiles where file.imports == nil && file.bytes.count < 1_000_000 {
            let path = clean.write("\(file.name).csv", Data(file.bytes))
            let r = try Self.shell("exec \"$BIN\" import --db \(Self.quote(clean.database)) \(Self.quote(path))", label: "import \(file.name)")
            #expect(!r.crashed && r.status != 0, "\(r)")
        }
        #expect(try clean.snapshot() == before)
        // Raw bytes as the file name.
        let r = try Self.shell("exec \"$BIN\" import --db \(Self.quote(clean.database)) \"$(printf '/nonexistent/\\377\\376.csv')\"", label: "import bad name")
        Self.check(r, json: false)
        #expect(r.status != 0)
        let db = try Connection(path: clean.database, mode: .readOnly)
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}
