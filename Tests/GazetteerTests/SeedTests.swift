import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.seed), .skippedInFastRuns) struct SeedTests {
    @Test func nationalCountsAtEveryLevel() throws {
        let info = try SeedDatabase.repository.info()
        #expect((34...35).contains(info.regionCounts["province"] ?? 0))
        #expect((330...400).contains(info.regionCounts["city"] ?? 0))
        #expect((2_800...3_400).contains(info.regionCounts["district"] ?? 0))
        #expect((38_000...42_000).contains(info.regionCounts["town"] ?? 0))
        #expect(info.boundaryCount >= 3_000)
        #expect(info.poiCount >= 9_000)
        #expect(info.approximateTownCentres >= 5_000)
        #expect(info.datasetVersion.hasPrefix("seed-"))
        #expect(info.coordinateSystem == "GCJ-02")
    }

    /// AMap's citycode is the telephone area code: the city's, inherited by its districts and
    /// towns; a municipality's province row carries it; an ordinary province has none.
    @Test func citycodesAreTelephoneAreaCodes() throws {
        let repo = SeedDatabase.repository
        let tiananmen = try repo.reverseGeocode(Coordinate(longitude: 116.397477, latitude: 39.908692), radius: 0)
        #expect(tiananmen.address.citycode == "010")
        #expect(tiananmen.address.province?.citycode == "010")
        let lingyin = try repo.reverseGeocode(Coordinate(longitude: 120.101, latitude: 30.241), radius: 0)
        #expect(lingyin.address.city?.name == "杭州市" && lingyin.address.citycode == "0571", "\(lingyin.address)")
        #expect(lingyin.address.district?.citycode == "0571")
        #expect(lingyin.address.province?.citycode == nil)
        let dongguan = try #require(try repo.districts("东莞市", subdistrict: 1).first)
        #expect(dongguan.region.citycode == "0769")
        #expect(!dongguan.children.isEmpty && dongguan.children.allSatisfy { $0.region.citycode == "0769" })
    }

    @Test func treeIsRepresentedAsItIs() throws {
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        func row(_ code: Int64) throws -> (parent: Int64?, level: Int, name: String)? {
            try db.cachedStatement("SELECT parent, level, name FROM region WHERE code = ?").first([.integer(code)]) {
                ($0.optionalInt64(0), $0.int(1), $0.text(2))
            }
        }
        // Municipality: districts directly under the province, no fake city row.
        #expect(try row(110101)?.parent == 110000)
        #expect(try row(110100) == nil)
        #expect(try row(500229)?.parent == 500000) // a county of Chongqing
        // County-level city directly under a province.
        #expect(try row(429004)?.parent == 420000)
        #expect(try row(429004)?.level == RegionLevel.district.rawValue)
        // Towns directly under a city.
        #expect(try row(441900)?.level == RegionLevel.city.rawValue)
        #expect(try row(441900003000)?.parent == 441900)
        #expect(try row(330106003000)?.name == "灵隐街道")
        // Every parent exists and is of a higher level; every code fits its parent.
        #expect(try db.scalar("""
            SELECT count(*) FROM region r LEFT JOIN region p ON p.code = r.parent
            WHERE r.parent IS NOT NULL AND (p.code IS NULL OR p.level >= r.level)
            """) == .integer(0))
        #expect(try db.scalar("SELECT count(*) FROM region WHERE level < 3 AND lng IS NULL") == .integer(0))
        #expect(try db.scalar("SELECT count(*) FROM poi WHERE adcode IS NULL") == .integer(0))
    }

    @Test func boundariesDecodeAndContainTheirCentres() throws {
        let db = try Connection(path: SeedDatabase.path, mode: .readOnly)
        let rows = try db.cachedStatement("SELECT code, boundary, lng, lat, center_approx FROM region WHERE boundary IS NOT NULL AND level = 2")
            .rows { ($0.int64(0), $0.blob(1), $0.double(2), $0.double(3), $0.int(4)) }
        #expect(rows.count >= 2_800)
        #expect(rows.count(where: { $0.4 == 0 }) > 0, "exact centres to check")
        var outside: [Int64] = []
        for (code, blob, lng, lat, approx) in rows where approx == 0 {
            let shape = try MultiPolygon(encoded: blob)
            if !shape.contains(Coordinate(longitude: lng, latitude: lat)) { outside.append(code) }
        }
        #expect(outside.isEmpty, "exact centres outside their district: \(outside.prefix(10))")
    }
}
