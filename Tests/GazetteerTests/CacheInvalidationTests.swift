import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct CacheInvalidationTests {
    /// A long-lived repository must see what another connection imports after it cached
    /// regions: the region caches follow the database's data generation.
    @Test func repositorySeesLaterImports() throws {
        let fixture = Fixture()
        try fixture.run([fixture.write("r.csv", Fixture.regions), fixture.write("b.csv", Fixture.boundaries)])
        let repo = try Repository(path: fixture.database)
        let point = Coordinate(longitude: 120.13, latitude: 30.26)
        #expect(try repo.reverseGeocode(point, radius: 0).address.district?.name == "西湖区")
        let renamed = Fixture.regions.replacingOccurrences(of: "330106,330100,district,西湖区", with: "330106,330100,district,新西湖区")
        try fixture.run([fixture.write("r2.csv", renamed)])
        #expect(try repo.reverseGeocode(point, radius: 0).address.district?.name == "新西湖区")
        let moved = "code,geometry\n330106,\"POLYGON((121.0 31.0,121.1 31.0,121.1 31.1,121.0 31.0))\"\n"
        try fixture.run([fixture.write("b2.csv", moved)])
        #expect(try repo.reverseGeocode(point, radius: 0).address.district == nil)
        #expect(try repo.search("新西湖").hits.first?.name == "新西湖区")
    }
}
