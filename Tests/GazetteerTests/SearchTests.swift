import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.seed), .skippedInFastRuns) struct SearchTests {
    let repo = SeedDatabase.repository

    func search(_ text: String, _ configure: (inout SearchOptions) -> Void = { _ in }) throws -> SearchResult {
        var options = SearchOptions()
        configure(&options)
        return try repo.search(text, options: options)
    }

    func regionCode(_ hit: SearchHit) -> String? {
        if case .region(let r) = hit.kind { return r.code }
        return nil
    }

    @Test func fullAndShortNames() throws {
        let full = try search("灵隐街道")
        #expect(regionCode(full.hits[0]) == "330106003000")
        #expect(full.hits[0].match == .exact)
        #expect(full.hits[0].levelName == "town")
        let short = try search("灵隐")
        #expect(regionCode(short.hits[0]) == "330106003000")
        #expect(short.hits[0].match == .exact)
        let district = try search("西湖区")
        #expect(Set(district.hits.prefix(2).compactMap(regionCode)) == ["330106", "360103"])
        let poi = try search("北京大学")
        guard case .poi(let p) = poi.hits[0].kind else { Issue.record("北京大学 is not a POI hit first"); return }
        #expect(p.name == "北京大学" && poi.hits[0].match == .exact)
        #expect(p.adcode == "110108" && (p.townCode12.map { $0.count == 12 && $0.hasPrefix("110108") } ?? true))
        #expect(poi.hits[0].district?.name == "海淀区")
        // Words separated by a space each match, as in AMap's search: 北京 大学 finds 北京大学.
        let words = try search("北京 大学")
        #expect(words.hits.prefix(5).contains { $0.name == "北京大学" }, "\(words.hits.prefix(5).map(\.name))")
        #expect(!words.hits.isEmpty && words.hits.allSatisfy { $0.name.contains("北京") && $0.name.contains("大学") })
    }

    /// Functional zones are found by the names people write, as AMap finds them: a place of
    /// their own code in the city holding them, at an approximate centre.
    @Test func functionalZonesAreFound() throws {
        let r = try search("长春经开区")
        let hit = try #require(r.hits.first)
        #expect(regionCode(hit) == "220171" && hit.name == "长春经济技术开发区" && hit.match == .exact)
        #expect(hit.city?.name == "长春市" && hit.province?.name == "吉林省" && hit.location != nil)
        let park = try search("苏州工业园区")
        #expect(regionCode(park.hits[0]) == "320576")
        #expect(try search("两江新区").hits.filter { regionCode($0) == "500157" }.count == 1)  // a region and a zone: once
        let scoped = try search("工业园区") { $0.city = "苏州"; $0.cityLimit = true }
        #expect(scoped.hits.contains { regionCode($0) == "320576" } && scoped.hits.allSatisfy { $0.city?.name == "苏州市" })
    }

    @Test func oneAndTwoCharacterQueries() throws {
        let wangjing = try search("望京")
        #expect(wangjing.hits.contains { regionCode($0) == "110105026000" })
        let chaoyang = try search("朝阳", { $0.limit = 200 })
        let codes = Set(chaoyang.hits.compactMap(regionCode))
        #expect(codes.isSuperset(of: ["110105", "220104", "211300"])) // 北京朝阳区, 长春朝阳区, 朝阳市
        // A single character finds names containing it anywhere (an index, not a scan).
        let one = try search("隐", { $0.limit = 200 })
        #expect(one.hits.contains { regionCode($0) == "330106003000" })
        #expect(one.hits.allSatisfy { $0.name.contains("隐") })
    }

    @Test func rankingExactBeforePrefixBeforeSubstringThenLevel() throws {
        let r = try search("西湖", { $0.limit = 200 })
        let ranks = r.hits.map(\.match)
        #expect(ranks == ranks.sorted())
        #expect(Set(ranks).count >= 2 && r.hits.count > 20, "more than one match class to order: \(r.hits.count) hits")
        // Within one match class, higher levels come first.
        for m in [SearchHit.Match.exact, .prefix, .substring] {
            let levels = r.hits.filter { $0.match == m }.map { ["province", "city", "district", "town", "poi"].firstIndex(of: $0.levelName)! }
            #expect(levels == levels.sorted(), "\(m)")
        }
        #expect(r.hits.allSatisfy { $0.name.contains("西湖") })
    }

    @Test func everyNamesakeIsListed() throws {
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        for name in ["城关镇", "西湖"] {
            guard case .integer(let expected) = try db.scalar("SELECT count(*) FROM region WHERE name = ?1 OR short_name = ?1", [.text(name)]) else {
                Issue.record("\(name): no count"); continue
            }
            #expect(expected > 1, "\(name) has namesakes")
            let r = try search(name, { $0.limit = 200 })
            let exact = r.hits.filter { $0.match == .exact && regionCode($0) != nil }
            #expect(exact.count == Int(expected), "\(name): \(exact.count) of \(expected)")
        }
        #expect(try search("城关镇", { $0.limit = 200 }).hits.filter { $0.match == .exact }.count >= 50)
    }

    @Test func pinyinWholeAndInitials() throws {
        let whole = try search("xihu", { $0.limit = 50 })
        #expect(whole.hits.contains { regionCode($0) == "330106" && $0.match == .exact })
        let initials = try search("xh", { $0.limit = 200 })
        #expect(initials.hits.contains { regionCode($0) == "330106" })
        let city = try search("hangzhou")
        #expect(regionCode(city.hits[0]) == "330100")
        let suffixed = try search("hangzhoushi")
        #expect(regionCode(suffixed.hits[0]) == "330100")
        let prefix = try search("hangz")
        #expect(regionCode(prefix.hits[0]) == "330100")
        #expect(prefix.hits[0].match == .prefix)
    }

    @Test func cityScopingRanksAndLimits() throws {
        let ranked = try search("西湖", { $0.city = "南昌市"; $0.limit = 5 })
        #expect(regionCode(ranked.hits[0]) == "360103")
        let byCode = try search("西湖", { $0.city = "330100"; $0.limit = 5 })
        #expect(regionCode(byCode.hits[0]) == "330106")
        let limited = try search("大学", { $0.city = "杭州市"; $0.cityLimit = true; $0.limit = 200 })
        #expect(!limited.hits.isEmpty)
        #expect(limited.hits.allSatisfy { $0.city?.name == "杭州市" })
        let municipality = try search("大学", { $0.city = "北京"; $0.cityLimit = true; $0.limit = 200 })
        #expect(!municipality.hits.isEmpty && municipality.hits.allSatisfy { $0.province?.name == "北京市" })
        #expect(throws: GazetteerError.self) { _ = try search("西湖", { $0.city = "不存在市" }) }
    }

    @Test func locationBiasesAndMeasures() throws {
        let hangzhou = Coordinate(longitude: 120.1551, latitude: 30.2741)
        let r = try search("西湖区", { $0.location = hangzhou })
        #expect(regionCode(r.hits[0]) == "330106")
        #expect((r.hits[0].distance ?? .infinity) < 20_000)
        let campuses = try search("浙江大学", { $0.location = hangzhou; $0.limit = 50 })
        for m in [SearchHit.Match.exact, .prefix, .substring] {
            let d = campuses.hits.filter { $0.match == m && $0.levelName == "poi" }.compactMap(\.distance)
            #expect(d == d.sorted())
        }
        #expect(campuses.hits.count(where: { $0.distance != nil }) >= 5, "distances are measured")
        for hit in campuses.hits {
            if let d = hit.distance, let l = hit.location { #expect(abs(hangzhou.distance(to: l) - d) < 0.01) }
        }
    }

    @Test func typesFilterPOIs() throws {
        let r = try search("学", { $0.types = ["141201"]; $0.limit = 50 })
        #expect(!r.hits.isEmpty)
        #expect(r.hits.allSatisfy { if case .poi(let p) = $0.kind { return p.typecode == "141201" } else { return false } })
        let words = try search("杭州", { $0.types = ["高等院校"]; $0.limit = 50 })
        #expect(!words.hits.isEmpty && words.hits.allSatisfy { $0.levelName == "poi" })
    }

    @Test func pagingContinuesWithoutRepeats() throws {
        let all = try search("城关镇", { $0.limit = 200 }).hits.map(\.name)
        var paged: [String] = []
        for page in 1...5 { paged += try search("城关镇", { $0.limit = 20; $0.page = page }).hits.map(\.name) }
        #expect(paged == Array(all.prefix(paged.count)))
    }

    /// Past the ranked window of a common word (a hundred rows per class), pages go on in one
    /// order: ten pages of 20 are the first 200 hits, with and without a location.
    @Test(arguments: [false, true])
    func pagingPastTheRankedWindowIsConsistent(located: Bool) throws {
        func key(_ h: SearchHit) -> String {
            switch h.kind {
            case .poi(let p): return "poi " + p.id
            case .region(let r): return "region \(r.code)"
            }
        }
        let configure: (inout SearchOptions) -> Void = { if located { $0.location = Coordinate(longitude: 120.15, latitude: 30.27) } }
        let all = try search("学院", { configure(&$0); $0.limit = 200 })
        #expect(all.count > 300, "the word must be common enough to pass the window: \(all.count)")
        var paged: [String] = []
        for page in 1...10 { paged += try search("学院", { configure(&$0); $0.limit = 20; $0.page = page }).hits.map(key) }
        #expect(paged.count == 200)
        #expect(Set(paged).count == paged.count)
        #expect(paged == all.hits.map(key))
    }

    @Test func operatorsAndSQLAreSearchedAsText() throws {
        let plain = try search("西湖").hits.map(\.name)
        for text in ["\"西湖\"", "西湖*", "^西湖", "name:西湖", "(西湖)", "西湖 OR 东湖", "NEAR(西湖)", "西湖 AND", "NOT 西湖"] {
            let r = try search(text)
            #expect(r.hits.allSatisfy { $0.name.contains("西湖") || $0.name.lowercased().contains("or") }, "\(text)")
        }
        // Punctuation only separates words: the quoted text finds what the bare text finds.
        #expect(Set(try search("\"西湖\"", { $0.limit = 200 }).hits.map(\.name)) == Set(try search("西湖", { $0.limit = 200 }).hits.map(\.name)))
        #expect(!plain.isEmpty)
        for text in ["'; DROP TABLE region; --", "\"", "*", ":", "()", "AND", "OR", "NEAR", "' OR '1'='1", "%", "_"] {
            _ = try search(text)
        }
        #expect(try repo.info().regionCounts["town"] ?? 0 > 38_000)
        #expect(try search("   ").hits.isEmpty)
        #expect(throws: GazetteerError.self) { _ = try search(String(repeating: "西", count: 1_000_000)) }
    }

    /// A server's searches ranked by distance measure the matches from memory once they have
    /// read enough rows from the database; the hits, their order and their distances are the
    /// ones read from the database, page after page.
    @Test func rankedByDistanceTheSameOnceCoordinatesAreInMemory() throws {
        let inMemory = try Repository(path: SeedDatabase.path)
        // One search, even of a common word, does not load every POI's coordinates.
        var near = SearchOptions()
        near.location = Coordinate(longitude: 120.15, latitude: 30.27)
        _ = try inMemory.search("学", options: near)
        #expect(try inMemory.read { inMemory.regions.poiPoints($0) } == nil)
        try inMemory.read { db in inMemory.regions.notePOIsMeasured(1 << 40, db) }
        let points = try #require(try inMemory.read { inMemory.regions.poiPoints($0) })
        // They are the POIs' own coordinates.
        try inMemory.read { db in
            let rows = try db.makeStatement("SELECT rowid, lng, lat FROM poi").rows { ($0.int64(0), $0.double(1), $0.double(2)) }
            #expect(rows.count > 9_000)
            for (rowid, lng, lat) in rows {
                #expect(points.coordinate(rowid) == Coordinate(longitude: lng, latitude: lat), "rowid \(rowid)")
            }
            #expect(points.coordinate(rows.map(\.0).max()! + 1) == nil)
            #expect(points.coordinate(-1) == nil)
        }
        func key(_ h: SearchHit) -> String {
            switch h.kind {
            case .poi(let p): "poi \(p.id) \(h.distance ?? -1)"
            case .region(let r): "region \(r.code) \(h.distance ?? -1)"
            }
        }
        let places = [Coordinate(longitude: 120.15, latitude: 30.27), Coordinate(longitude: 116.397535, latitude: 39.909115),
                      Coordinate(longitude: 87.6, latitude: 43.8)]
        for word in ["学", "路", "大学", "中国", "银行", "学院", "西湖", "小学"] {
            for place in places {
                for page in [1, 2, 7] {
                    var options = SearchOptions()
                    (options.location, options.page) = (place, page)
                    // A repository of its own per search: two searches of a common word load them.
                    let fromDisk = try Repository(path: SeedDatabase.path)
                    let expected = try fromDisk.search(word, options: options)
                    #expect(try fromDisk.read { fromDisk.regions.poiPoints($0) } == nil)
                    let got = try inMemory.search(word, options: options)
                    #expect(got.count == expected.count && got.hits.map(key) == expected.hits.map(key), "\(word) near \(place), page \(page)")
                }
            }
        }
    }

    /// Rowids far sparser than the rows (a table thinned by hand) are not kept as an array.
    @Test func sparseRowidsAreNotLoaded() {
        #expect(POIPoints.worthLoading(maxRowid: 1_000_000, count: 990_000))
        #expect(POIPoints.worthLoading(maxRowid: 0, count: 0))
        #expect(!POIPoints.worthLoading(maxRowid: 50_000_000, count: 1_000))
    }
}
