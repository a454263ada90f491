import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct PointInPolygonTests {
    @Test func squareWithHole() throws {
        let mp = try MultiPolygon(wkt: "POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,4 2,4 4,2 4,2 2))")
        #expect(mp.contains(coord(1, 1)))
        #expect(mp.contains(coord(5, 5)))
        #expect(mp.contains(coord(3, 1)))
        #expect(!mp.contains(coord(3, 3)), "inside the hole")
        #expect(!mp.contains(coord(11, 5)))
        #expect(!mp.contains(coord(-0.001, 5)))
        #expect(!mp.contains(coord(5, 10.5)))
        #expect(!mp.contains(coord(.nan, 5)))
        // Rays through vertices: y equal to a vertex's y.
        #expect(mp.contains(coord(1, 2)) && mp.contains(coord(5, 4)) && !mp.contains(coord(-1, 2)))
    }

    @Test func multiPolygonCountsAnyPart() throws {
        let mp = try MultiPolygon(wkt: "MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((5 5,6 5,6 6,5 6,5 5)),((0.2 0.2,0.8 0.2,0.8 0.8,0.2 0.2)))")
        #expect(mp.contains(coord(0.5, 0.1)))
        #expect(mp.contains(coord(5.5, 5.5)))
        #expect(!mp.contains(coord(3, 3)), "between the parts, inside the overall box")
        // Even-odd is per polygon: overlapping a separate polygon does not punch a hole.
        #expect(mp.contains(coord(0.7, 0.3)))
    }

    @Test func concaveShape() throws {
        // A "U": the notch between the arms is outside.
        let u = try MultiPolygon(wkt: "POLYGON((0 0,3 0,3 3,2 3,2 1,1 1,1 3,0 3,0 0))")
        #expect(u.contains(coord(0.5, 2.5)) && u.contains(coord(2.5, 2.5)) && u.contains(coord(1.5, 0.5)))
        #expect(!u.contains(coord(1.5, 2)))
        #expect(!u.contains(coord(1.5, 3)))
    }

    @Test func unclosedRingsBuiltDirectlyStillWork() {
        let mp = MultiPolygon(polygons: [Polygon(rings: [[coord(0, 0), coord(4, 0), coord(4, 4), coord(0, 4)]])])
        #expect(mp.contains(coord(2, 2)) && !mp.contains(coord(5, 2)))
        #expect(!MultiPolygon(polygons: []).contains(coord(0, 0)))
        #expect(!MultiPolygon(polygons: [Polygon(rings: [[]])]).contains(coord(0, 0)))
    }

    @Test func bandedIndexAgreesWithNaiveScan() {
        var rng = SplitMix64(state: 42)
        let center = coord(116.4, 39.9)
        let outer = jaggedRing(center: center, n: 3_000, rng: &rng)
        let hole = jaggedRing(center: coord(116.45, 39.92), n: 40, rng: &rng).map {
            coord(116.45 + ($0.longitude - 116.45) * 0.2, 39.92 + ($0.latitude - 39.92) * 0.2)
        }
        let island = square(117.2, 39.0, 117.3, 39.1)
        let mp = MultiPolygon(polygons: [Polygon(rings: [outer, hole]), Polygon(rings: [island])])
        var insideCount = 0
        for _ in 0..<4_000 {
            let p = coord(Double.random(in: 115.8...117.4, using: &rng), Double.random(in: 39.3...40.5, using: &rng))
            let expected = naiveContains(mp, p)
            #expect(mp.contains(p) == expected, "\(p)")
            if expected { insideCount += 1 }
        }
        // Vertices' own latitudes are the tricky rays.
        for v in outer.prefix(500) {
            let p = coord(v.longitude - 0.01, v.latitude)
            #expect(mp.contains(p) == naiveContains(mp, p), "\(p)")
        }
        #expect(insideCount > 500)
    }

    @Test func mutatingPolygonsRebuildsTheIndex() throws {
        var mp = try MultiPolygon(wkt: "POLYGON((0 0,1 0,1 1,0 1,0 0))")
        let copy = mp
        mp.polygons.append(Polygon(rings: [square(5, 5, 6, 6)]))
        #expect(mp.contains(coord(5.5, 5.5)) && !copy.contains(coord(5.5, 5.5)))
        #expect(mp.boundingBox.maxLongitude == 6)
        #expect(mp != copy)
        #expect(Set([mp, copy, copy]).count == 2)
    }

    @Test func distanceToBoundary() throws {
        let mp = MultiPolygon(polygons: [Polygon(rings: [square(116.0, 39.9, 116.2, 40.1)])])
        let center = coord(116.1, 40.0)
        // Nearest edges are east and west: 0.1° of longitude at 40°N.
        let expected = 0.1 * 111_195.080 * cos(40.0 * .pi / 180)
        #expect(abs(mp.distanceToBoundary(from: center) - expected) / expected < 0.001)
        // A sampled point N metres inside really is N metres from the border.
        let inside = destination(coord(116.1, 39.9), bearing: 0, distance: 2_000)
        #expect(abs(mp.distanceToBoundary(from: inside) - 2_000) < 5)
        #expect(MultiPolygon(polygons: []).distanceToBoundary(from: center) == .infinity)
    }

    /// A 20,000-vertex boundary-like ring (with a hole): the banded index answers as a scan of
    /// every edge does, on random points of its box and on points just inside and outside the
    /// boundary, where a band that misses an edge would show.
    @Test func containsOnALargeBoundaryMatchesBruteForce() {
        var rng = SplitMix64(state: 3)
        // A wiggly but boundary-like ring: a circle whose radius wanders a little.
        var ring: [Coordinate] = []
        var radii: [Double] = []
        var radius = 0.4
        let n = 20_000
        for k in 0..<n {
            radius = min(0.5, max(0.3, radius + Double.random(in: -0.002...0.002, using: &rng)))
            radii.append(radius)
            let angle = Double(k) / Double(n) * 2 * Double.pi
            ring.append(coord(116.4 + radius * cos(angle), 39.9 + radius * sin(angle)))
        }
        ring.append(ring[0])
        let hole = [coord(116.35, 39.85), coord(116.45, 39.85), coord(116.45, 39.95), coord(116.35, 39.95), coord(116.35, 39.85)]
        let mp = MultiPolygon(polygons: [Polygon(rings: [ring, hole])])
        var probes = (0..<2_000).map { _ in
            coord(Double.random(in: 115.8...117.0, using: &rng), Double.random(in: 39.3...40.5, using: &rng))
        }
        // Near the boundary: a hair inside and outside a vertex, on every side of the circle.
        for _ in 0..<2_000 {
            let k = Int.random(in: 0..<n, using: &rng)
            let angle = Double(k) / Double(n) * 2 * Double.pi
            let r = radii[k] * (1 + Double.random(in: -0.01...0.01, using: &rng))
            probes.append(coord(116.4 + r * cos(angle), 39.9 + r * sin(angle)))
        }
        var inside = 0, disagreements: [Coordinate] = []
        for p in probes {
            let expected = naiveContains(mp, p)
            if expected { inside += 1 }
            if mp.contains(p) != expected { disagreements.append(p) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(probes.count) disagree, first \(disagreements.prefix(5))")
        // Both answers occur, so agreement is not the trivial all-false or all-true.
        #expect(inside > 500 && inside < probes.count - 500, "\(inside) of \(probes.count) inside")
        #expect(!mp.contains(coord(116.4, 39.9)), "the hole")
        #expect(mp.contains(coord(116.4, 40.1)))
        #expect(probes.allSatisfy { CoordinateTransform.isInChina($0) })
        #expect(ChinaBorder.outline.polygons.reduce(0) { $0 + $1.rings[0].count } < 2_000)
    }
}
