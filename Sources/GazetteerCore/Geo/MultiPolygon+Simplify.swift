import Foundation

/// Shapes for drawing: fewer points for a coarser view (Douglas–Peucker) and only the part
/// inside a box (Sutherland–Hodgman). Neither is for containment tests: a simplified or
/// clipped boundary is a picture of the region, not the region.
extension MultiPolygon {
    /// The shape with every ring simplified by Douglas–Peucker, as a map draws it.
    ///
    /// Distances are measured in Web Mercator, in degrees of longitude (a map's x; its y is the
    /// Mercator latitude scaled the same way), so one tolerance is one size on screen at every
    /// latitude: at zoom z one pixel is `360 / (256 · 2^z)` of these degrees.
    ///
    /// A ring that collapses (fewer than 3 distinct points left, or narrower than `tolerance`)
    /// is dropped; a polygon whose outer ring is dropped goes with its holes. So that a region
    /// never vanishes from a map, a shape that would lose every polygon keeps its largest
    /// polygon's outer ring as the quadrilateral of its extreme points.
    ///
    /// - Parameter tolerance: the largest distance a removed point may lie from the simplified
    ///   line; 0 or less (or NaN) returns the shape unchanged.
    public func simplified(tolerance: Double) -> MultiPolygon {
        guard tolerance > 0, !polygons.isEmpty else { return self }
        var out = polygonsMappingRings { Self.simplify(ring: $0, tolerance: tolerance) }
        if out.isEmpty, let largest = polygons.max(by: { Self.boxArea($0.rings.first ?? []) < Self.boxArea($1.rings.first ?? []) }),
           let ring = largest.rings.first, let quad = Self.extremes(ring) {
            out.append(Polygon(rings: [quad]))
        }
        return MultiPolygon(polygons: out)
    }

    /// The part of the shape inside `box`: each ring clipped to the box's edges
    /// (Sutherland–Hodgman). A ring that leaves the box gets edges along its border; a ring
    /// wholly outside is dropped (an outer ring with its holes). Filled even-odd or non-zero,
    /// the result covers exactly the shape's part of the box.
    public func clipped(to box: BoundingBox) -> MultiPolygon {
        let bounds = boundingBox
        if bounds.isEmpty || !bounds.intersects(box) { return MultiPolygon(polygons: []) }
        if box.minLongitude <= bounds.minLongitude, box.maxLongitude >= bounds.maxLongitude,
           box.minLatitude <= bounds.minLatitude, box.maxLatitude >= bounds.maxLatitude {
            return self
        }
        return MultiPolygon(polygons: polygonsMappingRings { Self.clip(ring: $0, to: box) })
    }

    /// The polygons with every ring transformed; a ring the transform drops (nil) is left out,
    /// and a polygon whose outer ring is dropped goes with its holes.
    private func polygonsMappingRings(_ transform: ([Coordinate]) -> [Coordinate]?) -> [Polygon] {
        var out: [Polygon] = []
        out.reserveCapacity(polygons.count)
        for polygon in polygons {
            guard let outer = polygon.rings.first, let kept = transform(outer) else { continue }
            out.append(Polygon(rings: [kept] + polygon.rings.dropFirst().compactMap(transform)))
        }
        return out
    }

    /// Points in all rings (a closed ring counts its repeated last point).
    public var pointCount: Int {
        polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count } }
    }

    /// A GeoJSON MultiPolygon geometry, as `geoJSONGeometry`, with every number rounded to
    /// `decimals` places (0 to 7; 6 is 0.1 m): a map at zoom z needs about z / 3.3 + 1.
    public func geoJSONGeometry(decimals: Int) -> String {
        let d = Swift.max(0, Swift.min(7, decimals))
        let scale = pow(10, Double(d))
        // Rounding can make neighbours equal: write each position once.
        return geoJSON(skippingRepeats: true) { v in
            v.isFinite ? Self.format((v * scale).rounded() / scale) : "null"
        }
    }

    // MARK: Douglas–Peucker

    /// Web Mercator y in degrees (the same scale as longitude), clamped short of the poles.
    package static func mercatorY(_ latitude: Double) -> Double {
        let phi = Swift.max(-85.05112878, Swift.min(85.05112878, latitude)) * .pi / 180
        return log(tan(.pi / 4 + phi / 2)) * 180 / .pi
    }

    /// A closed ring simplified, or nil when it collapses.
    static func simplify(ring: [Coordinate], tolerance: Double) -> [Coordinate]? {
        let n = ring.count
        guard n >= 4 else { return nil }
        let xs = ring.map(\.longitude)
        let ys = ring.map { mercatorY($0.latitude) }
        let (minX, maxX) = (xs.min()!, xs.max()!)
        let (minY, maxY) = (ys.min()!, ys.max()!)
        guard maxX - minX >= tolerance || maxY - minY >= tolerance else { return nil }
        // A closed ring has no natural split: keep the first point and the one farthest from it.
        var far = 0
        var farDistance = -1.0
        for i in 1..<(n - 1) {
            let dx = xs[i] - xs[0], dy = ys[i] - ys[0]
            let d = dx * dx + dy * dy
            if d > farDistance { (far, farDistance) = (i, d) }
        }
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true
        keep[far] = true
        keep[n - 1] = true
        let squared = tolerance * tolerance
        // Iterative, so a ring of a million points cannot overflow the stack.
        var stack: [(Int, Int)] = [(0, far), (far, n - 1)]
        while let (a, b) = stack.popLast() {
            guard b - a > 1 else { continue }
            let ax = xs[a], ay = ys[a]
            let dx = xs[b] - ax, dy = ys[b] - ay
            let length = dx * dx + dy * dy
            var worst = -1.0
            var at = a
            for i in (a + 1)..<b {
                let px = xs[i] - ax, py = ys[i] - ay
                var d: Double
                if length == 0 {
                    d = px * px + py * py
                } else {
                    let t = Swift.max(0, Swift.min(1, (px * dx + py * dy) / length))
                    let ex = px - t * dx, ey = py - t * dy
                    d = ex * ex + ey * ey
                }
                if d > worst { (worst, at) = (d, i) }
            }
            if worst > squared {
                keep[at] = true
                stack.append((a, at))
                stack.append((at, b))
            }
        }
        var out: [Coordinate] = []
        for i in 0..<n where keep[i] { out.append(ring[i]) }
        // Three distinct points and the closing one.
        return Set(out).count >= 3 && out.count >= 4 ? out : nil
    }

    static func boxArea(_ ring: [Coordinate]) -> Double {
        guard let minX = ring.map(\.longitude).min(), let maxX = ring.map(\.longitude).max(),
              let minY = ring.map(\.latitude).min(), let maxY = ring.map(\.latitude).max() else { return 0 }
        return (maxX - minX) * (maxY - minY)
    }

    /// The westmost, southmost, eastmost and northmost points in ring order, closed; nil when
    /// fewer than three of them are distinct.
    static func extremes(_ ring: [Coordinate]) -> [Coordinate]? {
        guard ring.count >= 4 else { return nil }
        let open = ring.dropLast()
        var picked = Set<Int>()
        for key in [\Coordinate.longitude, \Coordinate.latitude] {
            if let i = open.indices.min(by: { open[$0][keyPath: key] < open[$1][keyPath: key] }) { picked.insert(i) }
            if let i = open.indices.max(by: { open[$0][keyPath: key] < open[$1][keyPath: key] }) { picked.insert(i) }
        }
        let points = picked.sorted().map { open[$0] }
        guard Set(points).count >= 3 else { return nil }
        return points + [points[0]]
    }

    // MARK: Sutherland–Hodgman

    /// A closed ring clipped to `box`, closed again; nil when fewer than 3 distinct points are left.
    static func clip(ring: [Coordinate], to box: BoundingBox) -> [Coordinate]? {
        guard ring.count >= 4 else { return nil }
        var points = Array(ring.dropLast())
        // Each edge of the box: inside test, and the crossing of a segment with it.
        typealias Edge = (inside: (Coordinate) -> Bool, cross: (Coordinate, Coordinate) -> Coordinate)
        func atLongitude(_ x: Double) -> (Coordinate, Coordinate) -> Coordinate {
            { a, b in Coordinate(longitude: x, latitude: a.latitude + (b.latitude - a.latitude) * (x - a.longitude) / (b.longitude - a.longitude)) }
        }
        func atLatitude(_ y: Double) -> (Coordinate, Coordinate) -> Coordinate {
            { a, b in Coordinate(longitude: a.longitude + (b.longitude - a.longitude) * (y - a.latitude) / (b.latitude - a.latitude), latitude: y) }
        }
        let edges: [Edge] = [
            ({ $0.longitude >= box.minLongitude }, atLongitude(box.minLongitude)),
            ({ $0.longitude <= box.maxLongitude }, atLongitude(box.maxLongitude)),
            ({ $0.latitude >= box.minLatitude }, atLatitude(box.minLatitude)),
            ({ $0.latitude <= box.maxLatitude }, atLatitude(box.maxLatitude)),
        ]
        for edge in edges {
            guard let last = points.last else { return nil }
            var out: [Coordinate] = []
            out.reserveCapacity(points.count + 4)
            var previous = last
            var previousInside = edge.inside(previous)
            for p in points {
                let inside = edge.inside(p)
                if inside {
                    if !previousInside { out.append(edge.cross(previous, p)) }
                    out.append(p)
                } else if previousInside {
                    out.append(edge.cross(previous, p))
                }
                (previous, previousInside) = (p, inside)
            }
            points = out
        }
        // Drop repeats that clipping leaves along the box's border.
        var cleaned: [Coordinate] = []
        cleaned.reserveCapacity(points.count + 1)
        for p in points where cleaned.last != p { cleaned.append(p) }
        while cleaned.count > 1, cleaned.first == cleaned.last { cleaned.removeLast() }
        guard Set(cleaned).count >= 3 else { return nil }
        return cleaned + [cleaned[0]]
    }
}

extension MultiPolygon {
    /// A point inside the shape to write its name at: on the horizontal line through the
    /// middle of its largest polygon (by bounding box), the middle of the widest stretch inside
    /// it. Unlike a centroid it is never outside a crescent or in a hole. Nil for no polygons.
    public var labelPoint: Coordinate? {
        guard let largest = polygons.max(by: { Self.boxArea($0.rings.first ?? []) < Self.boxArea($1.rings.first ?? []) }),
              let outer = largest.rings.first, let minY = outer.map(\.latitude).min(), let maxY = outer.map(\.latitude).max(),
              let minX = outer.map(\.longitude).min(), let maxX = outer.map(\.longitude).max()
        else { return nil }
        let y = (minY + maxY) / 2
        var crossings: [Double] = []
        for ring in largest.rings where ring.count >= 2 {
            for i in 0..<(ring.count - 1) {
                let a = ring[i], b = ring[i + 1]
                // Half-open, so a vertex on the line counts once.
                if (a.latitude <= y) != (b.latitude <= y) {
                    crossings.append(a.longitude + (y - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude))
                }
            }
        }
        crossings.sort()
        var best: (width: Double, x: Double)?
        var i = 0
        while i + 1 < crossings.count {
            let width = crossings[i + 1] - crossings[i]
            if width > (best?.width ?? -1) { best = (width, (crossings[i] + crossings[i + 1]) / 2) }
            i += 2
        }
        return Coordinate(longitude: best?.x ?? (minX + maxX) / 2, latitude: y)
    }
}
