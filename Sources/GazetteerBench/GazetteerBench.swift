import ArgumentParser
import Foundation
import Gazetteer

/// Measurements for Scripts/benchmark.py (BENCHMARKS.md): random points inside China, and one
/// timed case at a time over a file of inputs that every peer answers too. Figures, never
/// pass/fail.
///
///     gazetteer-bench points --db PATH --count N [--seed S] > points.txt
///     gazetteer-bench run --db PATH --op reverse|nearby|search|geocode --input FILE [--radius M] [--limit N]
@main
struct GazetteerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gazetteer-bench",
        abstract: "Measurements for Scripts/benchmark.py: random points inside China, and one timed case over a file of inputs.",
        discussion: """
            The whole benchmark, with its peers: Scripts/benchmark.sh (BENCHMARKS.md).

            Exit status: 0 success; 1 the work failed (a database or input file that cannot be read, a bad \
            input line); 64 a usage error (an unknown verb or option, a missing or bad value).
            """,
        subcommands: [Points.self, Run.self])

    /// `gazetteer-bench points`: LNG,LAT lines inside China (GCJ-02), for the reverse and nearby cases.
    struct Points: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print random LNG,LAT points inside China (GCJ-02), one a line.")

        @OptionGroup var database: BenchDatabase

        @Option(help: ArgumentHelp("How many points.", valueName: "n"))
        var count = 1_000_000

        @Option(help: ArgumentHelp("Seed of the generator: the same seed gives the same points.", valueName: "s"))
        var seed: UInt64 = 42

        func run() throws {
            try GazetteerBench.points(Repository(path: database.path), count: count, seed: seed)
        }
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

/// `--db`: the database measured.
struct BenchDatabase: ParsableArguments {
    @Option(help: ArgumentHelp("The database (default: $GAZETTEER_DB, else the default database).", valueName: "path"))
    var db: String?

    var path: String { db ?? ProcessInfo.processInfo.environment["GAZETTEER_DB"] ?? DefaultDatabase.path }
}
