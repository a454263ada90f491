import ArgumentParser
import Foundation
import Gazetteer

extension GazetteerCommand {
    /// `gazetteer check`: is this database whole? Exits 1 when any check fails, so scripts and
    /// cron jobs can test a file before trusting it.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a database: SQLite, FTS5 and R*Tree integrity, foreign keys, the region tree, codes, boundaries and POI references.",
            discussion: """
                Prints each check as ok, FAILED or skipped, with the first few offending codes or ids, and exits \
                with status 1 when any check failed. FTS5's own integrity-check needs to write (it is rolled back): \
                on a read-only file or file system it is skipped and the report says why. Nothing is changed.
                """)

        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print the report as JSON.") var json = false

        func run() throws {
            let report = try database.openRepository().check()
            if json {
                print(try JSONOutput.string(report))
            } else {
                print(Self.describe(report))
            }
            if !report.passed { throw ExitCode(1) }
        }

        static func describe(_ report: IntegrityReport) -> String {
            var lines = ["checked \(report.path)"]
            let rows = report.checks.map { check -> [String] in
                let status = switch check.status {
                case .ok: "ok"
                case .failed: "FAILED"
                case .skipped: "skipped"
                }
                return [check.name.rawValue, status, check.summary]
            }
            var table = Format.columns(rows).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // Offenders go under their check's line.
            var out: [String] = []
            for (check, line) in zip(report.checks, table) {
                out.append(line)
                for detail in check.details where check.status == .failed { out.append("    \(detail)") }
            }
            table = out
            lines += table
            let failed = report.failed.count, skipped = report.skipped.count
            if failed == 0 {
                lines.append("\nall \(report.checks.count - skipped) checks passed" + (skipped > 0 ? " (\(skipped) skipped)" : ""))
            } else {
                lines.append("""

                    \(failed) check\(failed == 1 ? "" : "s") failed. If this is your gazetteer database, rebuild it with \
                    `gazetteer import` into a new file from your CSV files (the default database: delete it and it is \
                    rebuilt from the seed on the next run).
                    """)
            }
            return lines.joined(separator: "\n")
        }
    }
}
