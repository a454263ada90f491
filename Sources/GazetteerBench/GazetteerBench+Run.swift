import ArgumentParser
import Foundation
import Gazetteer
#if canImport(Glibc)
import Glibc
#endif

/// `gazetteer-bench run`: one measured case over a file of inputs that the peers of
/// Scripts/benchmark.py read too, so every tool answers exactly the same queries. One process
/// per case, so its peak RSS is that operation's.
///
///     gazetteer-bench run --db PATH --op reverse|nearby|search|geocode --input FILE
///                         [--radius M] [--limit N]
///
/// Input lines: `LNG,LAT` (reverse, nearby), `WORD` or `WORD<TAB>LNG,LAT` (search, the second
/// part is the location to rank by), an address (geocode). Prints one JSON object:
/// queries, p50_us, p99_us, mean_us, per_second, mean_results, peak_rss_kb, open_ms.
extension GazetteerBench {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One timed case over the inputs Scripts/benchmark.py shares with the peers; prints one JSON object.")

        /// The public API call measured.
        enum Operation: String, CaseIterable, ExpressibleByArgument {
            case reverse, nearby, search, geocode
        }

        @OptionGroup var database: BenchDatabase

        @Option(help: "The call measured.")
        var op: Operation

        @Option(help: ArgumentHelp("The inputs, one a line: LNG,LAT (reverse, nearby), WORD or WORD<TAB>LNG,LAT (search), an address (geocode).", valueName: "file"))
        var input: String

        @Option(help: ArgumentHelp("Radius in metres (default: reverse 0, nearby 1000).", valueName: "m"))
        var radius: Double?

        @Option(help: ArgumentHelp("Most results per query.", valueName: "n"))
        var limit = 20

        @Option(help: ArgumentHelp("Also write each query's answer (search: every hit's kind, key and distance), one line per query, after the timing: to compare two builds.", valueName: "file"))
        var answers: String?

        func run() throws {
            let db = database.path
            guard let text = try? String(contentsOfFile: input, encoding: .utf8) else {
                throw BenchError("cannot read \(input) as UTF-8 text")
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard !lines.isEmpty else { throw BenchError("\(input): no queries") }
            let clock = ContinuousClock()
            let opened = clock.now
            let repo = try Repository(path: db)
            let openTime = clock.now - opened

            // Inputs are parsed before timing; `body(i)` answers the i-th one.
            let body: (Int) throws -> Int
            var answer: ((Int) throws -> String)?
            switch op {
            case .reverse:
                let points = try lines.map { try Coordinate(parsing: $0) }
                let r = radius ?? 0
                body = { try repo.reverseGeocode(points[$0], radius: r, poiLimit: limit).address.isEmpty ? 0 : 1 }
            case .nearby:
                let points = try lines.map { try Coordinate(parsing: $0) }
                var o = NearbyOptions()
                o.radius = radius ?? 1000
                o.limit = limit
                body = { try repo.nearby(points[$0], options: o).pois.count }
            case .search:
                let inputs: [(String, Coordinate?)] = try lines.map { line in
                    let f = line.split(separator: "\t", maxSplits: 1).map(String.init)
                    return (f[0], f.count > 1 ? try Coordinate(parsing: f[1]) : nil)
                }
                var o = SearchOptions()
                o.limit = limit
                body = {
                    o.location = inputs[$0].1
                    return try repo.search(inputs[$0].0, options: o).hits.count
                }
                answer = {
                    o.location = inputs[$0].1
                    let r = try repo.search(inputs[$0].0, options: o)
                    return "\(r.count)" + r.hits.map { h in
                        let key = switch h.kind {
                        case .poi(let p): "p" + p.id
                        case .region(let g): "r" + g.code
                        }
                        return " " + key + (h.distance.map { String(format: "@%.3f", $0) } ?? "")
                    }.joined()
                }
            case .geocode:
                body = { try repo.geocode(lines[$0]) == nil ? 0 : 1 }
            }

            // A whole untimed pass first (pages, parsed polygons, statement caches), as every peer
            // gets, then each query timed once, in file order.
            for i in lines.indices { _ = try body(i) }
            var total = 0
            let stats = try measure(Array(lines.indices)) { total += try body($0) }
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let fields: [(String, String)] = [
                ("op", "\"\(op.rawValue)\""),
                ("queries", String(stats.count)),
                ("p50_us", String(format: "%.2f", stats.p50)),
                ("p99_us", String(format: "%.2f", stats.p99)),
                ("mean_us", String(format: "%.2f", stats.mean)),
                ("per_second", String(format: "%.0f", 1e6 / stats.mean)),
                ("mean_results", String(format: "%.2f", Double(total) / Double(stats.count))),
                ("peak_rss_kb", String(usage.ru_maxrss)),
                ("open_ms", String(format: "%.1f", Double(openTime.components.attoseconds) / 1e15 + Double(openTime.components.seconds) * 1e3)),
            ]
            print("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
            if let answers {
                guard let answer else { throw BenchError("--answers is written for search only") }
                let text = try lines.indices.map { try answer($0) + "\n" }.joined()
                guard FileManager.default.createFile(atPath: answers, contents: Data(text.utf8)) else {
                    throw BenchError("cannot write \(answers)")
                }
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
