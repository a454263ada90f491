import ArgumentParser
import Foundation
import Gazetteer
import GazetteerAMap

/// The `gazetteer` command: offline Chinese address look-up from one SQLite file.
@main
struct GazetteerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gazetteer",
        abstract: "Offline Chinese address gazetteer: reverse geocoding, nearby POIs, keyword search, geocoding and district look-up from one SQLite file.",
        discussion: """
            Coordinates are longitude,latitude (AMap's order) in GCJ-02 unless --coordsys says otherwise; \
            write a negative longitude as --location=-70.1,40.

            The database is the one named by --db, else by $GAZETTEER_DB, else the default one, which is \
            built from the bundled seed on first use.

            With --json the query verbs (reverse, nearby, search, geocode, district) print AMap's web-service \
            shapes; a failure, bad arguments included, is {"status":"0","info":REASON,…} on stdout, with the \
            exit status below. Without --json, errors go to stderr.

            Exit status: 0 success (an empty answer included); 1 the work failed (a --city that names no \
            region, a missing or damaged database, a failed import, a failing check, a --batch line that \
            failed); 64 a usage error (an unknown verb or option, a missing or bad value such as \
            --location 1,2,3 or --encoding latin1), in --json mode too.
            """,
        version: GazetteerVersion.release,
        subcommands: [Reverse.self, Nearby.self, Search.self, Geocode.self, District.self, Info.self, Import.self, Check.self, Serve.self]
    )

    /// The verbs whose --json answers are AMap shapes, and so whose failures are AMap failures.
    static let queryVerbs: Set<String> = ["reverse", "nearby", "search", "geocode", "district"]

    /// As ArgumentParser's `main`, except that an argument error of a query verb run with
    /// --json is AMap's failure object on stdout (still exit status 64), as its other failures
    /// are, and that library errors are shown with the CLI's advice (ErrorAdvice).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            // Help, --version and an ExitCode whose output is already out.
            if code == .success || error is ExitCode { exit(withError: error) }
            let shown = ErrorAdvice.wrapping(error)
            if wantsJSON(arguments) {
                print(JSON.failure(message(for: shown)).text)
            } else {
                // Messages quote what the user typed: show control characters escaped, never
                // let them act on the terminal.
                FileHandle.standardError.write(Data((escapingControls(fullMessage(for: shown)) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }

    /// `text` with control characters other than newline and tab written as `\u{1B}`.
    static func escapingControls(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            if u.properties.generalCategory == .control && u != "\n" && u != "\t" {
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// True when the arguments run a query verb with --json (before any `--`).
    static func wantsJSON(_ arguments: [String]) -> Bool {
        guard let verb = arguments.first, queryVerbs.contains(verb) else { return false }
        return arguments.prefix { $0 != "--" }.contains("--json")
    }
}
