import Foundation

/// Polygon: first ring outer, the rest holes. Rings closed (last == first).
///
/// A plain value with no index: `MultiPolygon` builds the search structures once for all its
/// polygons, so a `Polygon` stays cheap to create, compare and hash.
public struct Polygon: Sendable, Hashable {
    /// Outer ring first, then holes; each ring closed (its last point repeats its first).
    public var rings: [[Coordinate]]

    public init(rings: [[Coordinate]]) {
        self.rings = rings
    }
}
