import Foundation

/// Data files of the tests in `Tests/GazetteerTests/Fixtures/`, found next to this source
/// file (not SwiftPM resources). They are written by `Scripts/make_test_fixtures.py`.
enum FixtureFile {
    /// The `Fixtures` folder.
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Path of a fixture file.
    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The rows of a simple CSV fixture (UTF-8, comma-separated, no quoting) as dictionaries
    /// keyed by the header's column names.
    static func csv(_ name: String) throws -> [[String: String]] {
        let text = try String(contentsOfFile: path(name), encoding: .utf8)
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return lines.map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            var row: [String: String] = [:]
            for (i, key) in header.enumerated() { row[key] = i < fields.count ? fields[i] : "" }
            return row
        }
    }
}
