import Foundation
import Testing
@testable import GazetteerCore

/// Shapes for drawing: Douglas–Peucker simplification, clipping to a box, label points and
/// rounded GeoJSON (MultiPolygon+Simplify.swift).
@Suite(.tags(.fast)) struct SimplifyTests {
    static func c(_ lng: Double, _ lat: Double) -> Coordinate { Coordinate(longitude: lng, latitude: lat) }

    /// A closed ring through `points`.
    static func ring(_ points: [(Double, Double)]) -> [Coordinate] {
        let r = points.map { c($0.0, $0.1) }
        return r + [r[0]]
    }

    /// One polygon per argument, each given as its rings.
    static func shape(_ polygons: [[Coordinate]]...) -> MultiPolygon {
        MultiPolygon(polygons: polygons.map { Polygon(rings: $0) })
    }

    /// One polygon of one ring.
    static func shape(_ ring: [Coordinate]) -> MultiPolygon {
        MultiPolygon(polygons: [Polygon(rings: [ring])])
    }

    /// A square from (x, y) of side `side`, with `perSide` points on every side (collinear ones).
    static func square(_ x: Double, _ y: Double, _ side: Double, perSide: Int = 1) -> [Coordinate] {
        var points: [(Double, Double)] = []
        let corners = [(x, y), (x + side, y), (x + side, y + side), (x, y + side)]
        for k in 0..<4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4])
            for i in 0..<perSide {
                let t = Double(i) / Double(perSide)
                points.append((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t))
            }
        }
        return ring(points)
    }

    /// Shoelace area of the polygons (outer minus holes), in square degrees.
    static func area(_ m: MultiPolygon) -> Double {
        func ringArea(_ r: [Coordinate]) -> Double {
            var s = 0.0
            for i in 0..<(r.count - 1) { s += r[i].longitude * r[i + 1].latitude - r[i + 1].longitude * r[i].latitude }
            return abs(s) / 2
        }
        return m.polygons.reduce(0) { total, p in
            total + ringArea(p.rings[0]) - p.rings.dropFirst().reduce(0) { $0 + ringArea($1) }
        }
    }

    /// Distance from p to segment ab in Web Mercator degrees, as the simplification measures.
    static func distance(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
        let (px, py) = (p.longitude, MultiPolygon.mercatorY(p.latitude))
        let (ax, ay) = (a.longitude, MultiPolygon.mercatorY(a.latitude))
        let (bx, by) = (b.longitude, MultiPolygon.mercatorY(b.latitude))
        let (dx, dy) = (bx - ax, by - ay)
        let l = dx * dx + dy * dy
        let t = l == 0 ? 0 : max(0, min(1, ((px - ax) * dx + (py - ay) * dy) / l))
        return ((px - ax - t * dx) * (px - ax - t * dx) + (py - ay - t * dy) * (py - ay - t * dy)).squareRoot()
    }

    // MARK: simplified

    @Test func collinearPointsGoCornersStay() {
        let m = Self.shape([Self.square(120, 30, 1, perSide: 50)])
        #expect(m.pointCount == 201)
        let s = m.simplified(tolerance: 0.001)
        #expect(s.polygons.count == 1)
        #expect(Set(s.polygons[0].rings[0]) == Set(Self.square(120, 30, 1)))
        #expect(s.polygons[0].rings[0].count == 5)
        #expect(s.polygons[0].rings[0].first == s.polygons[0].rings[0].last)
    }

    @Test func noToleranceChangesNothing() {
        let m = Self.shape([Self.square(120, 30, 1, perSide: 7)])
        #expect(m.simplified(tolerance: 0) == m)
        #expect(m.simplified(tolerance: -1) == m)
        #expect(m.simplified(tolerance: .nan) == m)
    }

    @Test func aBumpGoesOnlyWhenSmallerThanTheTolerance() {
        // A square whose bottom side has a spike 0.01° high in its middle.
        let spiked = Self.ring([(120, 30), (120.5, 30), (120.5, 30.01), (120.51, 30), (121, 30), (121, 31), (120, 31)])
        let m = Self.shape(spiked)
        #expect(m.simplified(tolerance: 0.02).pointCount == 5)
        #expect(m.simplified(tolerance: 0.005).polygons[0].rings[0].contains(Self.c(120.5, 30.01)))
    }

    @Test func distancesAreMercatorSoOneToleranceIsOneSizeOnScreen() {
        // The same 0.01° spike in latitude is about 0.01° of Mercator y at the equator and
        // twice that at 60° N, where a map stretches latitude by 1 / cos 60°.
        func spiked(_ y: Double) -> MultiPolygon {
            Self.shape(Self.ring([(0, y), (0.5, y), (0.5, y + 0.01), (0.51, y), (1, y), (1, y + 1), (0, y + 1)]))
        }
        #expect(spiked(0).simplified(tolerance: 0.015).pointCount == 5)
        #expect(spiked(60).simplified(tolerance: 0.015).pointCount == 8)
    }

    @Test func everyDroppedPointIsWithinTheToleranceOfTheLine() {
        // A star-like ring of 2,000 points with deterministic jitter.
        var points: [(Double, Double)] = []
        var seed: UInt64 = 12345
        for i in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let jitter = Double(seed >> 40) / Double(1 << 24) * 0.05
            let angle = Double(i) / 2000 * 2 * .pi
            let r = 1 + 0.3 * sin(angle * 7) + jitter
            points.append((116 + r * cos(angle), 40 + r * sin(angle) * 0.8))
        }
        let original = Self.ring(points)
        for tolerance in [0.001, 0.01, 0.05] {
            let s = Self.shape(original).simplified(tolerance: tolerance)
            let kept = s.polygons[0].rings[0]
            #expect(kept.count < original.count)
            #expect(Set(kept).isSubset(of: Set(original)))
            #expect(kept.first == kept.last)
            // Kept points are in the original order: each dropped point lies between two kept
            // neighbours, and within the tolerance of the segment joining them.
            let index = Dictionary(original.enumerated().dropLast().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            var worst = 0.0
            for k in 0..<(kept.count - 1) {
                let from = index[kept[k]]!, to = k + 1 == kept.count - 1 ? original.count - 1 : index[kept[k + 1]]!
                #expect(from < to)
                for i in from...to { worst = max(worst, Self.distance(original[i], kept[k], kept[k + 1])) }
            }
            #expect(worst <= tolerance * (1 + 1e-9), "tolerance \(tolerance): a dropped point lies \(worst) away")
        }
    }

    @Test func smallRingsAndPolygonsDropButTheShapeNeverVanishes() {
        let big = Self.square(120, 30, 1)
        let islet = Self.square(122, 30, 0.001)
        let pond = Self.square(120.5, 30.5, 0.001)
        let m = Self.shape([big, pond], [islet])
        let s = m.simplified(tolerance: 0.01)
        #expect(s.polygons.count == 1)
        #expect(s.polygons[0].rings.count == 1, "the pond (a hole) is smaller than the tolerance")
        // Everything smaller than the tolerance: the largest polygon stays as its extreme points.
        let tiny = Self.shape([Self.square(120, 30, 0.002, perSide: 5)], [islet])
        let kept = tiny.simplified(tolerance: 0.5)
        #expect(kept.polygons.count == 1)
        #expect(kept.polygons[0].rings[0].count >= 4)
        #expect(kept.boundingBox.minLongitude == 120 && kept.boundingBox.maxLongitude == 120.002)
    }

    // MARK: clipped

    @Test func clippingKeepsExactlyThePartInTheBox() {
        let m = Self.shape([Self.square(120, 30, 1, perSide: 4)])
        let box = BoundingBox(minLongitude: 120.5, minLatitude: 29, maxLongitude: 122, maxLatitude: 30.25)
        let clipped = m.clipped(to: box)
        #expect(abs(Self.area(clipped) - 0.5 * 0.25) < 1e-12)
        #expect(clipped.contains(Self.c(120.75, 30.1)))
        #expect(!clipped.contains(Self.c(120.25, 30.1)))
        #expect(!clipped.contains(Self.c(120.75, 30.5)))
        for p in clipped.polygons[0].rings[0] { #expect(box.contains(p)) }
    }

    @Test func clippingWholeOrNothing() {
        let m = Self.shape([Self.square(120, 30, 1)])
        #expect(m.clipped(to: BoundingBox(minLongitude: 119, minLatitude: 29, maxLongitude: 122, maxLatitude: 32)) == m)
        #expect(m.clipped(to: BoundingBox(minLongitude: 125, minLatitude: 29, maxLongitude: 126, maxLatitude: 32)).polygons.isEmpty)
        // A box inside the hole: nothing of the shape is there.
        let ring = Self.shape([Self.square(120, 30, 1), Self.square(120.2, 30.2, 0.6)])
        let inHole = ring.clipped(to: BoundingBox(minLongitude: 120.4, minLatitude: 30.4, maxLongitude: 120.6, maxLatitude: 30.6))
        #expect(!inHole.contains(Self.c(120.5, 30.5)))
        #expect(Self.area(inHole) < 1e-12)
    }

    @Test func clippingAConcaveShapeKeepsBothArms() {
        // A U: two arms joined at the bottom; a box across the arms' tops cuts two pieces, which
        // Sutherland–Hodgman returns as one ring joined along the box's edge (zero area there).
        let u = Self.shape(Self.ring([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)]))
        let clipped = u.clipped(to: BoundingBox(minLongitude: -1, minLatitude: 2, maxLongitude: 4, maxLatitude: 4))
        #expect(abs(Self.area(clipped) - 2) < 1e-12)
        #expect(clipped.contains(Self.c(0.5, 2.5)) && clipped.contains(Self.c(2.5, 2.5)))
        #expect(!clipped.contains(Self.c(1.5, 2.5)))
    }

    // MARK: labelPoint, geoJSON

    @Test func theLabelPointIsInsideEvenWhereTheMiddleIsNot() throws {
        let u = Self.shape(Self.ring([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)]))
        let label = try #require(u.labelPoint)
        #expect(u.contains(label))
        #expect(!u.contains(Self.c(1.5, 1.5)))
        let islands = Self.shape([Self.square(0, 0, 0.1)], [Self.square(5, 5, 2)])
        #expect(islands.labelPoint == Self.c(6, 6))
        #expect(MultiPolygon(polygons: []).labelPoint == nil)
    }

    @Test func geoJSONRoundsAndWritesEachPositionOnce() throws {
        let m = Self.shape(Self.ring([(120.123456789, 30.1), (120.123457, 30.1), (121, 30.1), (121, 31)]))
        let json = m.geoJSONGeometry(decimals: 3)
        #expect(json == #"{"type":"MultiPolygon","coordinates":[[[[120.123,30.1],[121,30.1],[121,31],[120.123,30.1]]]]}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(m.geoJSONGeometry(decimals: 6).utf8)) as? [String: Any]
        #expect(parsed?["type"] as? String == "MultiPolygon")
    }
}
