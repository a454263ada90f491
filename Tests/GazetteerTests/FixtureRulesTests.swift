import Foundation
import Testing
import Gazetteer

/// The parsing and ranking rules, pinned on `SmallGazetteer` (a dozen hand-written rows), so
/// each expectation follows from a rule documented in the query code, not from national data:
/// `Repository.search`, `Repository.geocode` and `AddressParser`, `Repository.reverseGeocode`
/// and `RegionLocator`, `Repository.nearby`.
@Suite(.tags(.fast)) struct FixtureRulesTests {
    let repo = SmallGazetteer.repository

    func search(_ text: String, _ change: (inout SearchOptions) -> Void = { _ in }) throws -> SearchResult {
        var options = SearchOptions()
        change(&options)
        return try repo.search(text, options: options)
    }

    /// Name and, for a region, its code; for a POI, its id: enough to tell namesakes apart.
    static func label(_ hit: SearchHit) -> String {
        switch hit.kind {
        case .region(let r): "\(r.name) \(r.code)"
        case .poi(let p): "\(p.name) \(p.id)"
        }
    }

    // MARK: - search

    /// Exact name (or short name) before prefix before substring; at an equal match, regions
    /// before POIs.
    @Test func searchRanksExactThenPrefixThenSubstringAndRegionsFirst() throws {
        let r = try search("石桥")
        #expect(r.hits.map(Self.label) == ["石桥镇 910102001000", "石桥 f01", "石桥小学 f02", "老石桥饭店 f03"])
        #expect(r.hits.map(\.match) == [.exact, .exact, .prefix, .substring])
        #expect(r.count == 4)
        // A full name is exact too, and the pinyin of the short name.
        #expect(try search("石桥镇").hits.first.map(Self.label) == "石桥镇 910102001000")
        #expect(try search("石桥镇").hits.first?.match == .exact)
        #expect(try search("shi qiao").hits.first.map(Self.label) == "石桥镇 910102001000")
        #expect(try search("shi qiao").hits.first?.match == .exact)
    }

    /// Namesake districts: without a city, in code order; with a preferred city, its own first
    /// in each match class; with --citylimit, only its own.
    @Test func searchPrefersTheGivenCity() throws {
        let plain = try search("新城")
        #expect(plain.hits.map(Self.label) == ["新城区 910103", "新城区 910202", "新城饭店 f04", "新城饭店 f05"])
        #expect(plain.hits.map(\.match) == [.exact, .exact, .prefix, .prefix])
        for city in ["云港市", "云港", "910200"] {
            let preferred = try search("新城") { $0.city = city }
            #expect(preferred.hits.map(Self.label) == ["新城区 910202", "新城区 910103", "新城饭店 f05", "新城饭店 f04"], "city \(city)")
            let limited = try search("新城") { $0.city = city; $0.cityLimit = true }
            #expect(limited.hits.map(Self.label) == ["新城区 910202", "新城饭店 f05"], "city \(city)")
            #expect(limited.count == 2)
        }
        let other = try search("新城") { $0.city = "青山市" }
        #expect(other.hits.map(Self.label) == ["新城区 910103", "新城区 910202", "新城饭店 f04", "新城饭店 f05"])
    }

    /// With a location, nearer first (and distances measured); without one, shorter names,
    /// then import order.
    @Test func searchRanksNearerFirstWithALocation() throws {
        let near = try search("便利店") { $0.location = SmallGazetteer.origin }
        #expect(near.hits.map(Self.label) == ["便利店 f07", "便利店 f09", "便利店 f08", "便利店 f10"])
        let distances = near.hits.compactMap(\.distance)
        #expect(distances.count == 4 && distances == distances.sorted(), "\(distances)")
        #expect(abs(distances[0] - 89) < 2 && abs(distances[3] - 1_442) < 10, "\(distances)")
        let plain = try search("便利店")
        #expect(plain.hits.map(Self.label) == ["便利店 f07", "便利店 f08", "便利店 f09", "便利店 f10"])
        #expect(plain.hits.allSatisfy { $0.distance == nil })
        // Regions are measured from their centres and keep their place before POIs.
        let regions = try search("新城") { $0.location = Coordinate(longitude: 101.3, latitude: 30.3) }
        #expect(regions.hits.map(Self.label) == ["新城区 910202", "新城区 910103", "新城饭店 f05", "新城饭店 f04"])
    }

    /// Pages cut one ranking: every page says the same total, and the pages laid end to end
    /// are the one-page answer, without repeats or gaps.
    @Test func searchPagesAreConsistent() throws {
        let all = try search("店") { $0.limit = 50 }
        #expect(all.count == 9 && all.hits.count == 9, "\(all.hits.map(Self.label))")
        #expect(all.hits.map(\.match) == all.hits.map(\.match).sorted())
        for limit in [1, 2, 4] {
            var paged: [String] = []
            for page in 1...(9 / limit + 2) {
                let r = try search("店") { $0.limit = limit; $0.page = page }
                #expect(r.count == 9, "limit \(limit) page \(page)")
                #expect(r.hits.count == max(0, min(limit, 9 - (page - 1) * limit)), "limit \(limit) page \(page)")
                paged += r.hits.map(Self.label)
            }
            #expect(paged == all.hits.map(Self.label), "limit \(limit)")
        }
        // With a location too.
        let located = try search("店") { $0.limit = 50; $0.location = SmallGazetteer.origin }
        var paged: [String] = []
        for page in 1...5 {
            paged += try search("店") { $0.limit = 2; $0.page = page; $0.location = SmallGazetteer.origin }.hits.map(Self.label)
        }
        #expect(paged == located.hits.map(Self.label))
        #expect(Set(paged).count == 9)
    }

    // MARK: - geocode

    /// Missing suffixes: short names read as the regions they name.
    @Test func geocodeReadsShortNames() throws {
        let g = try #require(try repo.geocode("东海青山白沙石桥"))
        #expect(g.town?.code == "910102001000" && g.district?.code == "910102" && g.city?.code == "910100" && g.province?.code == "910000")
        #expect(g.level == "乡镇")
        #expect(g.formattedAddress == "东海省青山市白沙区石桥镇")
        #expect(g.unmatched == "")
        #expect(g.poi == nil)
        // A town's approximate centre is the location, and said to be approximate.
        #expect(g.location == Coordinate(longitude: 100.10, latitude: 30.10) && g.locationIsApproximate)
    }

    /// Missing levels: the tree supplies them, and the namesake that reads the most text wins
    /// (only 青山's 白沙区 has a 石桥镇).
    @Test func geocodeFillsMissingLevelsAndPicksTheNamesakeThatReadsFurther() throws {
        let g = try #require(try repo.geocode("白沙区石桥镇"))
        #expect(g.formattedAddress == "东海省青山市白沙区石桥镇")
        #expect(g.adcode == "910102" && g.townCode9 == "910102001")
        let district = try #require(try repo.geocode("云港白沙区"))
        #expect(district.district?.code == "910203" && district.level == "区县")
        #expect(district.location == Coordinate(longitude: 101.75, latitude: 30.25) && !district.locationIsApproximate)
    }

    /// Detail after the last known part is kept as `unmatched`.
    @Test func geocodeKeepsTheUnmatchedRest() throws {
        let g = try #require(try repo.geocode("青山市白沙区石桥镇长安路8号"))
        #expect(g.town?.code == "910102001000")
        #expect(g.unmatched == "长安路8号")
        let d = try #require(try repo.geocode("中国 东海省，青山市 新城区 ２号楼"))
        #expect(d.district?.code == "910103" && d.town == nil)
        #expect(d.unmatched == "2号楼")
        #expect(try repo.geocode("火星基地一号") == nil)
    }

    /// A POI named after a region: the POI, inside that region; the reading that covers the most
    /// text wins (石桥小学 over the town 石桥 + 小学).
    @Test func geocodeFindsAPOINamedAfterARegion() throws {
        let park = try #require(try repo.geocode("青山市白沙区翠湖公园"))
        #expect(park.poi?.id == "f06" && park.level == "兴趣点")
        #expect(park.district?.code == "910102" && park.unmatched == "")
        #expect(park.location == Coordinate(longitude: 100.3, latitude: 30.3))
        #expect(park.formattedAddress == "东海省青山市白沙区翠湖公园")
        let school = try #require(try repo.geocode("白沙区石桥小学"))
        #expect(school.poi?.id == "f02")
        // The POI's own town completes the address.
        #expect(school.town?.code == "910102001000" && school.formattedAddress == "东海省青山市白沙区石桥镇石桥小学")
        // Inside the region named: 新城饭店 after 云港's 新城区 is 云港's.
        let restaurant = try #require(try repo.geocode("云港市新城区新城饭店"))
        #expect(restaurant.poi?.id == "f05" && restaurant.district?.code == "910202")
        let first = try #require(try repo.geocode("青山新城区新城饭店门口"))
        #expect(first.poi?.id == "f04" && first.unmatched == "门口")
    }

    /// A city resolves namesakes the text leaves open, but never overrides a place the text names.
    @Test func geocodeResolvesNamesakesByCity() throws {
        for (city, code) in [("云港市", "910202"), ("云港", "910202"), ("910200", "910202"), ("青山市", "910103"), ("910100", "910103")] {
            let g = try #require(try repo.geocode("新城区", city: city), "city \(city)")
            #expect(g.district?.code == code, "city \(city)")
            #expect(g.unmatched == "", "city \(city)")
        }
        #expect(try repo.geocode("白沙区", city: "云港市")?.district?.code == "910203")
        #expect(try repo.geocode("青山市新城区", city: "云港市")?.district?.code == "910103")
    }

    // MARK: - reverse geocode

    func address(_ lng: Double, _ lat: Double, radius: Double = 0) throws -> ReverseGeocode {
        try repo.reverseGeocode(Coordinate(longitude: lng, latitude: lat), radius: radius)
    }

    /// A point in a square district is in that district (and its city and province); namesakes
    /// are told apart by their boundaries.
    @Test func reverseGeocodePlacesAPointInItsSquare() throws {
        for (lng, code, city) in [(100.25, "910102", "910100"), (100.75, "910103", "910100"), (101.25, "910202", "910200"),
                                  (101.75, "910203", "910200"), (102.25, "920102", "920100"), (100.0001, "910102", "910100")] {
            let a = try address(lng, 30.25).address
            #expect(a.district?.code == code && a.city?.code == city, "\(lng): \(a)")
            #expect(a.province?.code == String(code.prefix(2)) + "0000", "\(lng)")
        }
        let r = try address(100.25, 30.25)
        #expect(r.formattedAddress == "东海省青山市白沙区")
        #expect(r.address.town == nil, "the nearest town centre is 21 km away")
    }

    /// Outside every boundary (beyond the 60 m slack), an empty address, not an error; within
    /// the slack, the nearest district.
    @Test func reverseGeocodeOutsideIsEmpty() throws {
        for (lng, lat) in [(105.0, 35.0), (100.25, 30.6), (99.9, 30.25), (100.25, 30.5045)] {
            let r = try address(lng, lat, radius: 1_000)
            #expect(r.address.isEmpty && r.formattedAddress.isEmpty, "\(lng),\(lat): \(r.address)")
        }
        // 30 m north of 白沙区's northern edge.
        #expect(try address(100.25, 30.50027).address.district?.code == "910102")
    }

    /// The town whose centre is nearest, within 5 km, marked approximate; past 5 km, none.
    @Test func reverseGeocodeNamesTheNearestTownWithinReach() throws {
        let a = try address(100.11, 30.11).address  // 1.5 km from 石桥镇's centre
        #expect(a.town?.code == "910102001000" && a.townIsApproximate)
        #expect(a.townCode9 == "910102001")
        let b = try address(100.37, 30.42).address  // 3.6 km from 柳林街道's
        #expect(b.town?.code == "910102002000")
        let c = try address(101.05, 30.21).address  // 2.2 km from 海湾街道's
        #expect(c.town?.code == "910202001000" && c.district?.code == "910202")
        let far = try address(101.25, 30.25).address  // 21 km from 海湾街道's
        #expect(far.district?.code == "910202" && far.town == nil)
        // Only towns of the point's own district: this point of 新城区 910103 is 3.8 km from
        // the centre of 海湾街道, which belongs to 云港's 新城区.
        let edge = try address(100.99, 30.2).address
        #expect(edge.district?.code == "910103" && edge.town == nil, "\(edge)")
    }

    /// POIs within the radius, nearest first; the formatted address ends with the nearest within 100 m.
    @Test func reverseGeocodeListsPOIsNearestFirst() throws {
        let r = try repo.reverseGeocode(SmallGazetteer.origin, radius: 1_000)
        #expect(r.pois.map(\.poi.id) == ["f07", "f09", "f08", "f11"])
        #expect(r.pois.map(\.distance) == r.pois.map(\.distance).sorted())
        #expect(r.formattedAddress == "东海省青山市白沙区便利店")
        #expect(try repo.reverseGeocode(SmallGazetteer.origin, radius: 1_000, poiLimit: 2).pois.map(\.poi.id) == ["f07", "f09"])
        #expect(try repo.reverseGeocode(SmallGazetteer.origin, radius: 0).pois.isEmpty)
    }

    // MARK: - nearby

    func nearby(_ change: (inout NearbyOptions) -> Void = { _ in }) throws -> NearbyResult {
        var options = NearbyOptions()
        change(&options)
        return try repo.nearby(SmallGazetteer.origin, options: options)
    }

    /// Nearest first, only within the radius, counted when asked.
    @Test func nearbyOrdersByDistanceAndCounts() throws {
        let r = try nearby { $0.radius = 1_000; $0.countAll = true }
        #expect(r.pois.map(\.poi.id) == ["f07", "f09", "f08", "f11"])
        #expect(r.count == 4)
        let d = r.pois.map(\.distance)
        #expect(d == d.sorted() && d.allSatisfy { $0 <= 1_000 }, "\(d)")
        #expect(abs(d[0] - 89) < 2 && abs(d[1] - 200) < 2 && abs(d[2] - 400) < 2 && abs(d[3] - 801) < 3, "\(d)")
        let wider = try nearby { $0.radius = 2_000; $0.countAll = true }
        #expect(wider.pois.map(\.poi.id) == ["f07", "f09", "f08", "f11", "f10"] && wider.count == 5)
        #expect(try nearby { $0.radius = 50 }.pois.isEmpty)
        #expect(try nearby { $0.radius = 1_000 }.count == nil, "counted only when asked")
        // 50 km reaches every POI of 白沙区 910102 (新城区's 新城饭店 is 53 km away).
        let all = try nearby { $0.radius = 50_000; $0.limit = 100; $0.countAll = true }
        #expect(all.count == 9 && Set(all.pois.map(\.poi.id)) == ["f01", "f02", "f03", "f06", "f07", "f08", "f09", "f10", "f11"])
    }

    /// Keywords and types filter; pages continue one another.
    @Test func nearbyFiltersAndPages() throws {
        let shops = try nearby { $0.radius = 2_000; $0.keywords = "便利"; $0.countAll = true }
        #expect(shops.pois.map(\.poi.id) == ["f07", "f09", "f08", "f10"] && shops.count == 4)
        let books = try nearby { $0.radius = 2_000; $0.types = ["061205"]; $0.countAll = true }
        #expect(books.pois.map(\.poi.id) == ["f11"] && books.count == 1)
        var paged: [String] = []
        for page in 1...4 {
            let r = try nearby { $0.radius = 2_000; $0.limit = 2; $0.page = page; $0.countAll = true }
            #expect(r.count == 5, "page \(page)")
            #expect(r.pois.count == [2, 2, 1, 0][page - 1], "page \(page)")
            paged += r.pois.map(\.poi.id)
        }
        #expect(paged == ["f07", "f09", "f08", "f11", "f10"])
    }

    // MARK: - the fixture itself

    @Test func fixtureImportedEveryRow() throws {
        let info = try repo.info()
        #expect(info.poiCount == SmallGazetteer.poiCount)
    }
}
