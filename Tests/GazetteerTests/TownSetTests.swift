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

    /// The town named is the one the great-circle rule names (the distance to the nearest
    /// centre within the reach), though most points are decided by the flat distance alone:
    /// random towns and points at China's latitudes and beyond, many right at the reach.
    @Test func theFlatShortcutNamesWhatTheGreatCircleNames() {
        var state: UInt64 = 7
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var decided = 0, atTheReach = 0
        for round in 0..<400 {
            let latitude = -70 + 140 * next(), longitude = 180 * next()
            let centres = (0..<(1 + round % 12)).map { i in
                RegionCache.TownCentre(code: Int64(i), center: Coordinate(longitude: longitude + 0.2 * next() - 0.1, latitude: latitude + 0.2 * next() - 0.1))
            }
            let set = TownSet(centres: centres, count: centres.count * (1 + round % 3), area: 1e7 + 4e8 * next())
            for _ in 0..<200 {
                let p = Coordinate(longitude: longitude + 0.3 * next() - 0.15, latitude: latitude + 0.3 * next() - 0.15)
                // The rule as the great circle alone decides it.
                let k = cos(p.latitude * .pi / 180)
                let d2 = set.centres.map { c -> Double in
                    let x = (c.center.longitude - p.longitude) * k, y = c.center.latitude - p.latitude
                    return x * x + y * y
                }
                let nearest = d2.indices.min { d2[$0] < d2[$1] }!
                let second = d2.indices.filter { $0 != nearest }.map { d2[$0] }.min() ?? .infinity
                let distance = set.centres[nearest].center.distance(to: p)
                let expected = distance <= set.reach && (set.complete || !second.isFinite || d2[nearest] <= TownSet.margin * TownSet.margin * second)
                    ? nearest : nil
                #expect(set.townIndex(at: p) == expected, "round \(round), \(p)")
                if expected != nil { decided += 1 }
                if abs(distance - set.reach) < 0.05 * set.reach { atTheReach += 1 }
            }
        }
        #expect(decided > 5_000 && atTheReach > 500, "\(decided) named, \(atTheReach) near the reach")
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
