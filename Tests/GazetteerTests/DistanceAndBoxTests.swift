import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct DistanceAndBoxTests {
    @Test func haversineMatchesReference() {
        let beijing = coord(116.407526, 39.904030), shanghai = coord(121.473701, 31.230416)
        let d = beijing.distance(to: shanghai)
        // Python haversine with R = 6371008.8 gives 1_067_288.34 m.
        #expect(abs(d - 1_067_288.34) < 1)
        #expect((1_067_000...1_068_000).contains(d))
        #expect(abs(coord(0, 0).distance(to: coord(0, 1)) - 111_195.080) < 0.01)
        #expect(beijing.distance(to: beijing) == 0)
        #expect(abs(coord(0, 90).distance(to: coord(0, -90)) - Double.pi * Coordinate.earthRadius) < 1e-3)
    }

    @Test func validity() {
        #expect(coord(180, -90).isValid)
        #expect(!coord(180.0001, 0).isValid)
        #expect(!coord(0, 90.5).isValid)
        #expect(!coord(.nan, 0).isValid)
        #expect(!coord(0, .infinity).isValid)
    }

    @Test(arguments: [
        (116.4, 39.9, 1_000.0), (116.4, 39.9, 50_000.0), (0.0, 0.0, 10_000.0), (20.0, 80.0, 200_000.0),
        (179.95, 10.0, 20_000.0), (-179.99, -30.0, 5_000.0), (10.0, 89.99, 5_000.0), (0.0, -89.5, 100_000.0),
        (100.0, 45.0, 0.0),
    ])
    func aroundContainsTheCircle(lng: Double, lat: Double, radius: Double) {
        let center = coord(lng, lat)
        let box = BoundingBox.around(center, radius: radius)
        #expect(box.contains(center))
        for bearing in stride(from: 0.0, to: 360.0, by: 7.5) {
            let p = destination(center, bearing: bearing, distance: radius)
            #expect(box.contains(p), "bearing \(bearing): \(p) not in \(box)")
        }
        #expect(box.minLatitude >= -90 && box.maxLatitude <= 90)
        #expect(box.minLongitude >= -180 && box.maxLongitude <= 180)
    }

    @Test func aroundIsTightAwayFromPolesAndClampsOtherwise() {
        let box = BoundingBox.around(coord(116.4, 39.9), radius: 1_000)
        let dLat = 1_000 / 111_195.080
        #expect(abs((box.maxLatitude - box.minLatitude) / 2 - dLat) < 1e-8)
        #expect(abs((box.maxLongitude - box.minLongitude) / 2 - dLat / cos(39.9 * .pi / 180)) < 1e-6)
        let polar = BoundingBox.around(coord(10, 89.99), radius: 5_000)
        #expect(polar.minLongitude == -180 && polar.maxLongitude == 180 && polar.maxLatitude == 90)
        let antimeridian = BoundingBox.around(coord(179.95, 10), radius: 20_000)
        #expect(antimeridian.minLongitude == -180 && antimeridian.maxLongitude == 180)
        #expect(BoundingBox.around(coord(1, 1), radius: .infinity) == BoundingBox.world)
        let zero = BoundingBox.around(coord(1, 1), radius: -5)
        #expect(zero.contains(coord(1, 1)) && !zero.contains(coord(1.0001, 1)))
    }

    @Test func unionAndContains() {
        let a = BoundingBox(minLongitude: 0, minLatitude: 0, maxLongitude: 1, maxLatitude: 1)
        let b = BoundingBox(minLongitude: 2, minLatitude: -1, maxLongitude: 3, maxLatitude: 0.5)
        let u = a.union(b)
        #expect(u == BoundingBox(minLongitude: 0, minLatitude: -1, maxLongitude: 3, maxLatitude: 1))
        #expect(a.contains(coord(1, 1)) && a.contains(coord(0, 0)) && !a.contains(coord(1.5, 0.5)))
        #expect(BoundingBox.empty.union(a) == a)
        #expect(!BoundingBox.empty.contains(coord(0, 0)))
        #expect(a.intersects(u) && !a.intersects(b))
        let json = try? JSONEncoder().encode(a)
        #expect(json.flatMap { try? JSONDecoder().decode(BoundingBox.self, from: $0) } == a)
    }
}
