import Foundation
import Testing
@testable import GazetteerCore

/// The rule that decides whether reverse geocoding names a town (`TownSet`), on made-up towns.
@Suite(.tags(.fast)) struct TownSetTests {
    /// Metres east and north of (120, 30), as a coordinate.
    func at(_ east: Double, _ north: Double) -> Coordinate {
        Coordinate(longitude: 120 + east / (111_320 * cos(30 * Double.pi / 180)), latitude: 30 + north / 110_574)
    }

    let a = RegionCache.TownCentre(code: 1, center: Coordinate(longitude: 120, latitude: 30))

    @Test func everyTownKnownNamesTheNearestWithinFiveKilometres() {
        let b = RegionCache.TownCentre(code: 2, center: at(2_000, 0))
        let set = TownSet(centres: [a, b], count: 2, area: 100e6)
        #expect(set.town(at: at(900, 0)) == 1)
        #expect(set.town(at: at(1_100, 0)) == 2)  // no margin asked for: the line between them is the border
        #expect(set.town(at: at(0, 4_900)) == 1)
        #expect(set.town(at: at(0, 5_200)) == nil)
    }

    /// 100 km², 10 towns, 2 known: an unknown town has 12.5 km², radius about 2 km, so a known
    /// centre names its town within about 1 km.
    @Test func unknownTownsShrinkTheReach() {
        let b = RegionCache.TownCentre(code: 2, center: at(5_000, 0))
        let set = TownSet(centres: [a, b], count: 10, area: 100e6)
        #expect(abs(set.reach - 997) < 5, "\(set.reach)")
        #expect(set.town(at: at(500, 0)) == 1)
        #expect(set.town(at: at(0, -950)) == 1)
        #expect(set.town(at: at(1_200, 0)) == nil)
        #expect(set.town(at: at(2_500, 0)) == nil)  // halfway: anything could be there
        // A bigger district with the same towns: each is bigger, so the reach grows.
        #expect(TownSet(centres: [a, b], count: 10, area: 400e6).town(at: at(1_200, 0)) == 1)
    }

    @Test func theNearestMustBeClearlyNearerThanTheNext() {
        let b = RegionCache.TownCentre(code: 2, center: at(1_200, 0))
        let set = TownSet(centres: [a, b], count: 10, area: 100e6)
        #expect(set.town(at: at(300, 0)) == 1)       // 300 m against 900 m
        #expect(set.town(at: at(550, 0)) == nil)     // 550 m against 650 m
        #expect(set.town(at: at(900, 0)) == 2)
    }

    @Test func noAreaOrNoCentreNamesNothing() {
        #expect(TownSet(centres: [a], count: 3, area: nil).town(at: at(10, 10)) == nil)
        #expect(TownSet(centres: [], count: 3, area: 100e6).town(at: at(10, 10)) == nil)
    }

    @Test func areaOfASquareKilometre() {
        let square = MultiPolygon(polygons: [Polygon(rings: [[at(0, 0), at(1_000, 0), at(1_000, 1_000), at(0, 1_000), at(0, 0)]])])
        #expect(abs(square.area - 1e6) < 1e4, "\(square.area)")
        let holed = MultiPolygon(polygons: [Polygon(rings: [[at(0, 0), at(1_000, 0), at(1_000, 1_000), at(0, 1_000), at(0, 0)],
                                                          [at(250, 250), at(750, 250), at(750, 750), at(250, 750), at(250, 250)]])])
        #expect(abs(holed.area - 0.75e6) < 1e4, "\(holed.area)")
    }
}
