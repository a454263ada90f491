import Foundation

/// Why a geometry was refused, with enough detail to fix the input.
///
/// Boundaries come from user CSV files and from database BLOBs; both can be wrong, and the
/// library must say where instead of crashing or storing a broken shape.
public enum GeometryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text or data describes no polygon at all (`POLYGON EMPTY`, an empty string…).
    case empty
    /// WKT could not be parsed; `offset` counts characters from 0.
    case syntax(offset: Int, expected: String)
    /// A ring's last point differs from its first; `ring` counts from 0 across the geometry.
    case ringNotClosed(ring: Int)
    /// A ring has fewer than 4 points; `ring` counts from 0 across the geometry.
    case tooFewPoints(ring: Int, count: Int)
    /// A number is not finite, or a longitude/latitude is outside -180...180 / -90...90.
    case coordinateOutOfRange(Coordinate)
    /// Binary data (a stored BLOB) is truncated or not a geometry.
    case corrupt(String)

    public var description: String {
        switch self {
        case .empty:
            return "The geometry is empty: a boundary needs at least one polygon whose outer ring has 4 or more points."
        case let .syntax(offset, expected):
            return "WKT syntax error at character \(offset): expected \(expected). Geometry must look like POLYGON((lng lat, lng lat, …)) or MULTIPOLYGON(((lng lat, …)), ((…)))."
        case let .ringNotClosed(ring):
            return "Ring \(ring + 1) (counting all rings of the geometry from 1) is not closed: repeat its first point as its last point."
        case let .tooFewPoints(ring, count):
            return "Ring \(ring + 1) (counting all rings of the geometry from 1) has \(count) point\(count == 1 ? "" : "s"); a ring needs at least 4: three corners and the first point repeated at the end."
        case let .coordinateOutOfRange(c):
            var text = "Coordinate (\(c.longitude) \(c.latitude)) is out of range: longitude must be within -180…180 and latitude within -90…90, written longitude first."
            let swapped = Coordinate(longitude: c.latitude, latitude: c.longitude)
            if swapped.isValid {
                text += " Longitude and latitude look swapped."
            }
            return text
        case let .corrupt(reason):
            return "The stored geometry is corrupt (\(reason)); re-import the boundary."
        }
    }
}
