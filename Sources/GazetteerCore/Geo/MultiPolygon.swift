import Foundation

/// One or more polygons with holes: the shape of an administrative boundary (a district with
/// islands is several polygons, a city around an enclave has a hole).
///
/// Construction builds a search index once (see `PolygonIndex`), so `contains` costs only the
/// edges near the point. Build a `MultiPolygon` once per boundary and keep it; do not decode a
/// stored boundary again for every query.
public struct MultiPolygon: Sendable, Hashable {
    /// The polygons; replacing them rebuilds the index and the bounding box.
    public var polygons: [Polygon] {
        didSet { index = PolygonIndex(polygons: polygons) }
    }

    /// The smallest box around all points, for the R*Tree. For no polygons it is empty
    /// (minimums +∞, maximums -∞) and contains nothing.
    public var boundingBox: BoundingBox { index.bounds }

    private var index: PolygonIndex

    public init(polygons: [Polygon]) {
        self.polygons = polygons
        self.index = PolygonIndex(polygons: polygons)
    }

    public static func == (lhs: MultiPolygon, rhs: MultiPolygon) -> Bool {
        lhs.polygons == rhs.polygons
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(polygons)
    }

    /// Exact point-in-polygon with holes (even-odd per polygon; a point in any polygon counts).
    ///
    /// Called on every reverse geocode, so it allocates nothing and rejects polygons and rings
    /// by their boxes before touching edges. A point exactly on an edge may go either way.
    public func contains(_ c: Coordinate) -> Bool {
        index.contains(longitude: c.longitude, latitude: c.latitude)
    }

    /// Distance in metres from a point to the nearest boundary edge (holes included), using an
    /// equirectangular projection centred on the point: approximate, but well within 1 % at
    /// the scale of a district. Lets tests place sample points a known distance inside a border.
    /// Returns +∞ when there are no edges.
    public func distanceToBoundary(from c: Coordinate) -> Double {
        index.distanceToBoundary(longitude: c.longitude, latitude: c.latitude)
    }

    /// `distanceToBoundary(from:)` when it is at most `limit` metres, +∞ otherwise; reads only
    /// the edges near the point.
    package func distanceToBoundary(from c: Coordinate, within limit: Double) -> Double {
        index.distanceToBoundary(longitude: c.longitude, latitude: c.latitude, within: limit)
    }

    /// Every edge of every ring, closing edges included (see `PolygonIndex.forEachEdge`).
    package func forEachEdge(_ body: (Double, Double, Double, Double) -> Void) {
        index.forEachEdge(body)
    }
}

// MARK: - WKT

extension MultiPolygon {
    /// Parses WKT `POLYGON((…),(…))` or `MULTIPOLYGON(((…)),((…)))`, case-insensitive,
    /// tolerant of whitespace, `lng lat` pairs.
    ///
    /// Boundaries arrive as WKT in user CSV files, so every problem is reported precisely
    /// (`GeometryError`) rather than producing a polygon that silently matches nothing.
    public init(wkt: String) throws(GeometryError) {
        var parser = WKTParser(wkt)
        self.init(polygons: try parser.parse())
    }

    /// The geometry as WKT: `POLYGON` for exactly one polygon, `MULTIPOLYGON` otherwise
    /// (`MULTIPOLYGON EMPTY` for none), numbers in their shortest exact decimal form so that
    /// parsing the text gives back the same doubles.
    public var wkt: String {
        if polygons.isEmpty { return "MULTIPOLYGON EMPTY" }
        var out = polygons.count == 1 ? "POLYGON" : "MULTIPOLYGON("
        for (p, polygon) in polygons.enumerated() {
            if p > 0 { out += "," }
            out += "("
            for (r, ring) in polygon.rings.enumerated() {
                if r > 0 { out += "," }
                out += "("
                for (i, c) in ring.enumerated() {
                    if i > 0 { out += "," }
                    out += Self.format(c.longitude)
                    out += " "
                    out += Self.format(c.latitude)
                }
                out += ")"
            }
            out += ")"
        }
        if polygons.count != 1 { out += ")" }
        return out
    }

    /// A GeoJSON geometry object (`"type":"MultiPolygon"`) as a JSON string, for map display
    /// and export; non-finite numbers, which JSON cannot hold, are written as `null`.
    public var geoJSONGeometry: String {
        geoJSON(skippingRepeats: false) { $0.isFinite ? Self.format($0) : "null" }
    }

    /// The GeoJSON writer behind `geoJSONGeometry` and `geoJSONGeometry(decimals:)`: `number`
    /// writes each coordinate; with `skippingRepeats` a position written the same as the one
    /// before it in its ring is left out.
    func geoJSON(skippingRepeats: Bool, _ number: (Double) -> String) -> String {
        var out = #"{"type":"MultiPolygon","coordinates":["#
        for (p, polygon) in polygons.enumerated() {
            if p > 0 { out += "," }
            out += "["
            for (r, ring) in polygon.rings.enumerated() {
                if r > 0 { out += "," }
                out += "["
                var previous: (String, String)?
                for c in ring {
                    let pair = (number(c.longitude), number(c.latitude))
                    if skippingRepeats, let previous, previous == pair { continue }
                    if previous != nil { out += "," }
                    previous = pair
                    out += "[" + pair.0 + "," + pair.1 + "]"
                }
                out += "]"
            }
            out += "]"
        }
        out += "]}"
        return out
    }

    /// Shortest round-trip decimal; integers without a trailing ".0".
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }
}

// MARK: - Binary

extension MultiPolygon {
    /// Leading bytes of every encoded geometry: "GZM" and format version 1.
    package static let binaryMagic: [UInt8] = [0x47, 0x5A, 0x4D, 0x01]
    /// Degrees are stored as Int32 of degrees × 1e7: half the size of Float64 and exact to
    /// 0.56 cm per axis (< 1 cm combined), finer than any surveyed boundary.
    package static let binaryScale = 1e7

    /// Compact binary for storage in a SQLite BLOB.
    ///
    /// Layout, all little-endian:
    /// - 4 bytes magic `47 5A 4D 01` ("GZM", version 1), so foreign or future data is refused;
    /// - UInt32 polygon count P;
    /// - P × UInt32: ring count of each polygon (R rings in total);
    /// - R × UInt32: point count of each ring, in order (N points in total);
    /// - N × (Int32 longitude, Int32 latitude): degrees × 1e7, rounded to nearest.
    ///
    /// 8 bytes per point; decoding returns every coordinate within 1 cm of the original (exactly
    /// the original when it had at most 7 decimals). The size is fully determined by the
    /// counts, which is what lets `init(encoded:)` detect truncation.
    public func encoded() -> [UInt8] {
        let ringCount = polygons.reduce(0) { $0 + $1.rings.count }
        let pointCount = polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count } }
        var out: [UInt8] = []
        out.reserveCapacity(8 + 4 * (polygons.count + ringCount) + 8 * pointCount)
        out += Self.binaryMagic
        func put(_ v: UInt32) {
            withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
        }
        func put(_ v: Int32) {
            withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
        }
        func quantize(_ degrees: Double) -> Int32 {
            let scaled = (degrees * Self.binaryScale).rounded()
            // Only reachable for invalid coordinates (built without validation); clamp rather than trap.
            guard scaled.isFinite else { return 0 }
            return Int32(Swift.max(Double(Int32.min), Swift.min(Double(Int32.max), scaled)))
        }
        put(UInt32(polygons.count))
        for polygon in polygons { put(UInt32(polygon.rings.count)) }
        for polygon in polygons { for ring in polygon.rings { put(UInt32(ring.count)) } }
        for polygon in polygons {
            for ring in polygon.rings {
                for c in ring {
                    put(quantize(c.longitude))
                    put(quantize(c.latitude))
                }
            }
        }
        return out
    }

    /// The counts of an encoded geometry, each checked against the size (see `encoded()`), and
    /// where its points start; `init(encoded:)` and `PolygonIndex(encoded:)` read the points.
    package static func encodedLayout(_ bytes: [UInt8]) throws(GeometryError) -> (ringCounts: [Int], pointCounts: [Int], offset: Int) {
        var reader = ByteReader(bytes: bytes)
        guard bytes.count >= 8 else { throw .corrupt("\(bytes.count) bytes is too short for a geometry header") }
        guard Array(bytes[0..<4]) == Self.binaryMagic else {
            throw .corrupt("unknown header bytes \(bytes[0..<4].map { String(format: "%02x", $0) }.joined(separator: " ")), not an encoded MultiPolygon")
        }
        reader.offset = 4
        let polygonCount = Int(try reader.uint32("polygon count"))
        guard polygonCount > 0 else { throw .empty }
        // Each polygon needs at least 4 (ring count) + 4 (point count) + 4 × 8 (points) bytes.
        guard polygonCount <= reader.remaining / 40 else {
            throw .corrupt("polygon count \(polygonCount) does not fit in \(bytes.count) bytes")
        }
        var ringCounts: [Int] = []
        ringCounts.reserveCapacity(polygonCount)
        var totalRings = 0
        for p in 0..<polygonCount {
            let n = Int(try reader.uint32("ring count"))
            guard n > 0 else { throw .corrupt("polygon \(p + 1) has no rings") }
            totalRings += n
            guard totalRings <= reader.remaining / 36 else {
                throw .corrupt("ring counts do not fit in \(bytes.count) bytes")
            }
            ringCounts.append(n)
        }
        var pointCounts: [Int] = []
        pointCounts.reserveCapacity(totalRings)
        var totalPoints = 0
        for r in 0..<totalRings {
            let n = Int(try reader.uint32("point count"))
            guard n >= 4 else { throw .corrupt("ring \(r + 1) has \(n) points, fewer than 4") }
            totalPoints += n
            guard totalPoints <= bytes.count / 8 else {
                throw .corrupt("point counts do not fit in \(bytes.count) bytes")
            }
            pointCounts.append(n)
        }
        guard reader.remaining == totalPoints * 8 else {
            throw .corrupt(reader.remaining < totalPoints * 8
                ? "truncated: \(totalPoints) points need \(totalPoints * 8) bytes, \(reader.remaining) left"
                : "\(reader.remaining - totalPoints * 8) unexpected bytes after the last point")
        }
        return (ringCounts, pointCounts, reader.offset)
    }

    /// Decodes `encoded()` output, refusing truncated, oversized or garbage bytes with
    /// `GeometryError.corrupt` (never trapping), and applying the same ring rules as WKT.
    public init(encoded bytes: [UInt8]) throws(GeometryError) {
        let (ringCounts, pointCounts, offset) = try Self.encodedLayout(bytes)
        var reader = ByteReader(bytes: bytes)
        reader.offset = offset
        let polygonCount = ringCounts.count
        var polygons: [Polygon] = []
        polygons.reserveCapacity(polygonCount)
        var ringIndex = 0
        for ringCount in ringCounts {
            var rings: [[Coordinate]] = []
            rings.reserveCapacity(ringCount)
            for _ in 0..<ringCount {
                let n = pointCounts[ringIndex]
                // The counts were checked against the size above, so the points are read in
                // place (a boundary batch decodes millions of them).
                var invalid: Coordinate?
                let at = reader.offset
                let ring = bytes.withUnsafeBytes { raw in
                    [Coordinate](unsafeUninitializedCapacity: n) { ring, done in
                        for i in 0..<n {
                            let lng = Double(Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8 * i, as: UInt32.self)))) / Self.binaryScale
                            let lat = Double(Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8 * i + 4, as: UInt32.self)))) / Self.binaryScale
                            let c = Coordinate(longitude: lng, latitude: lat)
                            if !c.isValid { invalid = c; break }
                            ring[i] = c
                            done = i + 1
                        }
                    }
                }
                reader.offset += 8 * n
                if let c = invalid { throw .corrupt("coordinate (\(c.longitude) \(c.latitude)) out of range in ring \(ringIndex + 1)") }
                guard ring.first == ring.last else { throw .corrupt("ring \(ringIndex + 1) is not closed") }
                rings.append(ring)
                ringIndex += 1
            }
            polygons.append(Polygon(rings: rings))
        }
        self.init(polygons: polygons)
    }
}

/// Bounds-checked little-endian reading, so corrupt input throws instead of trapping.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    var remaining: Int { bytes.count - offset }

    mutating func uint32(_ what: String) throws(GeometryError) -> UInt32 {
        guard remaining >= 4 else { throw .corrupt("truncated while reading \(what) at byte \(offset)") }
        let v = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        offset += 4
        return v
    }

    mutating func int32(_ what: String) throws(GeometryError) -> Int32 {
        Int32(bitPattern: try uint32(what))
    }
}
