import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct EncodingTests {
    private static let sample = try! MultiPolygon(wkt: """
        MULTIPOLYGON(((116.39742812345 39.90923, 116.5 39.9, 116.45 40.123456789, 116.39742812345 39.90923)),
        ((-179.9999999 -89.9999999, 179.9999999 -89.9999999, 179.9999999 89.9999999, -179.9999999 -89.9999999),
         (0 0, 1 0, 1 1, 0 0)))
        """)

    @Test func roundTripsWithinOneCentimetre() throws {
        let bytes = Self.sample.encoded()
        #expect(bytes.count == 4 + 4 + 2 * 4 + 3 * 4 + 12 * 8)
        #expect(Array(bytes.prefix(4)) == [0x47, 0x5A, 0x4D, 0x01])
        let decoded = try MultiPolygon(encoded: bytes)
        #expect(decoded.polygons.count == 2 && decoded.polygons[1].rings.count == 2)
        for (p, q) in zip(Self.sample.polygons, decoded.polygons) {
            for (r, s) in zip(p.rings, q.rings) {
                #expect(r.count == s.count)
                for (a, b) in zip(r, s) { #expect(a.distance(to: b) < 0.01) }
            }
        }
        // Seven decimals or fewer survive exactly.
        let exact = try MultiPolygon(wkt: "POLYGON((120.1234567 30.2,120.2 30.2,120.2 30.3,120.1234567 30.2))")
        #expect(try MultiPolygon(encoded: exact.encoded()) == exact)
    }

    @Test func rejectsCorruptBytes() {
        let good = Self.sample.encoded()
        // Every truncation.
        for length in 0..<good.count {
            #expect(throws: GeometryError.self) { try MultiPolygon(encoded: Array(good.prefix(length))) }
        }
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: good + [0]) }
        var badMagic = good; badMagic[0] = 0x00
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: badMagic) }
        // Absurd counts must be refused before allocating.
        var hugeCount = good; hugeCount.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: hugeCount) }
        var hugeRings = good; hugeRings.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: hugeRings) }
        // A ring that no longer closes, and an out-of-range latitude.
        var open = good; open[good.count - 1] ^= 0x01
        #expect(throws: GeometryError.corrupt("ring 3 is not closed")) { try MultiPolygon(encoded: open) }
        var outOfRange = good; outOfRange.replaceSubrange(32..<36, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: outOfRange) }
        #expect(throws: GeometryError.empty) { try MultiPolygon(encoded: [0x47, 0x5A, 0x4D, 0x01, 0, 0, 0, 0]) }
        // Random garbage never traps.
        var rng = SplitMix64(state: 7)
        for _ in 0..<500 {
            var junk = (0..<Int.random(in: 0..<120, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if junk.count >= 4 && Bool.random(using: &rng) { junk.replaceSubrange(0..<4, with: MultiPolygon.binaryMagic) }
            _ = try? MultiPolygon(encoded: junk)
        }
    }

    /// The index a batch builds straight from the bytes is the one built from the decoded
    /// polygons, and a blob one refuses the other refuses with the same error.
    @Test func indexFromBytesIsTheDecodedPolygonsIndex() {
        let same = Self.expectSameIndex
        let good = Self.sample.encoded()
        same(good, "sample")
        for length in 0..<good.count { same(Array(good.prefix(length)), "first \(length) bytes") }
        var open = good; open[good.count - 1] ^= 0x01
        same(open, "open ring")
        var outOfRange = good; outOfRange.replaceSubrange(32..<36, with: [0xFF, 0xFF, 0xFF, 0x7F])
        same(outOfRange, "out of range")
        // A later point of a ring out of range, then two: the first of them is the one named.
        var lateOutOfRange = good; lateOutOfRange.replaceSubrange((good.count - 16)..<(good.count - 12), with: [0xFF, 0xFF, 0xFF, 0x7F])
        same(lateOutOfRange, "a later point out of range")
        var twoOutOfRange = lateOutOfRange; twoOutOfRange.replaceSubrange((good.count - 28)..<(good.count - 24), with: [0x01, 0x00, 0x00, 0x80])
        same(twoOutOfRange, "two points out of range")
    }

    /// A boundary read in place from its bytes (as a batch tests most districts) gives its
    /// index's answers and area, and takes exactly the bytes the index takes.
    @Test func storedBoundaryAnswersAsItsIndex() {
        let good = Self.sample.encoded()
        Self.expectSameAnswers(good, "sample")
        for length in 0..<good.count { Self.expectSameAnswers(Array(good.prefix(length)), "first \(length) bytes") }
        var open = good; open[good.count - 1] ^= 0x01
        Self.expectSameAnswers(open, "open ring")
        var outOfRange = good; outOfRange.replaceSubrange(32..<36, with: [0xFF, 0xFF, 0xFF, 0x7F])
        Self.expectSameAnswers(outOfRange, "out of range")
        // A square with a square hole, and a ring whose vertices sit on the probes' latitudes.
        let holed = try! MultiPolygon(wkt: "POLYGON((100 30,101 30,101 31,100 31,100 30),(100.25 30.25,100.75 30.25,100.75 30.75,100.25 30.75,100.25 30.25))")
        Self.expectSameAnswers(holed.encoded(), "holed")
        let zigzag = try! MultiPolygon(wkt: "POLYGON((110 20,110.1 20.5,110.2 20,110.3 20.5,110.4 20,110.4 21,110 21,110 20))")
        Self.expectSameAnswers(zigzag.encoded(), "zigzag")
    }

    /// A region's shape answers the same read in place and, once tested often enough, through
    /// the index it then builds.
    @Test func shapeAnswersAlikeBeforeAndAfterItsIndex() throws {
        let bytes = try MultiPolygon(wkt: "POLYGON((100 30,101 30,101 31,100 31,100 30),(100.25 30.25,100.75 30.25,100.75 30.75,100.25 30.75,100.25 30.25))").encoded()
        let shape = RegionCache.Shape(stored: try #require(StoredBoundary(bytes)))
        let index = try PolygonIndex(encoded: bytes)
        for i in 0..<(3 * RegionCache.Shape.testsBeforeIndex) {
            let p = Coordinate(longitude: 99.9 + Double(i) * 0.0131, latitude: 30.2 + Double(i % 7) * 0.1)
            #expect(shape.contains(p) == index.contains(longitude: p.longitude, latitude: p.latitude), "test \(i + 1)")
        }
        #expect(shape.area == index.area)
        #expect(shape.distanceToBoundary(from: Coordinate(longitude: 100.5, latitude: 30.2), within: 60_000)
            == index.distanceToBoundary(longitude: 100.5, latitude: 30.2, within: 60_000))
    }

    /// `StoredBoundary(bytes)` is made exactly when `PolygonIndex(encoded:)` takes `bytes`, and
    /// then answers `contains` as the index does at vertices, at their edges' middles, on their
    /// latitudes beside them, and at points spread over and around its box, with the index's
    /// area, bit for bit.
    static func expectSameAnswers(_ bytes: [UInt8], _ what: String) {
        let index = try? PolygonIndex(encoded: bytes)
        let stored = StoredBoundary(bytes)
        #expect((index == nil) == (stored == nil), "\(what)")
        guard let index, let stored else { return }
        #expect(stored.area.bitPattern == index.area.bitPattern, "\(what)")
        #expect(stored.pointCount * 2 == index.xy.count, "\(what)")
        var probes: [(Double, Double)] = []
        let xs = stride(from: 0, to: index.xy.count, by: 2).map { index.xy[$0] }
        let ys = stride(from: 1, to: index.xy.count, by: 2).map { index.xy[$0] }
        // Some 60 vertices of a large boundary (every one of a small), and their edges.
        for k in stride(from: 0, to: xs.count, by: max(1, xs.count / 60)) {
            probes.append((xs[k], ys[k]))
            probes.append((xs[k] + 1e-7, ys[k]))
            probes.append((xs[k] - 1e-7, ys[k]))
            if k + 1 < xs.count {
                probes.append(((xs[k] + xs[k + 1]) / 2, (ys[k] + ys[k + 1]) / 2))
                probes.append(((xs[k] + xs[k + 1]) / 2, ys[k].nextUp))
                probes.append(((xs[k] + xs[k + 1]) / 2, ys[k].nextDown))
            }
        }
        let b = index.bounds
        for i in 0...12 {
            for j in 0...12 {
                let x = b.minLongitude - 0.01 + (b.maxLongitude - b.minLongitude + 0.02) * Double(i) / 12
                let y = b.minLatitude - 0.01 + (b.maxLatitude - b.minLatitude + 0.02) * Double(j) / 12
                probes.append((x, y))
            }
        }
        let differing = probes.filter { x, y in
            Coordinate(longitude: x, latitude: y).isValid && stored.contains(longitude: x, latitude: y) != index.contains(longitude: x, latitude: y)
        }
        #expect(differing.isEmpty, "\(what): \(differing.prefix(3))")
    }

    /// `PolygonIndex(encoded:)` of `bytes` is `PolygonIndex(polygons:)` of what `MultiPolygon(encoded:)`
    /// decodes (the same arrays, box and area), or both refuse `bytes` with the same error.
    static func expectSameIndex(_ bytes: [UInt8], _ what: String) {
        switch (Result { try MultiPolygon(encoded: bytes) }, Result { try PolygonIndex(encoded: bytes) }) {
        case (.success(let polygon), .success(let index)):
            let built = PolygonIndex(polygons: polygon.polygons)
            #expect(index.xy == built.xy, "\(what)")
            #expect(index.edges == built.edges && index.bandStarts == built.bandStarts, "\(what)")
            #expect(index.bounds == built.bounds && index.rings.count == built.rings.count && index.parts.count == built.parts.count, "\(what)")
            #expect(zip(index.rings, built.rings).allSatisfy {
                ($0.minX, $0.minY, $0.maxX, $0.maxY, $0.invBandHeight) == ($1.minX, $1.minY, $1.maxX, $1.maxY, $1.invBandHeight)
                    && ($0.bandCount, $0.bandBase, $0.pointStart, $0.pointEnd) == ($1.bandCount, $1.bandBase, $1.pointStart, $1.pointEnd)
            }, "\(what)")
            #expect(index.area == polygon.area, "\(what)")
        case (.failure(let a), .failure(let b)):
            #expect("\(a)" == "\(b)", "\(what)")
        default:
            Issue.record("one decodes and the other does not: \(what)")
        }
    }

    @Test func geoJSONGeometryIsValidJSON() throws {
        let mp = try MultiPolygon(wkt: "POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1.5,2 2,1 1))")
        let json = mp.geoJSONGeometry
        #expect(json == #"{"type":"MultiPolygon","coordinates":[[[[0,0],[10,0],[10,10],[0,0]],[[1,1],[2,1.5],[2,2],[1,1]]]]}"#)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "MultiPolygon")
        let coordinates = object?["coordinates"] as? [[[[Double]]]]
        #expect(coordinates?[0][1][1] == [2, 1.5])
        #expect(MultiPolygon(polygons: []).geoJSONGeometry == #"{"type":"MultiPolygon","coordinates":[]}"#)
    }
}
