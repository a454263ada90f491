import Foundation

/// An axis-aligned longitude/latitude rectangle, the shape an R*Tree index stores and queries.
///
/// It never wraps across the antimeridian: China is far from it, and a box that wraps would
/// make every comparison in the index twice as complicated.
public struct BoundingBox: Sendable, Hashable, Codable {
    public var minLongitude: Double
    public var minLatitude: Double
    public var maxLongitude: Double
    public var maxLatitude: Double

    public init(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double) {
        self.minLongitude = minLongitude
        self.minLatitude = minLatitude
        self.maxLongitude = maxLongitude
        self.maxLatitude = maxLatitude
    }

    /// The box that contains nothing; the identity of `union`, so boxes can be accumulated
    /// without special-casing the first one.
    package static let empty = BoundingBox(
        minLongitude: .infinity, minLatitude: .infinity,
        maxLongitude: -.infinity, maxLatitude: -.infinity)

    /// The whole world, for queries that cannot be bounded more tightly.
    package static let world = BoundingBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90)

    /// Whether the box contains nothing (as `BoundingBox.empty` or a union of no boxes).
    package var isEmpty: Bool { !(minLongitude <= maxLongitude && minLatitude <= maxLatitude) }

    /// Whether the point lies in the box, edges included, so that a point on a region's
    /// extreme vertex is still a candidate.
    public func contains(_ c: Coordinate) -> Bool {
        c.longitude >= minLongitude && c.longitude <= maxLongitude
            && c.latitude >= minLatitude && c.latitude <= maxLatitude
    }

    /// Whether the two boxes share at least one point (edges included).
    public func intersects(_ o: BoundingBox) -> Bool {
        minLongitude <= o.maxLongitude && o.minLongitude <= maxLongitude
            && minLatitude <= o.maxLatitude && o.minLatitude <= maxLatitude
    }

    /// The smallest box containing both, e.g. a province's box from its cities' boxes.
    public func union(_ o: BoundingBox) -> BoundingBox {
        BoundingBox(
            minLongitude: Swift.min(minLongitude, o.minLongitude),
            minLatitude: Swift.min(minLatitude, o.minLatitude),
            maxLongitude: Swift.max(maxLongitude, o.maxLongitude),
            maxLatitude: Swift.max(maxLatitude, o.maxLatitude))
    }

    /// The box around a circle: used to ask the R*Tree for candidates within `radius` metres
    /// (handle poles/antimeridian sensibly by clamping).
    ///
    /// The box is exact for a spherical cap (latitude ± r, longitude ± asin(sin r / cos φ)), plus
    /// a hair of slack so points exactly at the radius are never lost to rounding. Because a box
    /// cannot wrap, a circle that reaches a pole or crosses the antimeridian gets the full
    /// longitude range and latitudes clamped to ±90: a superset, so no candidate is missed.
    /// A negative or NaN radius is treated as 0; an infinite one gives the whole world.
    public static func around(_ center: Coordinate, radius: Double) -> BoundingBox {
        guard radius < .infinity else { return radius.isNaN ? around(center, radius: 0) : world }
        let r = radius > 0 ? radius : 0
        let angular = r / Coordinate.earthRadius          // radians
        let slack = 1e-9                                   // degrees, ≈ 0.1 mm
        let degrees = 180 / Double.pi
        if angular >= Double.pi { return world }

        let dLat = angular * degrees + slack
        let minLat = center.latitude - dLat
        let maxLat = center.latitude + dLat
        if minLat <= -90 || maxLat >= 90 {
            return BoundingBox(
                minLongitude: -180, minLatitude: Swift.max(-90, minLat),
                maxLongitude: 180, maxLatitude: Swift.min(90, maxLat))
        }
        let ratio = sin(angular) / cos(center.latitude * Double.pi / 180)
        guard ratio < 1 else {
            return BoundingBox(minLongitude: -180, minLatitude: minLat, maxLongitude: 180, maxLatitude: maxLat)
        }
        let dLng = asin(ratio) * degrees + slack
        let minLng = center.longitude - dLng
        let maxLng = center.longitude + dLng
        if minLng < -180 || maxLng > 180 {
            return BoundingBox(minLongitude: -180, minLatitude: minLat, maxLongitude: 180, maxLatitude: maxLat)
        }
        return BoundingBox(minLongitude: minLng, minLatitude: minLat, maxLongitude: maxLng, maxLatitude: maxLat)
    }
}
