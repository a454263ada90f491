import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

// Helpers shared by the geometry suites (CoordinateTransformTests, DistanceAndBoxTests, WKTTests,
// PointInPolygonTests, EncodingTests).

/// Deterministic generator so randomised tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func coord(_ lng: Double, _ lat: Double) -> Coordinate {
    Coordinate(longitude: lng, latitude: lat)
}

/// The point `distance` metres from `c` along `bearing` degrees on the library's sphere.
func destination(_ c: Coordinate, bearing: Double, distance: Double) -> Coordinate {
    let r = Double.pi / 180
    let delta = distance / Coordinate.earthRadius
    let phi1 = c.latitude * r, lambda1 = c.longitude * r, theta = bearing * r
    let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
    let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
    var lng = lambda2 / r
    if lng > 180 { lng -= 360 }
    if lng < -180 { lng += 360 }
    return coord(lng, phi2 / r)
}

/// Textbook even-odd test over every edge: the oracle the banded index must agree with.
func naiveContains(_ mp: MultiPolygon, _ p: Coordinate) -> Bool {
    for polygon in mp.polygons {
        var inside = false
        for ring in polygon.rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.latitude > p.latitude) != (b.latitude > p.latitude),
                   p.longitude < (b.longitude - a.longitude) * (p.latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude {
                    inside.toggle()
                }
                j = i
            }
        }
        if inside { return true }
    }
    return false
}

func square(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> [Coordinate] {
    [coord(minX, minY), coord(maxX, minY), coord(maxX, maxY), coord(minX, maxY), coord(minX, minY)]
}

/// A star-shaped ring with `n` vertices and jagged radius: concave almost everywhere.
func jaggedRing(center: Coordinate, n: Int, rng: inout SplitMix64) -> [Coordinate] {
    var ring: [Coordinate] = []
    for k in 0..<n {
        let angle = Double(k) / Double(n) * 2 * Double.pi
        let radius = 0.2 + Double.random(in: 0..<0.3, using: &rng) * (k % 2 == 0 ? 1 : 0.3)
        ring.append(coord(center.longitude + radius * cos(angle), center.latitude + radius * sin(angle)))
    }
    ring.append(ring[0])
    return ring
}

/// What an R*Tree query finds for `b` (`min_lng <= b's east AND max_lng >= b's west …`, as the
/// library asks): `columns` of each row of `table` whose box meets `b`, each made by `row`.
func rtreeRows<T>(_ db: Connection, _ table: String, _ columns: String, meeting b: BoundingBox,
                  _ row: (Statement) throws -> T) throws -> [T] {
    try db.cachedStatement("SELECT \(columns) FROM \(table) WHERE min_lng <= ?2 AND max_lng >= ?1 AND min_lat <= ?4 AND max_lat >= ?3")
        .rows([.real(b.minLongitude), .real(b.maxLongitude), .real(b.minLatitude), .real(b.maxLatitude)], row)
}
