import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// Inputs that crashed a fuzz target (Fuzz/README.md), replayed with the same checks the
/// targets make. Each file in Fixtures/fuzz/<target>/ is one input, byte for byte; the address
/// and search inputs run against the fuzzers' own fixture database (Fuzz/fixture).
@Suite(.tags(.fast)) struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let inputs = root.appendingPathComponent("Fixtures/fuzz").path
    static let fixture = root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/fixture").path

    static func files(_ target: String) -> [String] {
        let dir = "\(inputs)/\(target)"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(dir)/\($0)" }
    }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The fuzzers' fixture database, imported once per test run.
    static let repository: Repository = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gazetteer-fuzz-regression-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        do {
            _ = try Importer(path: path).importFiles(["\(fixture)/regions.csv", "\(fixture)/pois.csv"])
            return try Repository(path: path)
        } catch {
            fatalError("the fuzz fixture does not import: \(error)")
        }
    }()

    @Test func inputsArePresent() {
        // The parameterised tests below run once per file: an empty folder would run none.
        for target in ["address", "csv", "search"] {
            #expect(!Self.files(target).isEmpty, "no inputs in Fixtures/fuzz/\(target)")
        }
    }

    @Test(arguments: files("csv"))
    func csv(_ path: String) throws {
        for encoding in TextEncoding.allCases {
            // Every record, then the table and each row's validator: errors are fine.
            if let reader = try? CSVReader(path: path, encoding: encoding) {
                var lastLine = 0
                while let record = try? reader.next() {
                    #expect(record.line > lastLine)
                    #expect(!record.fields.isEmpty)
                    lastLine = record.line
                }
            }
            guard let table = try? CSVTable(path: path, encoding: encoding) else { continue }
            while let row = try? table.next() {
                if (try? row.checkFieldCount()) != nil {
                    for column in table.header { _ = row[column] }
                }
                for system in [CoordinateSystem.gcj02, .wgs84, .bd09] {
                    switch table.format {
                    case .regions: _ = try? RegionRow(csv: row, coordinateSystem: system)
                    case .pois: _ = try? POIRow(csv: row, coordinateSystem: system)
                    case .boundaries: _ = try? BoundaryRecord(row: row, coordinateSystem: system)
                    }
                }
            }
        }
    }

    /// CSVReader numbered the records after a lone CR (classic Mac line end) as the line before.
    @Test func loneCarriageReturnsAreLines() throws {
        let reader = try CSVReader(path: "\(Self.inputs)/csv/lone-cr-line-numbers-small")
        var lines: [Int] = []
        while let record = try reader.next() { lines.append(record.line) }
        #expect(lines == [1, 2, 4])
    }

    /// CSVReader stepped back before the start of its buffer on a file of a truncated BOM.
    @Test func truncatedByteOrderMark() throws {
        let one = try CSVReader(path: "\(Self.inputs)/csv/truncated-bom-1-byte")
        #expect(throws: ImportError.self) { try one.next() }  // 0xEF alone is not UTF-8
        let two = try CSVReader(path: "\(Self.inputs)/csv/truncated-bom-2-bytes")
        #expect(throws: ImportError.self) { try two.next() }
    }

    /// geocode read past the end of the text after a POI whose name has a multi-scalar Character.
    @Test func poiNameWithMultiScalarCharacter() throws {
        let g = try Self.repository.geocode("星巴克☕️(西湖店)北山街")
        #expect(g?.poi?.name == "星巴克☕️(西湖店)")
        #expect(g?.unmatched == "北山街")
    }

    @Test(arguments: files("address"))
    func address(_ path: String) throws {
        let text = String(decoding: try Self.bytes(path), as: UTF8.self)
        _ = AddressParser.normalize(text)
        for (city, system) in [(nil, CoordinateSystem.gcj02), ("杭州", .wgs84), ("110101", .bd09)] as [(String?, CoordinateSystem)] {
            do {
                let g = try Self.repository.geocode(text, city: city, system: system)
                if let l = g?.location { #expect(l.isValid) }
            } catch {
                guard case .invalidArgument = error else {
                    Issue.record("geocode (city \(city ?? "nil")) threw \(error)")
                    continue
                }
            }
        }
    }

    @Test(arguments: files("search"))
    func search(_ path: String) throws {
        let text = String(decoding: try Self.bytes(path), as: UTF8.self)
        let db = try Connection(path: Self.repository.path, mode: .readOnly)
        for q in [SearchTokens.nameQuery(text), SearchTokens.pinyinQuery(text)].compactMap({ $0 }) {
            // Built queries are never FTS5 syntax errors.
            _ = try db.cachedStatement("SELECT rowid FROM region_fts WHERE region_fts MATCH ?").rows([.text(q)]) { $0.int64(0) }
            if !q.hasPrefix("pinyin") {
                _ = try db.cachedStatement("SELECT rowid FROM poi_fts WHERE poi_fts MATCH ?").rows([.text(q)]) { $0.int64(0) }
            }
        }
        // Indexed text is found by its own query.
        if let q = SearchTokens.nameQuery(text) {
            let scratch = try Connection(path: ":memory:", mode: .readWrite)
            try scratch.execute("CREATE VIRTUAL TABLE t USING fts5 (grams, chars, pinyin, tokenize = 'unicode61 remove_diacritics 0')")
            try scratch.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
            let tokens = SearchTokens.index([text])
            try scratch.cachedStatement("INSERT INTO t (rowid, grams, chars) VALUES (1, ?, ?)").run([.text(tokens.grams), .text(tokens.chars)])
            // Unless the tokenizer keeps nothing of it (a lone combining mark).
            if case .integer(let n) = try scratch.scalar("SELECT count(*) FROM v"), n > 0 {
                #expect(try scratch.cachedStatement("SELECT rowid FROM t WHERE t MATCH ?").rows([.text(q)]) { $0.int64(0) } == [1])
            }
        }
        var scoped = SearchOptions()
        scoped.city = "杭州"
        scoped.cityLimit = true
        for options in [SearchOptions(), scoped] {
            do {
                _ = try Self.repository.search(text, options: options)
            } catch {
                guard case .invalidArgument = error else {
                    Issue.record("search threw \(error)")
                    continue
                }
            }
        }
    }
}
