import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// Many queries at once on one `Repository`, and queries while an import writes: every answer
/// must be the one a single caller gets, and during an import the one from before or from after
/// it, never a mix.
@Suite struct ConcurrencyTests {
    // MARK: - the questions

    /// One question to a repository, and its answer in a comparable form.
    enum Query: Sendable, CustomStringConvertible {
        case reverse(Coordinate, radius: Double)
        case nearby(Coordinate, keywords: String?, types: [String])
        case search(String, city: String?, location: Coordinate?)
        case geocode(String, city: String?)
        case districts(String?, subdistrict: Int)
        case info

        var description: String {
            switch self {
            case .reverse(let c, let r): return "reverse \(c.longitude),\(c.latitude) r=\(r)"
            case .nearby(let c, let k, let t): return "nearby \(c.longitude),\(c.latitude) \(k ?? "") \(t)"
            case .search(let s, let c, _): return "search \(s) \(c ?? "")"
            case .geocode(let s, let c): return "geocode \(s) \(c ?? "")"
            case .districts(let s, let d): return "district \(s ?? "-") \(d)"
            case .info: return "info"
            }
        }

        /// The answer in full (every field, through `String(reflecting:)`), so that equal text
        /// means equal answers; an error is an answer too (and then never the expected one).
        func answer(_ r: Repository) -> String {
            do {
                switch self {
                case .reverse(let c, let radius):
                    return String(reflecting: try r.reverseGeocode(c, radius: radius))
                case .nearby(let c, let keywords, let types):
                    var o = NearbyOptions()
                    o.radius = 2_000
                    o.keywords = keywords
                    o.types = types
                    o.limit = 10
                    o.countAll = true
                    return String(reflecting: try r.nearby(c, options: o))
                case .search(let text, let city, let location):
                    var o = SearchOptions()
                    o.city = city
                    o.location = location
                    o.limit = 10
                    return String(reflecting: try r.search(text, options: o))
                case .geocode(let text, let city):
                    return String(reflecting: try r.geocode(text, city: city))
                case .districts(let keyword, let depth):
                    return String(reflecting: try r.districts(keyword, subdistrict: depth))
                case .info:
                    // Not the file size: the file grows while an import writes.
                    let i = try r.info()
                    return "\(i.regionCounts.sorted { $0.key < $1.key }) \(i.poiCount) \(i.boundaryCount) \(i.datasetVersion)"
                }
            } catch {
                return "error: \(error)"
            }
        }
    }

    static let seedQueries: [Query] = {
        let points: [(Double, Double)] = [
            (116.397477, 39.908692), (120.1551, 30.2741), (120.130194, 30.259463), (113.7518, 23.0205),
            (121.4737, 31.2304), (104.0657, 30.6595), (87.6168, 43.8256), (126.6425, 45.7567),
            (120.101, 30.241), (114.1694, 22.3193), (113.5439, 22.1987), (150.0, 10.0),
        ]
        var q: [Query] = []
        for (i, (lng, lat)) in points.enumerated() {
            let c = Coordinate(longitude: lng, latitude: lat)
            q.append(.reverse(c, radius: i % 3 == 0 ? 0 : 1_000))
            q.append(.nearby(c, keywords: i % 4 == 1 ? "银行" : nil, types: i % 4 == 2 ? ["餐饮"] : []))
        }
        for text in ["灵隐", "xihu", "西湖", "银行", "鼓楼", "浙江大学", "北京", "城关镇", "hz", "中山路"] {
            q.append(.search(text, city: nil, location: nil))
        }
        q.append(.search("西湖", city: "330100", location: Coordinate(longitude: 120.1551, latitude: 30.2741)))
        q.append(.search("银行", city: "杭州", location: Coordinate(longitude: 120.1551, latitude: 30.2741)))
        for text in ["浙江省杭州市西湖区灵隐街道法云弄16号", "浙江大学紫金港校区", "北京市东城区", "西湖区", "广东东莞南城", "鼓楼区"] {
            q.append(.geocode(text, city: nil))
        }
        q.append(.geocode("西湖区", city: "南昌"))
        for (keyword, depth) in [("杭州市", 1), ("鼓楼", 0), ("330106", 1), ("110000", 2), ("灵隐街道", 0)] as [(String?, Int)] {
            q.append(.districts(keyword, subdistrict: depth))
        }
        q.append(.districts(nil, subdistrict: 1))
        q.append(.info)
        return q
    }()

    // MARK: - many readers, no writer

    /// 8 workers × 500 mixed questions on one repository whose caches start cold, so workers
    /// fill them at the same time. Every answer equals the answer to the same question asked
    /// alone, on another repository.
    @Test(.tags(.seed), .skippedInFastRuns) func concurrentQueriesGiveTheSequentialAnswers() throws {
        let queries = Self.seedQueries
        let sequential = try Repository(path: SeedDatabase.path)
        let expected = queries.map { $0.answer(sequential) }
        for (q, a) in zip(queries, expected) {
            if a.hasPrefix("error") { Issue.record("\(q) fails on its own: \(a)") }
        }
        for shared in [try Repository(path: SeedDatabase.path), SeedDatabase.repository] {
            let workers = 8, perWorker = 500
            let mismatches = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                for i in 0..<perWorker {
                    // Each worker walks the questions in its own order.
                    let k = (i * (2 * w + 1) + w * 7) % queries.count
                    let got = queries[k].answer(shared)
                    if got != expected[k] {
                        mismatches.withLock { if $0.count < 5 { $0.append("worker \(w): \(queries[k]): got \(got.prefix(500))") } }
                    }
                }
            }
            #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0 }.joined(separator: "\n"))")
        }
    }

    /// The same from Swift concurrency: a task group of mixed questions.
    @Test(.tags(.seed), .skippedInFastRuns) func taskGroupQueriesGiveTheSequentialAnswers() async throws {
        let queries = Self.seedQueries
        let repository = try Repository(path: SeedDatabase.path)
        let expected = queries.map { $0.answer(SeedDatabase.repository) }
        let wrong = await withTaskGroup(of: String?.self) { group in
            for round in 0..<4 {
                for (k, q) in queries.enumerated() {
                    group.addTask {
                        let got = q.answer(repository)
                        return got == expected[k] ? nil : "round \(round): \(q): got \(got.prefix(500))"
                    }
                }
            }
            var wrong: [String] = []
            for await w in group { if let w { wrong.append(w) } }
            return wrong
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5).joined(separator: "\n"))")
    }

    // MARK: - readers while an import writes

    /// The point the fixture's import changes the answers about: in 西湖区, near 浙江大学(玉泉校区).
    static let point = Coordinate(longitude: 120.123, latitude: 30.265)

    /// An import that renames 西湖区 and adds `count` POIs within about 300 m of `point`, in one
    /// transaction: a reader that saw the new name with the old POIs (or the reverse) is caught.
    static func changingImport(_ fixture: Fixture, count: Int) -> [String] {
        var pois = "id,name,type,typecode,lng,lat,adcode\n"
        for i in 0..<count {
            let a = Double(i) * 2.399963, r = 0.003 * (Double(i % 97) + 1) / 97
            pois += "new\(i),新店\(i)号,餐饮服务;中餐厅;中餐厅,050100,\(point.longitude + r * cos(a)),\(point.latitude + r * sin(a)),330106\n"
        }
        return [
            fixture.write("rename.csv", "code,parent,level,name,short_name\n330106,330100,district,西湖新区,西湖新\n"),
            fixture.write("new-pois.csv", pois),
        ]
    }

    static let fixtureQueries: [Query] = [
        .reverse(point, radius: 1_000),
        .reverse(point, radius: 0),
        .nearby(point, keywords: nil, types: []),
        .nearby(point, keywords: nil, types: ["050100"]),
        .search("西湖", city: nil, location: point),
        .search("店", city: "330106", location: nil),
        .geocode("浙江省杭州市西湖区灵隐街道", city: nil),
        .districts("330100", subdistrict: 1),
        .info,
    ]

    func freshFixture() throws -> Fixture {
        let fixture = Fixture()
        try fixture.run([
            fixture.write("regions.csv", Fixture.regions), fixture.write("boundaries.csv", Fixture.boundaries),
            fixture.write("pois.csv", Fixture.pois),
        ])
        return fixture
    }

    /// Readers on several threads keep asking while an Importer in the same process writes;
    /// each answer is the before-answer or the after-answer, and nothing fails.
    @Test(.tags(.fast)) func readersDuringAnImportSeeBeforeOrAfter() throws {
        let fixture = try freshFixture()
        let files = Self.changingImport(fixture, count: 3_000)
        let queries = Self.fixtureQueries
        let before = queries.map { $0.answer(try! Repository(path: fixture.database)) }
        // The answers after, from a copy that has had the import.
        let copy = Fixture()
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: fixture.database + suffix) {
            try FileManager.default.copyItem(atPath: fixture.database + suffix, toPath: copy.database + suffix)
        }
        try copy.run(files)
        let after = queries.map { $0.answer(try! Repository(path: copy.database)) }
        for (k, q) in queries.enumerated() where q.description != "info" {
            #expect(before[k] != after[k], "the import does not change \(q); the test would prove little")
        }

        let repository = try Repository(path: fixture.database)
        _ = queries.map { $0.answer(repository) } // warm caches, as a long-running server has them
        let done = Atomic<Bool>(false)
        // The library's NSLock-based Locked, not Synchronization.Mutex: ThreadSanitizer cannot
        // see Mutex's futex on Linux and reports every access under it as a race.
        let failure = Locked<Error?>(nil)
        nonisolated(unsafe) let writing = fixture
        let writer = Thread {
            do { try writing.run(files) } catch { failure.withLock { $0 = error } }
            done.store(true, ordering: .sequentiallyConsistent)
        }
        struct Tally { var before = 0, after = 0, wrong: [String] = [] }
        let tally = Locked(Tally())
        writer.start()
        DispatchQueue.concurrentPerform(iterations: 4) { w in
            var extra = 0
            var i = w
            // Keep asking until the import is over, and a little after.
            while extra < 3 * queries.count {
                if done.load(ordering: .sequentiallyConsistent) { extra += 1 }
                let k = i % queries.count
                let got = queries[k].answer(repository)
                tally.withLock {
                    if got == before[k] { $0.before += 1 } else if got == after[k] { $0.after += 1 } else if $0.wrong.count < 5 {
                        $0.wrong.append("\(queries[k]): \(got.prefix(500))")
                    }
                }
                i += 1
            }
        }
        #expect(failure.withLock { $0 } == nil, "the import failed: \(String(describing: failure.withLock { $0 }))")
        let t = tally.withLock { $0 }
        #expect(t.wrong.isEmpty, "answers that are neither before nor after:\n\(t.wrong.joined(separator: "\n"))")
        #expect(t.after > 0)
        // Once it is over, every answer is the new one.
        for (k, q) in queries.enumerated() { #expect(q.answer(repository) == after[k], "\(q)") }
    }

    /// A query that began before an import commits keeps reading its own snapshot; the
    /// repository's region cache must neither hand it regions from after the import nor keep
    /// regions it loaded from before the import for the queries that follow.
    @Test(.tags(.fast)) func regionCacheFollowsSnapshots() throws {
        let fixture = try freshFixture()
        let files = Self.changingImport(fixture, count: 10)
        let repository = try Repository(path: fixture.database)
        _ = try repository.districts("110000") // the cache now holds generation 1
        let (old, seenByOld) = try repository.read { db -> (String?, String?) in
            // This read transaction sees the data before the import, whatever happens next.
            let old = try repository.regions.entry(330100, db)?.name
            try fixture.run(files)
            // Another query starts after the commit and fills the cache from the new data.
            #expect(try repository.districts("330106").first?.region.name == "西湖新区")
            // Back in the old snapshot: 西湖区 as it was, not the cached new name.
            let seenByOld = try repository.regions.entry(330106, db)?.name
            return (old, seenByOld)
        }
        #expect(old == "杭州市")
        #expect(seenByOld == "西湖区")

        // Now the other order: an old snapshot loads a region first, then newer queries ask.
        let fixture2 = try freshFixture()
        let files2 = Self.changingImport(fixture2, count: 10)
        let repository2 = try Repository(path: fixture2.database)
        _ = try repository2.districts("110000")
        try repository2.read { db in
            try fixture2.run(files2)
            _ = try repository2.districts("110000") // a query in the new snapshot
            #expect(try repository2.regions.entry(330106, db)?.name == "西湖区") // loaded in the old one
        }
        #expect(try repository2.districts("330106").first?.region.name == "西湖新区")
        #expect(try repository2.reverseGeocode(Self.point, radius: 0).address.district?.name == "西湖新区")
    }
}
