import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.seed), .skippedInFastRuns) struct NearbyTests {
    let repo = SeedDatabase.repository
    let center = Coordinate(longitude: 120.1551, latitude: 30.2741)

    @Test func nearestFirstWithinRadius() throws {
        var o = NearbyOptions()
        o.radius = 2000
        o.limit = 50
        let hits = try repo.nearby(center, options: o).pois
        #expect(hits.count == 50)
        #expect(hits.map(\.distance) == hits.map(\.distance).sorted())
        #expect(hits.allSatisfy { $0.distance <= 2000 && abs(center.distance(to: $0.poi.location) - $0.distance) < 0.01 })
        #expect(hits.allSatisfy { $0.city?.name == "杭州市" })
        o.countAll = true
        o.limit = 5
        let counted = try repo.nearby(center, options: o)
        #expect(counted.pois.count == 5)
        o.limit = 100
        var total = 0
        for page in 1... {
            o.page = page
            let n = try repo.nearby(center, options: o).pois.count
            total += n
            if n < 100 { break }
        }
        #expect(counted.count == total)
    }

    @Test func pagesContinueWithoutRepeatsOrGaps() throws {
        var o = NearbyOptions()
        o.radius = 5000
        o.limit = 100
        let all = try repo.nearby(center, options: o).pois.map(\.poi.id)
        var paged: [String] = []
        o.limit = 20
        for page in 1...5 {
            o.page = page
            paged += try repo.nearby(center, options: o).pois.map(\.poi.id)
        }
        #expect(paged == all)
        #expect(Set(paged).count == paged.count)
    }

    @Test func filtersByTypeAndKeyword() throws {
        var o = NearbyOptions()
        o.radius = 5000
        o.types = ["05"] // 餐饮服务
        let food = try repo.nearby(center, options: o).pois
        #expect(!food.isEmpty && food.allSatisfy { $0.poi.typecode?.hasPrefix("05") == true })
        o.types = ["餐饮服务"]
        #expect(try repo.nearby(center, options: o).pois.map(\.poi.id) == food.map(\.poi.id))
        o.types = []
        o.keywords = "银行"
        let banks = try repo.nearby(center, options: o).pois
        #expect(!banks.isEmpty && banks.allSatisfy { $0.poi.name.contains("银行") })
        o.keywords = "\"银行\" OR *"
        _ = try repo.nearby(center, options: o).pois
    }

    @Test func badArgumentsAreRefused() throws {
        var o = NearbyOptions()
        o.radius = 60_000
        #expect(throws: GazetteerError.self) { _ = try repo.nearby(center, options: o).pois }
        o.radius = 1000
        #expect(throws: GazetteerError.self) { _ = try repo.nearby(Coordinate(longitude: .nan, latitude: 30), options: o).pois }
        #expect(try repo.nearby(Coordinate(longitude: 160, latitude: -40), options: o).pois.isEmpty)
    }
}
