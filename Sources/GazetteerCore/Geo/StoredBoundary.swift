import Foundation

/// A stored boundary (`MultiPolygon.encoded()`) read in place: the point-in-polygon test and
/// the area straight from its bytes, with no index built. A batch tests most districts'
/// boundaries a few times each; building a `PolygonIndex` for each (tens of microseconds, and
/// megabytes of arrays read once, cold) cost more than reading their few kilobytes of points
/// in order for each test. The answers are `PolygonIndex(encoded:)`'s, bit for bit: the same
/// `Double`s, the same arithmetic, the same boxes (see `contains`, `area`).
package struct StoredBoundary: Sendable {
    /// A ring: its box (as the index's `Double`s) and its points' range in the point list.
    private struct Ring: Sendable {
        var minX: Double, minY: Double, maxX: Double, maxY: Double
        var start: Int32, end: Int32
    }

    private let bytes: [UInt8]
    /// Where the points start in `bytes` (8 bytes each: longitude, latitude as Int32 × 10⁷).
    private let offset: Int
    private let rings: [Ring]
    private let parts: [PolygonIndex.Part]
    /// How many points in all (the index's size, for callers weighing a build).
    package let pointCount: Int

    /// No boundary: no point inside, no area (a shape whose index was built at once).
    package init() {
        bytes = []
        offset = 0
        rings = []
        parts = []
        pointCount = 0
    }

    /// Reads the layout and each ring's box; nil when `PolygonIndex(encoded:)` would refuse the
    /// bytes (it is then the one to say why).
    package init?(_ bytes: [UInt8]) {
        guard let (ringCounts, pointCounts, offset) = try? MultiPolygon.encodedLayout(bytes) else { return nil }
        var rings: [Ring] = []
        rings.reserveCapacity(pointCounts.count)
        var parts: [PolygonIndex.Part] = []
        parts.reserveCapacity(ringCounts.count)
        let valid = bytes.withUnsafeBytes { raw -> Bool in
            var at = offset
            var filled: Int32 = 0
            var r = 0
            for ringsOfPart in ringCounts {
                var part = PolygonIndex.Part(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity,
                                ringStart: Int32(r), ringEnd: Int32(r + ringsOfPart))
                for _ in 0..<ringsOfPart {
                    let n = pointCounts[r]
                    r += 1
                    var loX = Int32.max, hiX = Int32.min, loY = Int32.max, hiY = Int32.min
                    let first = at
                    for _ in 0..<n {
                        let ix = Self.int(raw, at), iy = Self.int(raw, at + 4)
                        at += 8
                        loX = Swift.min(loX, ix); hiX = Swift.max(hiX, ix)
                        loY = Swift.min(loY, iy); hiY = Swift.max(hiY, iy)
                    }
                    // As `PolygonIndex(encoded:)` checks: the box in range, the ring closed.
                    let minX = Self.degrees(loX), maxX = Self.degrees(hiX), minY = Self.degrees(loY), maxY = Self.degrees(hiY)
                    guard Coordinate(longitude: minX, latitude: minY).isValid, Coordinate(longitude: maxX, latitude: maxY).isValid,
                          Self.int(raw, first) == Self.int(raw, at - 8), Self.int(raw, first + 4) == Self.int(raw, at - 4)
                    else { return false }
                    rings.append(Ring(minX: minX, minY: minY, maxX: maxX, maxY: maxY, start: filled, end: filled + Int32(n)))
                    filled += Int32(n)
                    part.minX = Swift.min(part.minX, minX); part.maxX = Swift.max(part.maxX, maxX)
                    part.minY = Swift.min(part.minY, minY); part.maxY = Swift.max(part.maxY, maxY)
                }
                parts.append(part)
            }
            return true
        }
        guard valid else { return nil }
        self.bytes = bytes
        self.offset = offset
        self.rings = rings
        self.parts = parts
        pointCount = pointCounts.reduce(0, +)
    }

    /// The index these bytes make (`PolygonIndex(encoded:)`, which `init` checked would take them).
    package func index() throws(GeometryError) -> PolygonIndex {
        try PolygonIndex(encoded: bytes)
    }

    @inline(__always)
    private static func int(_ raw: UnsafeRawBufferPointer, _ at: Int) -> Int32 {
        Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }

    /// A stored integer as the index's `Double` (as `MultiPolygon(encoded:)` reads a point).
    @inline(__always)
    private static func degrees(_ i: Int32) -> Double { Double(i) / MultiPolygon.binaryScale }

    /// `PolygonIndex.contains` of these bytes' index, by reading every edge of the rings whose
    /// box holds the point. The index reads only the edges of the point's band, a superset of
    /// those that cross its latitude (`band` keeps the order of latitudes), and every other edge
    /// fails the crossing test; the parity of crossings does not depend on their order. The
    /// crossing test runs on the stored integers: a latitude's `Double` is the integer divided
    /// by 10⁷, which keeps their order, so it exceeds `y` exactly from the least integer whose
    /// `Double` does (`threshold`). Only an edge that crosses is converted, as the index does.
    package func contains(longitude x: Double, latitude y: Double) -> Bool {
        let above = Self.threshold(y)
        return bytes.withUnsafeBytes { raw in
            // Point k's longitude at `points + 8k`, its latitude 4 bytes on.
            let points = raw.baseAddress! + offset
            @inline(__always) func int(_ at: UnsafeRawPointer) -> Int32 {
                Int32(bitPattern: UInt32(littleEndian: at.loadUnaligned(as: UInt32.self)))
            }
            return parts.withUnsafeBufferPointer { parts in
                rings.withUnsafeBufferPointer { rings in
                    PolygonIndex.evenOdd(x, y, parts: parts, ringBox: { r in
                        (rings[r].minX, rings[r].minY, rings[r].maxX, rings[r].maxY)
                    }, crossesOddly: { r in
                        var at = points + 8 &* Int(rings[r].start)
                        let end = points + 8 &* Int(rings[r].end)
                        var odd = false
                        var wasAbove = int(at + 4) >= above
                        at += 8
                        while true {
                            // On to the next point on the other side of the latitude: the edge
                            // to it from the point before is the next that may cross.
                            if wasAbove {
                                while at < end && int(at + 4) >= above { at += 8 }
                            } else {
                                while at < end && int(at + 4) < above { at += 8 }
                            }
                            if at >= end { return odd }
                            // The index's test of that edge, on the same `Double`s.
                            let xi = Self.degrees(int(at - 8)), yi = Self.degrees(int(at - 4))
                            let xj = Self.degrees(int(at)), yj = Self.degrees(int(at + 4))
                            if x < (xj - xi) * (y - yi) / (yj - yi) + xi { odd.toggle() }
                            wasAbove.toggle()
                            at += 8
                        }
                    })
                }
            }
        }
    }

    /// The least stored integer whose `Double` (`degrees`) is greater than `y`: `degrees` never
    /// decreases as the integer grows, so `degrees(i) > y` exactly when `i >= threshold(y)`.
    /// `y` is a valid latitude, so the integers near it are far inside `Int32`'s range.
    static func threshold(_ y: Double) -> Int32 {
        var t = Int64((y * MultiPolygon.binaryScale).rounded(.down))
        while degrees(Int32(t - 1)) > y { t -= 1 }
        while !(degrees(Int32(t)) > y) { t += 1 }
        return Int32(t)
    }

    /// `PolygonIndex.area` of these bytes' index, by the same arithmetic in the same order.
    package var area: Double {
        var total = 0.0
        let ky = 110_574.0
        bytes.withUnsafeBytes { raw in
            @inline(__always) func x(_ k: Int) -> Double { Self.degrees(Self.int(raw, offset + 8 * k)) }
            @inline(__always) func y(_ k: Int) -> Double { Self.degrees(Self.int(raw, offset + 8 * k + 4)) }
            for part in parts {
                let first = Int(part.ringStart), last = Int(part.ringEnd)
                guard first < last, rings[first].end > rings[first].start else { continue }
                let outer = rings[first]
                // The extremes of the `Double`s are those of the integers (`degrees` keeps their order).
                let minLat = outer.minY, maxLat = outer.maxY
                let kx = 111_320.0 * cos((minLat + maxLat) / 2 * .pi / 180)
                for r in first..<last {
                    let ring = rings[r]
                    var twice = 0.0
                    if ring.end - ring.start > 1 {
                        for j in (Int(ring.start) + 1)..<Int(ring.end) {
                            twice += x(j - 1) * y(j) - x(j) * y(j - 1)
                        }
                    }
                    total += (r == first ? 1 : -1) * abs(twice) / 2 * kx * ky
                }
            }
        }
        return Swift.max(total, 0)
    }
}
