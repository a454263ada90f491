import Foundation
import Gazetteer

/// In-process benchmarks on a warm database: latency percentiles per operation, and a
/// generator of random points inside China for batch runs. Figures, never pass/fail.
///
///     gazetteer-bench reverse --db PATH [--queries N]
///     gazetteer-bench points --db PATH --count N [--seed S] > points.txt
///     gazetteer-bench nearby --db PATH [--queries N] [--emit-sql DIR] [--tsv FILE]
///     gazetteer-bench search --db PATH [--queries N] [--words FILE] [--emit-sql DIR] [--tsv FILE]
///     gazetteer-bench geocode --db PATH [--queries N] [--tsv FILE]
///
/// `--emit-sql DIR` writes, per measured case, the same inputs as plain SQL a user would
/// write against the tables (`DIR/<key>.sql`, one query a line), so Scripts/bench_search.sh
/// can time the bare R*Tree / FTS5 queries in the sqlite3 shell beside ours. `--tsv FILE`
/// appends `key, bare key, queries, p50, p99, mean, mean results` rows (µs) for that script.
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
        case "run":
            guard let op = option("--op"), let input = option("--input") else { usage(); return }
            try run(db: db, op: op, input: input, radius: option("--radius").flatMap(Double.init),
                    limit: Int(option("--limit") ?? "20") ?? 20)
        case "nearby", "search", "geocode":
            var out = Output(sqlDir: option("--emit-sql"), tsvPath: option("--tsv"))
            let repo = try Repository(path: db)
            switch verb {
            case "nearby":
                try nearby(repo, queries: Int(option("--queries") ?? "2000") ?? 2000, seed: seed, out: &out)
            case "search":
                try search(repo, queries: Int(option("--queries") ?? "600") ?? 600, seed: seed,
                           wordsFile: option("--words"), out: &out)
            default:
                try geocode(repo, queries: Int(option("--queries") ?? "2000") ?? 2000, seed: seed, out: &out)
            }
            try out.finish()
        default:
            usage()
        }
    }

    static func usage() {
        print("""
            usage: gazetteer-bench reverse [--db PATH] [--queries N] [--seed S]
                   gazetteer-bench points  [--db PATH] [--count N] [--seed S]   (LNG,LAT lines inside China, GCJ-02)
                   gazetteer-bench nearby  [--db PATH] [--queries N] [--seed S] [--emit-sql DIR] [--tsv FILE]
                   gazetteer-bench search  [--db PATH] [--queries N] [--seed S] [--words FILE] [--emit-sql DIR] [--tsv FILE]
                   gazetteer-bench geocode [--db PATH] [--queries N] [--seed S] [--tsv FILE]
                   gazetteer-bench run --op reverse|nearby|search|geocode --input FILE [--db PATH] [--radius M] [--limit N]
                       (one case over the inputs Scripts/benchmark.py shares with the peers; prints JSON)
            --words FILE: lines CLASS<TAB>WORD (Scripts/bench_search.sh derives them from the database's
            FTS vocabulary); without it only the built-in typical words are measured.
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

    struct Stats { var p50: Double; var p99: Double; var mean: Double; var count: Int; var results = 0.0 }

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

// MARK: - nearby, search, geocode (issue 5)

extension GazetteerBench {
    /// Where measured rows and the bare-SQL twins of their inputs go.
    struct Output {
        var sqlDir: String?
        var tsvPath: String?
        var tsv = ""

        init(sqlDir: String?, tsvPath: String?) {
            self.sqlDir = sqlDir
            self.tsvPath = tsvPath
            if let sqlDir { try? FileManager.default.createDirectory(atPath: sqlDir, withIntermediateDirectories: true) }
        }

        /// Prints a row; records it for the script with the key of its bare-SQL file.
        mutating func row(_ key: String, bare: String?, _ label: String, _ s: Stats) {
            print(Output.wide(label, 60) + pad(String(s.count), 9) + pad(String(format: "%.1f", s.p50), 10)
                + pad(String(format: "%.1f", s.p99), 10) + pad(String(format: "%.1f", s.mean), 10) + String(format: "%.1f", s.results))
            tsv += [key, bare ?? "-", String(s.count), String(format: "%.1f", s.p50), String(format: "%.1f", s.p99),
                    String(format: "%.1f", s.mean), String(format: "%.1f", s.results), label].joined(separator: "\t") + "\n"
        }

        /// Writes the bare queries of a case, one statement a line.
        func sql(_ key: String, _ statements: [String]) throws {
            guard let sqlDir else { return }
            try (statements.joined(separator: "\n") + "\n").write(toFile: sqlDir + "/" + key + ".sql", atomically: true, encoding: .utf8)
        }

        /// Pads to a terminal width, counting East Asian wide characters as two columns.
        static func wide(_ s: String, _ n: Int) -> String {
            let w = s.unicodeScalars.reduce(0) { $0 + ((0x1100...0x11FF).contains($1.value) || (0x2E80...0xA4CF).contains($1.value) || (0xAC00...0xD7A3).contains($1.value) || (0xF900...0xFAFF).contains($1.value) || (0xFF00...0xFF60).contains($1.value) || $1.value >= 0x20000 ? 2 : 1) }
            return s + String(repeating: " ", count: max(1, n - w))
        }

        static func header(_ last: String) -> String {
            pad("operation", 60) + pad("queries", 9) + pad("p50 µs", 10) + pad("p99 µs", 10) + pad("mean µs", 10) + last
        }

        func finish() throws {
            guard let tsvPath else { return }
            if !FileManager.default.fileExists(atPath: tsvPath) { FileManager.default.createFile(atPath: tsvPath, contents: nil) }
            let h = try FileHandle(forWritingTo: URL(fileURLWithPath: tsvPath))
            try h.seekToEnd()
            try h.write(contentsOf: Data(tsv.utf8))
            try h.close()
        }
    }

    /// City cores: 人民广场 (Shanghai), 天安门 (Beijing), 福田 (Shenzhen), GCJ-02.
    static let cores: [(String, Coordinate)] = [
        ("人民广场", Coordinate(longitude: 121.4737, latitude: 31.2304)),
        ("天安门", Coordinate(longitude: 116.3975, latitude: 39.9087)),
        ("福田", Coordinate(longitude: 114.0579, latitude: 22.5431)),
    ]

    /// `count` points uniform in discs of `radius` metres around the city cores, in turn.
    static func corePoints(count: Int, radius: Double, rng: inout SplitMix64) -> [Coordinate] {
        (0..<count).map { i in
            let c = cores[i % cores.count].1
            let r = radius * Double.random(in: 0..<1, using: &rng).squareRoot()
            let a = Double.random(in: 0..<(2 * .pi), using: &rng)
            return Coordinate(longitude: c.longitude + r * cos(a) / (111_320 * cos(c.latitude * .pi / 180)),
                              latitude: c.latitude + r * sin(a) / 110_574)
        }
    }

    /// The R*Tree query a user would write: the radius's box, nearest first by squared
    /// (east-scaled) degrees, 20 rows.
    static func bareNearbySQL(_ p: Coordinate, radius: Double) -> String {
        let dLat = radius / 110_574, k = cos(p.latitude * .pi / 180), dLng = radius / (111_320 * k)
        let x = String(format: "%.6f", p.longitude), y = String(format: "%.6f", p.latitude), kk = String(format: "%.6f", k * k)
        return String(format: "SELECT id, lng, lat FROM poi_rtree WHERE min_lng <= %.6f AND max_lng >= %.6f AND min_lat <= %.6f AND max_lat >= %.6f",
                      p.longitude + dLng, p.longitude - dLng, p.latitude + dLat, p.latitude - dLat)
            + " ORDER BY (lng - \(x)) * (lng - \(x)) * \(kk) + (lat - \(y)) * (lat - \(y)) LIMIT 20;"
    }

    /// Times `body` over `inputs` after one warm-up pass over the first few; `body` returns
    /// how many results it got, averaged into `Stats.results`.
    static func timed<T>(_ inputs: [T], _ body: (T) throws -> Int) throws -> Stats {
        for x in inputs.prefix(200) { _ = try body(x) }
        var total = 0
        var s = try measure(inputs) { total += try body($0) }
        s.results = Double(total) / Double(max(1, inputs.count))
        return s
    }

    static func nearby(_ repo: Repository, queries: Int, seed: UInt64, out: inout Output) throws {
        var rng = SplitMix64(seed: seed)
        let core = corePoints(count: queries, radius: 3000, rng: &rng)
        let country = try insideChina(repo, count: queries, rng: &rng)
        print(Output.header("mean results"))
        for (area, points) in [("core", core), ("country", country)] {
            for radius in [1000.0, 5000.0] {
                var o = NearbyOptions()
                o.radius = radius
                o.limit = 20
                o.page = 1
                let key = "nearby-\(area)-\(Int(radius / 1000))km"
                let stats = try timed(points) { try repo.nearby($0, options: o).pois.count }
                let place = area == "core" ? "city cores (≤3 km of 人民广场/天安门/福田)" : "inside China"
                out.row(key, bare: key, "nearby \(Int(radius / 1000)) km, \(place)", stats)
                try out.sql(key, points.map { bareNearbySQL($0, radius: radius) })
            }
        }
    }

    /// Words everyone types, measured one by one.
    static let typicalWords = ["店", "银行", "学校", "望京", "朝阳", "北京大学", "瑞幸咖啡"]

    /// The FTS5 query the library asks for a Han-only word (see SearchTokens.nameQuery).
    static func bareMatch(_ word: String) -> String {
        let h = Array(word.unicodeScalars)
        if h.count == 1 { return "chars : \"\(word)\"" }
        return "grams : \"" + (0..<(h.count - 1)).map { String(h[$0]) + String(h[$0 + 1]) }.joined(separator: " ") + "\""
    }

    static func search(_ repo: Repository, queries: Int, seed: UInt64, wordsFile: String?, out: inout Output) throws {
        var rng = SplitMix64(seed: seed)
        // Classes of words, in the file's order; typical words each a class of their own.
        var classes: [(String, [String])] = []
        if let wordsFile {
            for line in try String(contentsOfFile: wordsFile, encoding: .utf8).split(separator: "\n") {
                let f = line.split(separator: "\t", maxSplits: 1).map(String.init)
                guard f.count == 2, !f[1].isEmpty else { continue }
                if let i = classes.firstIndex(where: { $0.0 == f[0] }) { classes[i].1.append(f[1]) } else { classes.append((f[0], [f[1]])) }
            }
        }
        classes += typicalWords.map { ("typical " + $0, [$0]) }
        let origins = corePoints(count: queries, radius: 3000, rng: &rng)
        print(Output.header("mean hits"))
        for (name, words) in classes {
            let inputs = (0..<queries).map { (words[$0 % words.count], origins[$0]) }
            let key = "search-" + name.replacingOccurrences(of: " ", with: "-")
            for located in [false, true] {
                var o = SearchOptions()
                o.limit = 20
                let stats = try timed(inputs) { w, p in
                    o.location = located ? p : nil
                    return try repo.search(w, options: o).hits.count
                }
                let label = "search \(name) (\(words.count) words)" + (located ? " + location" : "")
                out.row(key + (located ? "+loc" : ""), bare: key, label, stats)
            }
            try out.sql(key, inputs.map { w, _ in
                "SELECT rowid FROM poi_fts WHERE poi_fts MATCH '\(bareMatch(w).replacingOccurrences(of: "'", with: "''"))' LIMIT 20;"
            })
        }
    }

    /// Hand-written addresses of the kinds people paste.
    static let typicalAddresses = [
        "北京市朝阳区望京街道阜通东大街6号", "浙江省杭州市西湖区灵隐街道法云弄16号", "上海市黄浦区人民大道200号",
        "广东省深圳市福田区福华三路", "北京大学", "杭州西湖区", "浙江杭州西湖灵隐", "西湖区灵隐街道",
        "江苏省南京市鼓楼区汉口路22号", "四川省成都市武侯区人民南路四段", "天安门", "湖北省武汉市洪山区珞喻路1037号",
    ]

    static func geocode(_ repo: Repository, queries: Int, seed: UInt64, out: inout Output) throws {
        var rng = SplitMix64(seed: seed)
        // Realistic addresses from the data: a POI near a random point (cores and elsewhere),
        // written as 省+市+区+address (AMap's formatted address) or as 市+POI name.
        var full: [String] = [], named: [String] = []
        let points = corePoints(count: queries / 2, radius: 3000, rng: &rng) + (try insideChina(repo, count: queries / 2, rng: &rng))
        var o = NearbyOptions()
        o.radius = 20_000
        o.limit = 1
        for p in points {
            guard let h = try repo.nearby(p, options: o).pois.first else { continue }
            let regions = [h.province, h.city, h.district].compactMap { $0?.name }
            var seen: [String] = []
            for r in regions where !seen.contains(r) { seen.append(r) }  // municipalities repeat
            if let a = h.poi.address, !a.isEmpty { full.append(seen.joined() + a) }
            named.append((h.city ?? h.province).map(\.name).map { $0 + h.poi.name } ?? h.poi.name)
        }
        print(Output.header("found"))
        let cases: [(String, String, [String])] = [
            ("geocode-typical", "geocode, hand-written (\(typicalAddresses.count) addresses)", typicalAddresses),
            ("geocode-full", "geocode, 省市区 + POI address from the data", full),
            ("geocode-poi", "geocode, 市 + POI name from the data", named),
        ]
        for (key, label, addresses) in cases where !addresses.isEmpty {
            let inputs = (0..<queries).map { addresses[$0 % addresses.count] }
            let stats = try timed(inputs) { try repo.geocode($0) == nil ? 0 : 1 }
            out.row(key, bare: nil, label, stats)
        }
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
