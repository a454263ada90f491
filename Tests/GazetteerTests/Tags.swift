import Foundation
import Testing

// What a test needs, as tags: every test is `.fast`, or `.seed` and/or `.cli` (suites carry the
// tags all their tests share). Xcode and the event stream see the tags; `swift test` in this
// toolchain (Swift 6.3) cannot select by tag (its --filter and --skip match test IDs only), so
// the tests that are not `.fast` also carry `.skippedInFastRuns`:
//
//     GAZETTEER_TESTS=fast swift test      # only the .fast tests; the others are reported skipped
extension Tag {
    /// Needs neither the national seed database nor the `gazetteer` binary: hand-written
    /// fixtures, geometry, the SQLite layer, the importer.
    @Tag static var fast: Self
    /// Queries the bundled national seed, imported once per test run (about 20 s in a debug build).
    @Tag static var seed: Self
    /// Runs the built `gazetteer` binary as a subprocess.
    @Tag static var cli: Self
}

/// Which tests a run wants, from the environment.
enum TestSelection {
    /// `GAZETTEER_TESTS=fast`: only the `.fast` tests.
    static let fastOnly = ProcessInfo.processInfo.environment["GAZETTEER_TESTS"] == "fast"
}

extension Trait where Self == ConditionTrait {
    /// On every suite and test tagged `.seed` or `.cli`: skipped when `GAZETTEER_TESTS=fast`.
    static var skippedInFastRuns: Self {
        .disabled(if: TestSelection.fastOnly, "GAZETTEER_TESTS=fast runs only the .fast tests (this one needs the seed or the CLI)")
    }
}
