import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.cli, .seed), .skippedInFastRuns) struct TerminalSafetyTests {
    /// Text the user typed comes back in messages; control characters in it must be shown
    /// escaped, never sent to the terminal.
    @Test func controlCharactersAreEscapedInAnswersAndErrors() throws {
        let hostile = "x\u{1B}[2Jy"
        for args in [["district", hostile], ["reverse", "--location", "1\u{1B}2,3"], ["search", "西湖", "--city", hostile]] {
            let r = try CLI.run(args + ["--db", SeedDatabase.path])
            #expect(!r.stdout.contains("\u{1B}") && !r.stderr.contains("\u{1B}"), "\(args): \(r)")
            #expect((r.stdout + r.stderr).contains("\\u{1B}"), "\(args): \(r)")
        }
    }
}
