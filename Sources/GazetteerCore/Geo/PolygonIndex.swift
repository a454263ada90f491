import Foundation

/// Flattened, allocation-free search structure for point-in-polygon tests.
///
/// Reverse geocoding tests a point against several district boundaries of thousands of
/// vertices each, so a plain scan of every edge would dominate the query. Each ring is cut into
/// horizontal bands and each band lists only the edges whose latitude span meets it; a query
/// then looks at the few edges that can cross the horizontal ray through the point, after
/// rejecting whole polygons and rings by their bounding boxes. Everything is stored in flat
/// arrays of plain values so the structure is `Sendable` and cheap to copy.
package struct PolygonIndex: Sendable {
    package struct Ring: Sendable {
        package var minX: Double, minY: Double, maxX: Double, maxY: Double
        /// Bands per unit of latitude (bandCount / height); 0 when the ring is flat.
        package var invBandHeight: Double
        package var bandCount: Int32
        /// Index into `bandStarts` of this ring's first band; the ring owns bandCount + 1 entries.
        package var bandBase: Int32
        /// Range of this ring's points (pairs of `xy`); the ring is stored closed.
        package var pointStart: Int32, pointEnd: Int32
    }

    package struct Part: Sendable {
        package var minX: Double, minY: Double, maxX: Double, maxY: Double
        package var ringStart: Int32, ringEnd: Int32
    }

    /// Every point's longitude then latitude, interleaved: the point-in-polygon test reads an
    /// edge's four values together (usually one cache line), where two arrays cost a cache miss
    /// in each, and a batch's tests of boundaries met cold mostly wait on those misses.
    private(set) var xy: [Double] = []
    private(set) var rings: [Ring] = []
    private(set) var parts: [Part] = []
    /// CSR offsets into `edges`, per band of every ring.
    private(set) var bandStarts: [Int32] = []
    /// Edge `k` is the segment from point `k` to point `k + 1`.
    private(set) var edges: [Int32] = []
    private(set) var bounds: BoundingBox = .empty

    /// Roughly how many edges a band should hold on average.
    private static let edgesPerBand = 4
    private static let maxBands = 1 << 16

    /// Built through plain buffers: a batch decodes every boundary (millions of points) before
    /// its first point, and bounds checks and appends per point were most of that. Each edge's
    /// band span is worked out once (the count pass keeps it for the fill pass), and each ring's
    /// total latitude change is summed as its points are copied, in the same order as a pass
    /// of its own would, so the bands are the same.
    package init(polygons: [Polygon]) {
        let pointCount = polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count + 1 } }
        let ringCount = polygons.reduce(0) { $0 + $1.rings.count }
        // The points, each ring closed internally so edge k -> k + 1 covers every side.
        var ringBoxes: [RingBox] = []
        ringBoxes.reserveCapacity(ringCount)
        var filled = 0
        xy = [Double](unsafeUninitializedCapacity: 2 * pointCount) { xy, done in
            for polygon in polygons {
                for points in polygon.rings {
                    let start = filled
                    var minX = Double.infinity, minY = Double.infinity
                    var maxX = -Double.infinity, maxY = -Double.infinity
                    var totalDy = 0.0
                    points.withUnsafeBufferPointer { points in
                        for p in points {
                            if filled > start { totalDy += abs(p.latitude - xy[2 * (filled - 1) + 1]) }
                            xy[2 * filled] = p.longitude
                            xy[2 * filled + 1] = p.latitude
                            filled += 1
                            minX = Swift.min(minX, p.longitude); maxX = Swift.max(maxX, p.longitude)
                            minY = Swift.min(minY, p.latitude); maxY = Swift.max(maxY, p.latitude)
                        }
                        if let first = points.first, let last = points.last, first != last {
                            totalDy += abs(first.latitude - xy[2 * (filled - 1) + 1])
                            xy[2 * filled] = first.longitude
                            xy[2 * filled + 1] = first.latitude
                            filled += 1
                        }
                    }
                    ringBoxes.append((minX, minY, maxX, maxY, start, filled, totalDy))
                }
            }
            done = 2 * filled
        }
        buildBands(ringBoxes, ringsPerPolygon: polygons.map(\.rings.count))
    }

    /// A ring's box, its points' range (pairs of `xy`), and the sum of its edges' latitude changes.
    private typealias RingBox = (minX: Double, minY: Double, maxX: Double, maxY: Double, start: Int, end: Int, totalDy: Double)

    /// The index of a stored boundary (`MultiPolygon.encoded()`), built from its bytes: the same
    /// index as `PolygonIndex(polygons:)` of `MultiPolygon(encoded:)`'s polygons, and the same
    /// errors, without the polygons (a batch builds thousands and needs only the index).
    package init(encoded bytes: [UInt8]) throws(GeometryError) {
        let (ringCounts, pointCounts, offset) = try MultiPolygon.encodedLayout(bytes)
        let pointCount = pointCounts.reduce(0, +)
        var ringBoxes: [RingBox] = []
        ringBoxes.reserveCapacity(pointCounts.count)
        var failure: GeometryError?
        var filled = 0
        bytes.withUnsafeBytes { raw in
            xy = [Double](unsafeUninitializedCapacity: 2 * pointCount) { xy, done in
                var at = offset
                rings: for (r, n) in pointCounts.enumerated() {
                    let start = filled
                    // The extremes kept as the stored integers: a point's `Double` is the
                    // integer divided by the scale, which keeps their order, so the extremes'
                    // `Double`s are the extremes of the `Double`s, and range-checking them
                    // checks every point's range, not each point on its own.
                    var loX = Int32.max, hiX = Int32.min, loY = Int32.max, hiY = Int32.min
                    var totalDy = 0.0
                    var previous = 0.0
                    for i in 0..<n {
                        // As `MultiPolygon(encoded:)` reads a point.
                        let ix = Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                        let iy = Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                        at += 8
                        let lat = Double(iy) / MultiPolygon.binaryScale
                        if i > 0 { totalDy += abs(lat - previous) }
                        previous = lat
                        xy[2 * filled] = Double(ix) / MultiPolygon.binaryScale
                        xy[2 * filled + 1] = lat
                        filled += 1
                        loX = Swift.min(loX, ix); hiX = Swift.max(hiX, ix)
                        loY = Swift.min(loY, iy); hiY = Swift.max(hiY, iy)
                    }
                    let minX = Double(loX) / MultiPolygon.binaryScale, maxX = Double(hiX) / MultiPolygon.binaryScale
                    let minY = Double(loY) / MultiPolygon.binaryScale, maxY = Double(hiY) / MultiPolygon.binaryScale
                    guard Coordinate(longitude: minX, latitude: minY).isValid, Coordinate(longitude: maxX, latitude: maxY).isValid else {
                        // Refused as `MultiPolygon(encoded:)` refuses it: by the ring's first point out of range.
                        for k in start..<filled {
                            let c = Coordinate(longitude: xy[2 * k], latitude: xy[2 * k + 1])
                            if !c.isValid {
                                failure = .corrupt("coordinate (\(c.longitude) \(c.latitude)) out of range in ring \(r + 1)")
                                break
                            }
                        }
                        break rings
                    }
                    guard xy[2 * start] == xy[2 * (filled - 1)], xy[2 * start + 1] == xy[2 * (filled - 1) + 1] else {
                        failure = .corrupt("ring \(r + 1) is not closed")
                        break
                    }
                    ringBoxes.append((minX, minY, maxX, maxY, start, filled, totalDy))
                }
                done = 2 * filled
            }
        }
        if let failure { throw failure }
        buildBands(ringBoxes, ringsPerPolygon: ringCounts)
    }

    /// The bands of every ring (see `init(polygons:)`), once `xy` holds the points.
    private mutating func buildBands(_ ringBoxes: [RingBox], ringsPerPolygon: [Int]) {
        let filled = xy.count / 2
        let ringCount = ringBoxes.count
        // Per edge, its first and last band (the fill pass reads what the count pass found).
        let spans = UnsafeMutableBufferPointer<(lo: Int32, hi: Int32)>.allocate(capacity: Swift.max(1, filled))
        defer { spans.deallocate() }
        var counts: [Int32] = []
        var bandStarts: [Int32] = []
        bandStarts.reserveCapacity(ringCount + filled / Self.edgesPerBand + 1)
        var entries = 0
        rings.reserveCapacity(ringCount)
        var ringIndex = 0
        // First the bands of every ring and how many entries each holds; then the entries.
        var ringBands: [(bandCount: Int, invBandHeight: Double, base: Int, edgeBase: Int)] = []
        ringBands.reserveCapacity(ringCount)
        parts.reserveCapacity(ringsPerPolygon.count)
        xy.withUnsafeBufferPointer { xy in
            for ringsOfPolygon in ringsPerPolygon {
                var part = Part(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity,
                                ringStart: Int32(rings.count), ringEnd: Int32(rings.count))
                for _ in 0..<ringsOfPolygon {
                    let (minX, minY, maxX, maxY, start, end, totalDy) = ringBoxes[ringIndex]
                    ringIndex += 1
                    let edgeCount = Swift.max(0, end - start - 1)
                    let height = maxY - minY
                    var bandCount = 1
                    if height > 0 && height.isFinite && edgeCount > 0 {
                        // An edge is listed in every band its latitude span meets, so about
                        // edgeCount + Σ|Δy| / bandHeight entries in all. Spiky rings would blow that
                        // up: cap the bands so the index stays within ~4 entries per edge.
                        let bySize = edgeCount / Self.edgesPerBand
                        let byMemory = totalDy > 0 ? Double(3 * edgeCount) * height / totalDy : Double(Self.maxBands)
                        bandCount = Swift.max(1, Swift.min(bySize, Self.maxBands, Int(Swift.min(byMemory, Double(Self.maxBands)))))
                    }
                    let invBandHeight = height > 0 && height.isFinite ? Double(bandCount) / height : 0

                    @inline(__always) func band(_ y: Double) -> Int {
                        let b = (y - minY) * invBandHeight
                        guard b > 0 else { return 0 }            // also catches NaN
                        return b >= Double(bandCount - 1) ? bandCount - 1 : Int(b)
                    }

                    // Count (CSR): edges whose latitude span meets each band. Horizontal edges are
                    // listed too (in one band each): `contains` skips them by its crossing test, and
                    // `distanceToBoundary(within:)` needs every edge.
                    counts.removeAll(keepingCapacity: true)
                    counts.append(contentsOf: repeatElement(0, count: bandCount + 1))
                    let base = bandStarts.count
                    let edgeBase = entries
                    counts.withUnsafeMutableBufferPointer { counts in
                        @inline(__always) func count(_ k: Int, _ lo: Int, _ hi: Int) {
                            spans[k] = (Int32(truncatingIfNeeded: lo), Int32(truncatingIfNeeded: hi))
                            if lo == hi {
                                counts[lo + 1] &+= 1
                            } else {
                                for b in lo...hi { counts[b + 1] &+= 1 }
                            }
                        }
                        if edgeCount > 0 && !totalDy.isNaN {
                            // `band` keeps the order of latitudes, so an edge's bands run from
                            // the lesser of its ends' bands to the greater: each point's band
                            // is worked out once, for the edges on both sides of it.
                            var here = band(xy[2 * start + 1])
                            for k in start..<(end - 1) {
                                let next = band(xy[2 * (k + 1) + 1])
                                count(k, Swift.min(here, next), Swift.max(here, next))
                                here = next
                            }
                        } else if edgeCount > 0 {
                            // A ring with a NaN latitude (never one read from stored bytes):
                            // NaN has no order, so each edge as its ends compare.
                            for k in start..<(end - 1) {
                                let a = xy[2 * k + 1], b = xy[2 * (k + 1) + 1]
                                count(k, band(Swift.min(a, b)), band(Swift.max(a, b)))
                            }
                        }
                        for b in 0..<bandCount { counts[b + 1] &+= counts[b] }
                        for b in 0...bandCount { bandStarts.append(Int32(edgeBase) &+ counts[b]) }
                        entries += Int(counts[bandCount])
                    }
                    ringBands.append((bandCount, invBandHeight, base, edgeBase))
                    rings.append(Ring(minX: minX, minY: minY, maxX: maxX, maxY: maxY,
                                      invBandHeight: invBandHeight, bandCount: Int32(bandCount),
                                      bandBase: Int32(base), pointStart: Int32(start), pointEnd: Int32(end)))
                    part.minX = Swift.min(part.minX, minX); part.maxX = Swift.max(part.maxX, maxX)
                    part.minY = Swift.min(part.minY, minY); part.maxY = Swift.max(part.maxY, maxY)
                }
                part.ringEnd = Int32(rings.count)
                parts.append(part)
                if part.minX <= part.maxX && part.minY <= part.maxY {
                    bounds = bounds.union(BoundingBox(minLongitude: part.minX, minLatitude: part.minY,
                                                      maxLongitude: part.maxX, maxLatitude: part.maxY))
                }
            }
        }
        // Fill: each ring's edges into its bands, in edge order within a band.
        let starts = bandStarts
        edges = [Int32](unsafeUninitializedCapacity: entries) { edges, done in
            starts.withUnsafeBufferPointer { starts in
                var next: [Int32] = []
                for (r, ring) in rings.enumerated() {
                    let start = Int(ring.pointStart), end = Int(ring.pointEnd)
                    guard end - start > 1 else { continue }
                    let bandsOf = ringBands[r]
                    next.removeAll(keepingCapacity: true)
                    next.append(contentsOf: starts[bandsOf.base..<(bandsOf.base + bandsOf.bandCount)])
                    next.withUnsafeMutableBufferPointer { next in
                        for k in start..<(end - 1) {
                            let (lo, hi) = spans[k]
                            var b = Int(lo)
                            while b <= Int(hi) {
                                edges[Int(next[b])] = Int32(truncatingIfNeeded: k)
                                next[b] &+= 1
                                b += 1
                            }
                        }
                    }
                }
            }
            done = entries
        }
        self.bandStarts = bandStarts
    }

    /// `MultiPolygon.area` of the polygons this index was built from, by the same arithmetic in
    /// the same order, when every ring was stored closed (as `init(encoded:)` requires; a ring
    /// `init(polygons:)` closed itself would add its closing edge here).
    package var area: Double {
        var total = 0.0
        for part in parts {
            let first = Int(part.ringStart), last = Int(part.ringEnd)
            guard first < last, rings[first].pointEnd > rings[first].pointStart else { continue }
            let outer = rings[first]
            var minLat = Double.infinity, maxLat = -Double.infinity
            for k in Int(outer.pointStart)..<Int(outer.pointEnd) { minLat = Swift.min(minLat, xy[2 * k + 1]); maxLat = Swift.max(maxLat, xy[2 * k + 1]) }
            let kx = 111_320.0 * cos((minLat + maxLat) / 2 * .pi / 180), ky = 110_574.0
            for r in first..<last {
                let ring = rings[r]
                var twice = 0.0
                if ring.pointEnd - ring.pointStart > 1 {
                    for j in (Int(ring.pointStart) + 1)..<Int(ring.pointEnd) {
                        twice += xy[2 * (j - 1)] * xy[2 * j + 1] - xy[2 * j] * xy[2 * (j - 1) + 1]
                    }
                }
                total += (r == first ? 1 : -1) * abs(twice) / 2 * kx * ky
            }
        }
        return Swift.max(total, 0)
    }

    /// Even-odd test per polygon; true if any polygon contains the point.
    package func contains(longitude x: Double, latitude y: Double) -> Bool {
        guard x >= bounds.minLongitude, x <= bounds.maxLongitude,
              y >= bounds.minLatitude, y <= bounds.maxLatitude else { return false }
        return parts.withUnsafeBufferPointer { parts in
            rings.withUnsafeBufferPointer { rings in
                bandStarts.withUnsafeBufferPointer { bandStarts in
                    edges.withUnsafeBufferPointer { edges in
                        xy.withUnsafeBufferPointer { xy in
                            Self.evenOdd(x, y, parts: parts, ringBox: { r in
                                (rings[r].minX, rings[r].minY, rings[r].maxX, rings[r].maxY)
                            }, crossesOddly: { r in
                                let ring = rings[r]
                                var b = Int((y - ring.minY) * ring.invBandHeight)
                                if b >= Int(ring.bandCount) { b = Int(ring.bandCount) - 1 }
                                let from = Int(bandStarts[Int(ring.bandBase) + b])
                                let to = Int(bandStarts[Int(ring.bandBase) + b + 1])
                                var odd = false
                                for e in from..<to {
                                    let i = Int(edges[e])
                                    let yi = xy[2 * i + 1], yj = xy[2 * (i + 1) + 1]
                                    if (yi > y) != (yj > y) {
                                        let xi = xy[2 * i], xj = xy[2 * (i + 1)]
                                        if x < (xj - xi) * (y - yi) / (yj - yi) + xi { odd.toggle() }
                                    }
                                }
                                return odd
                            })
                        }
                    }
                }
            }
        }
    }

    /// The even-odd rule as `contains` applies it (and `StoredBoundary.contains`, which must
    /// answer the same): a point is inside when some part's rings whose box holds it cross the
    /// ray from it an odd number of times in all; outside a ring's box the ray crosses it an even
    /// number of times, so that ring is not read (`crossesOddly`).
    @inline(__always)
    static func evenOdd(_ x: Double, _ y: Double, parts: UnsafeBufferPointer<Part>,
                        ringBox: (Int) -> (minX: Double, minY: Double, maxX: Double, maxY: Double),
                        crossesOddly: (Int) -> Bool) -> Bool {
        for part in parts {
            if x < part.minX || x > part.maxX || y < part.minY || y > part.maxY { continue }
            var inside = false
            for r in Int(part.ringStart)..<Int(part.ringEnd) {
                let box = ringBox(r)
                if x < box.minX || x > box.maxX || y < box.minY || y > box.maxY { continue }
                if crossesOddly(r) { inside.toggle() }
            }
            if inside { return true }
        }
        return false
    }

    /// `distanceToBoundary`, exact when it is at most `limit` metres, and +∞ otherwise: reverse
    /// geocoding only asks whether a border is within a few tens of metres, so only the bands
    /// of rings whose box comes that near are read, not every edge of a province.
    package func distanceToBoundary(longitude: Double, latitude: Double, within limit: Double) -> Double {
        let metresPerDegree = Coordinate.earthRadius * Double.pi / 180
        let kx = metresPerDegree * cos(latitude * Double.pi / 180)
        let ky = metresPerDegree
        // A little wider than `limit`, so rounding never drops an edge at the limit.
        let reach = limit * 1.001 + 1e-6
        let reachY = reach / ky
        var best = Double.infinity
        return rings.withUnsafeBufferPointer { rings in
            bandStarts.withUnsafeBufferPointer { bandStarts in
                edges.withUnsafeBufferPointer { edges in
                    xy.withUnsafeBufferPointer { xy in
                        for ring in rings {
                            let outX = Swift.max(ring.minX - longitude, 0, longitude - ring.maxX) * kx
                            let outY = Swift.max(ring.minY - latitude, 0, latitude - ring.maxY) * ky
                            if outX * outX + outY * outY > reach * reach { continue }
                            let start = Int(ring.pointStart), end = Int(ring.pointEnd)
                            if end - start == 1 {
                                best = Swift.min(best, Self.pointDistance(xy, start, longitude, latitude, kx, ky))
                                continue
                            }
                            guard end - start >= 2 else { continue }
                            let last = Int(ring.bandCount) - 1
                            func band(_ y: Double) -> Int {
                                let b = (y - ring.minY) * ring.invBandHeight
                                guard b > 0 else { return 0 }
                                return b >= Double(last) ? last : Int(b)
                            }
                            let from = Int(bandStarts[Int(ring.bandBase) + band(latitude - reachY)])
                            let to = Int(bandStarts[Int(ring.bandBase) + band(latitude + reachY) + 1])
                            for e in from..<to {
                                let k = Int(edges[e])
                                // The same arithmetic as distanceToBoundary, so the same metres.
                                best = Swift.min(best, Self.edgeDistance(xy, k, longitude, latitude, kx, ky))
                            }
                        }
                        return best <= limit ? best : .infinity
                    }
                }
            }
        }
    }

    /// Calls `body` with every edge (from x0, y0 to x1, y1), rings closed; a ring of one point
    /// gives that point as an edge of no length.
    package func forEachEdge(_ body: (Double, Double, Double, Double) -> Void) {
        for ring in rings {
            let start = Int(ring.pointStart), end = Int(ring.pointEnd)
            if end - start == 1 { body(xy[2 * start], xy[2 * start + 1], xy[2 * start], xy[2 * start + 1]); continue }
            guard end - start >= 2 else { continue }
            for k in start..<(end - 1) { body(xy[2 * k], xy[2 * k + 1], xy[2 * (k + 1)], xy[2 * (k + 1) + 1]) }
        }
    }

    /// Distance in metres from the point to the nearest edge, in an equirectangular projection
    /// centred on the point (accurate to well under 1 % within a few hundred kilometres).
    package func distanceToBoundary(longitude: Double, latitude: Double) -> Double {
        let metresPerDegree = Coordinate.earthRadius * Double.pi / 180
        let kx = metresPerDegree * cos(latitude * Double.pi / 180)
        let ky = metresPerDegree
        var best = Double.infinity
        xy.withUnsafeBufferPointer { xy in
            for ring in rings {
                let start = Int(ring.pointStart), end = Int(ring.pointEnd)
                if end - start == 1 {
                    best = Swift.min(best, Self.pointDistance(xy, start, longitude, latitude, kx, ky))
                    continue
                }
                guard end - start >= 2 else { continue }
                for k in start..<(end - 1) {
                    best = Swift.min(best, Self.edgeDistance(xy, k, longitude, latitude, kx, ky))
                }
            }
        }
        return best
    }

    /// Metres from the point to point `k` (a ring of one point), as both distance searches measure it.
    @inline(__always)
    private static func pointDistance(_ xy: UnsafeBufferPointer<Double>, _ k: Int,
                                      _ longitude: Double, _ latitude: Double, _ kx: Double, _ ky: Double) -> Double {
        let dx = (xy[2 * k] - longitude) * kx, dy = (xy[2 * k + 1] - latitude) * ky
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Metres from the point to edge `k` (point `k` to point `k + 1`), by `segmentDistance`.
    @inline(__always)
    private static func edgeDistance(_ xy: UnsafeBufferPointer<Double>, _ k: Int,
                                     _ longitude: Double, _ latitude: Double, _ kx: Double, _ ky: Double) -> Double {
        segmentDistance(xy[2 * k], xy[2 * k + 1], xy[2 * k + 2], xy[2 * k + 3], longitude, latitude, kx, ky)
    }

    /// Metres from the point to the edge (x0, y0)–(x1, y1), both distance searches' one formula:
    /// the edge in the point's equirectangular projection (`kx`, `ky` metres per degree), the
    /// point (the origin there) projected onto it.
    @inline(__always)
    private static func segmentDistance(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
                                        _ longitude: Double, _ latitude: Double, _ kx: Double, _ ky: Double) -> Double {
        let ax = (x0 - longitude) * kx, ay = (y0 - latitude) * ky
        let bx = (x1 - longitude) * kx, by = (y1 - latitude) * ky
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
        t = Swift.min(1, Swift.max(0, t))
        let px = ax + t * dx, py = ay + t * dy
        return (px * px + py * py).squareRoot()
    }
}
