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

    /// Geocoders hand what they learnt of the regions and POI names to the next (a batch's
    /// blocks, a service's queries): never across an import that changed the data.
    @Test func geocodersAfterAnImportDoNotReuseWhatEarlierOnesLearnt() throws {
        let fixture = Fixture()
        try fixture.run([fixture.write("r.csv", Fixture.regions), fixture.write("p.csv", Fixture.pois)])
        let repo = try Repository(path: fixture.database)
        let address = "浙江省杭州市西湖区龙井问茶馆"
        for answer in try [repo.geocode(address)] + repo.geocode([address, "西湖区灵隐寺"]).map({ try $0.get() }) {
            #expect(answer?.district?.name == "西湖区")
        }
        #expect(try repo.geocode(address)?.poi == nil)
        let renamed = Fixture.regions.replacingOccurrences(of: "330106,330100,district,西湖区", with: "330106,330100,district,新西湖区")
        let tea = "id,name,type,typecode,address,phone,lng,lat,adcode,towncode\nt1,龙井问茶馆,餐饮服务;茶艺馆;茶艺馆,050600,,,120.12,30.23,330106,\n"
        try fixture.run([fixture.write("r2.csv", renamed), fixture.write("p2.csv", tea)])
        for answer in try [repo.geocode("浙江省杭州市新西湖区龙井问茶馆")] + repo.geocode(["浙江省杭州市新西湖区龙井问茶馆"]).map({ try $0.get() }) {
            #expect(answer?.district?.name == "新西湖区")
            #expect(answer?.poi?.name == "龙井问茶馆")
        }
    }

    /// A geocoder that read an older snapshot gives its memo back after another connection saw
    /// an import: the cache, now on the newer generation, does not keep it.
    @Test func aMemoFromAnOlderSnapshotIsNotKept() throws {
        final class Memo: Sendable {}
        let fixture = Fixture()
        try fixture.run([fixture.write("r.csv", Fixture.regions)])
        let cache = RegionCache()
        let older = try Connection(path: fixture.database, mode: .readOnly)
        try cache.validate(older)
        cache.giveBack(parserMemo: Memo(), older)
        #expect(cache.takeParserMemo(older) != nil)
        let renamed = Fixture.regions.replacingOccurrences(of: "330106,330100,district,西湖区", with: "330106,330100,district,新西湖区")
        try fixture.run([fixture.write("r2.csv", renamed)])
        let newer = try Connection(path: fixture.database, mode: .readOnly)
        try cache.validate(newer)
        cache.giveBack(parserMemo: Memo(), older)
        #expect(cache.takeParserMemo(newer) == nil)
        #expect(cache.takeParserMemo(older) == nil)
        cache.giveBack(parserMemo: Memo(), newer)
        #expect(cache.takeParserMemo(newer) != nil)
    }
}
