import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerQuery

/// `Repository.regionOutlines`: the regions that tile a map at a level, on the national seed.
@Suite(.tags(.seed), .skippedInFastRuns) struct RegionOutlinesTests {
    let repo = SeedDatabase.repository

    static func box(_ minLng: Double, _ minLat: Double, _ maxLng: Double, _ maxLat: Double) -> BoundingBox {
        BoundingBox(minLongitude: minLng, minLatitude: minLat, maxLongitude: maxLng, maxLatitude: maxLat)
    }

    @Test func provincesOfTheWholeCountry() throws {
        let all = try repo.regionOutlines(in: Self.box(73, 3, 136, 54), level: .province, tolerance: 0.1)
        #expect(all.complete)
        #expect(all.outlines.count == 34)
        #expect(all.outlines.allSatisfy { $0.region.level == .province && !$0.shape.polygons.isEmpty })
        #expect(all.outlines.map(\.region.code) == all.outlines.map(\.region.code).sorted())
    }

    @Test func aMunicipalityIsOneRegionAtCityLevelAndItsDistrictsBelow() throws {
        let box = Self.box(115.5, 39.5, 117.5, 40.5)
        let cities = try repo.regionOutlines(in: box, level: .city, tolerance: 0.01).outlines.map(\.region)
        #expect(cities.contains { $0.code == "110000" && $0.level == .province })
        #expect(!cities.contains { $0.code == "110101" })
        #expect(cities.contains { $0.name == "廊坊市" && $0.level == .city })
        let districts = try repo.regionOutlines(in: box, level: .district, tolerance: 0.001).outlines.map(\.region)
        #expect(districts.contains { $0.name == "东城区" })
        #expect(!districts.contains { $0.code == "110000" })
        #expect(districts.allSatisfy { $0.level == .district })
    }

    @Test func skippedLevelsLeaveNoHoles() throws {
        // 仙桃市 is a county-level city directly under 湖北省: drawn among the cities.
        let hubei = try repo.regionOutlines(in: Self.box(113.2, 30.2, 113.6, 30.4), level: .city, tolerance: 0.01).outlines.map(\.region)
        #expect(hubei.contains { $0.code == "429004" })
        #expect(!hubei.contains { $0.code == "420000" })
        // 东莞市 has towns but no districts: drawn whole at district level.
        let dongguan = try repo.regionOutlines(in: Self.box(113.7, 22.9, 113.8, 23.0), level: .district, tolerance: 0.001).outlines.map(\.region)
        #expect(dongguan.contains { $0.code == "441900" && $0.level == .city })
        // Towns are never drawn: .town means .district.
        let towns = try repo.regionOutlines(in: Self.box(116.39, 39.90, 116.40, 39.91), level: .town, tolerance: 0.0001).outlines
        #expect(towns.map(\.region.name).contains("东城区"))
    }

    @Test func shapesAreSimplifiedAndClipped() throws {
        let box = Self.box(120.0, 30.1, 120.3, 30.4)
        let fine = try repo.regionOutlines(in: box, level: .district, tolerance: 0.0001).outlines
        let coarse = try repo.regionOutlines(in: box, level: .district, tolerance: 0.01).outlines
        #expect(fine.map(\.region.code) == coarse.map(\.region.code))
        let xihu = try #require(fine.first { $0.region.code == "330106" })
        let xihuCoarse = try #require(coarse.first { $0.region.code == "330106" })
        #expect(xihuCoarse.shape.pointCount < xihu.shape.pointCount)
        for outline in fine + coarse {
            let b = outline.shape.boundingBox
            #expect(b.minLongitude >= box.minLongitude - 1e-9 && b.maxLongitude <= box.maxLongitude + 1e-9)
            #expect(b.minLatitude >= box.minLatitude - 1e-9 && b.maxLatitude <= box.maxLatitude + 1e-9)
        }
        // 西湖区's centre is inside what is drawn of it.
        #expect(xihu.shape.contains(try #require(xihu.region.center)))
    }

    @Test func theLimitSaysWhenItCutAndKeepsTheMiddle() throws {
        // Around Hangzhou: the regions nearest the middle of the box stay.
        let some = try repo.regionOutlines(in: Self.box(110, 25, 130, 35), level: .province, tolerance: 0.5, limit: 3)
        #expect(some.outlines.count == 3)
        #expect(!some.complete)
        #expect(some.outlines.contains { $0.region.name == "浙江省" })
        #expect(some.outlines.map(\.region.code) == some.outlines.map(\.region.code).sorted())
        let none = try repo.regionOutlines(in: Self.box(-10, -10, -9, -9), level: .district, tolerance: 0.01)
        #expect(none.outlines.isEmpty && none.complete)
    }

    @Test func refusesNonsense() {
        #expect(throws: GazetteerError.self) { _ = try repo.regionOutlines(in: .empty, level: .city, tolerance: 0.1) }
        #expect(throws: GazetteerError.self) { _ = try repo.regionOutlines(in: Self.box(0, 0, 1, 1), level: .city, tolerance: .nan) }
        #expect(throws: GazetteerError.self) { _ = try repo.regionOutlines(in: Self.box(0, 0, 1, 1), level: .city, tolerance: -1) }
    }
}
