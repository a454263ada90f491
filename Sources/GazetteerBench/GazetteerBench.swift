import Foundation
import Gazetteer

/// In-process benchmarks on a warm database: latency percentiles per operation, and a
/// generator of random points inside China for batch runs. Figures, never pass/fail.
///
///     gazetteer-bench reverse --db PATH [--queries N]
///     gazetteer-bench points --db PATH --count N [--seed S] > points.txt
@main
struct GazetteerBench {
    static func main() throws {
        var args = Array(CommandLine.arguments.dropFirst())
        guard let verb = args.first else { usage(); return }
        args.removeFirst()
        func option(_ name: String) -> String? {
            guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
            return args[i + 1]
        }
        let db = option("--db") ?? ProcessInfo.processInfo.environment["GAZETTEER_DB"] ?? DefaultDatabase.path
        let seed = UInt64(option("--seed") ?? "42") ?? 42
        switch verb {
        case "points":
            let count = Int(option("--count") ?? "1000000") ?? 1_000_000
            try points(Repository(path: db), count: count, seed: seed)
        case "reverse":
            let queries = Int(option("--queries") ?? "20000") ?? 20_000
            try reverse(Repository(path: db), queries: queries, seed: seed, pointsFile: option("--points"))
        default:
            usage()
        }
    }

    static func usage() {
        print("""
            usage: gazetteer-bench reverse [--db PATH] [--queries N] [--seed S]
                   gazetteer-bench points  [--db PATH] [--count N] [--seed S]   (LNG,LAT lines inside China, GCJ-02)
            """)
    }

    /// Random points inside the data: uniform in China's box, kept when they land in a district.
    static func insideChina(_ repo: Repository, count: Int, rng: inout SplitMix64) throws -> [Coordinate] {
        var out: [Coordinate] = []
        out.reserveCapacity(count)
        while out.count < count {
            let c = Coordinate(longitude: 73.5 + Double.random(in: 0..<61.6, using: &rng),
                               latitude: 18.0 + Double.random(in: 0..<35.6, using: &rng))
            if try !repo.reverseGeocode(c, radius: 0).address.isEmpty { out.append(c) }
        }
        return out
    }

    static func points(_ repo: Repository, count: Int, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let out = FileHandle.standardOutput
        var remaining = count
        while remaining > 0 {
            let block = try insideChina(repo, count: min(remaining, 50_000), rng: &rng)
            out.write(Data(block.map { String(format: "%.6f,%.6f\n", $0.longitude, $0.latitude) }.joined().utf8))
            remaining -= block.count
        }
    }

    static func reverse(_ repo: Repository, queries: Int, seed: UInt64, pointsFile: String?) throws {
        var rng = SplitMix64(seed: seed)
        let points: [Coordinate]
        if let pointsFile {
            points = try String(contentsOfFile: pointsFile, encoding: .utf8).split(separator: "\n").prefix(queries)
                .map { try Coordinate(parsing: String($0)) }
        } else {
            points = try insideChina(repo, count: queries, rng: &rng)
        }
        // Cities, where POIs are: around the seed's POIs.
        print(header())
        for (label, radius) in [("reverse, admin only (radius 0)", 0.0), ("reverse + POIs within 1 km", 1000.0)] {
            for p in points.prefix(2000) { _ = try repo.reverseGeocode(p, radius: radius) } // warm
            let stats = try measure(points) { _ = try repo.reverseGeocode($0, radius: radius) }
            print(row(label, stats))
        }
        let hangzhou = (0..<queries).map { _ in
            Coordinate(longitude: 120.0 + Double.random(in: 0..<0.4, using: &rng), latitude: 30.1 + Double.random(in: 0..<0.3, using: &rng))
        }
        let stats = try measure(hangzhou) { _ = try repo.reverseGeocode($0, radius: 1000) }
        print(row("reverse + POIs, Hangzhou (dense OSM)", stats))
    }

    struct Stats { var p50: Double; var p99: Double; var mean: Double; var count: Int }

    static func measure<T>(_ inputs: [T], _ body: (T) throws -> Void) throws -> Stats {
        var times: [Double] = []
        times.reserveCapacity(inputs.count)
        let clock = ContinuousClock()
        for input in inputs {
            let start = clock.now
            try body(input)
            let d = clock.now - start
            times.append(Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12)
        }
        times.sort()
        return Stats(p50: times[times.count / 2], p99: times[min(times.count - 1, times.count * 99 / 100)],
                     mean: times.reduce(0, +) / Double(times.count), count: times.count)
    }

    static func header() -> String {
        pad("operation", 44) + pad("queries", 9) + pad("p50 µs", 10) + pad("p99 µs", 10) + "mean µs"
    }

    static func row(_ label: String, _ s: Stats) -> String {
        pad(label, 44) + pad(String(s.count), 9) + pad(String(format: "%.1f", s.p50), 10)
            + pad(String(format: "%.1f", s.p99), 10) + String(format: "%.1f", s.mean)
    }

    static func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
}

/// A small deterministic generator, so the same seed gives the same points everywhere.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
