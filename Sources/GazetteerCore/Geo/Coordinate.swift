import Foundation

/// A longitude/latitude pair in decimal degrees (longitude first, as AMap does).
///
/// Longitude comes first because every source this library reads (AMap, WKT, GeoJSON) orders
/// pairs that way; keeping one order everywhere is what prevents silently swapped coordinates.
/// The value carries no coordinate system: the gazetteer stores GCJ-02 throughout.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double
    /// Degrees north of the equator, -90...90.
    public var latitude: Double

    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}

extension Coordinate {
    /// Mean Earth radius (IUGG R1) used for all spherical distances, so that every distance in
    /// the library agrees with every radius query.
    package static let earthRadius: Double = 6_371_008.8

    /// Great-circle distance in metres (haversine on a sphere of radius 6_371_008.8 m).
    ///
    /// A sphere is within 0.5 % of the ellipsoid, which is far below the precision of any
    /// gazetteer centre; haversine stays accurate for the short distances that matter most.
    public func distance(to other: Coordinate) -> Double {
        let radians = Double.pi / 180
        let phi1 = latitude * radians
        let phi2 = other.latitude * radians
        let dPhi = phi2 - phi1
        let dLambda = (other.longitude - longitude) * radians
        let sinPhi = sin(dPhi / 2)
        let sinLambda = sin(dLambda / 2)
        let h = sinPhi * sinPhi + cos(phi1) * cos(phi2) * sinLambda * sinLambda
        return 2 * Coordinate.earthRadius * asin(min(1, h.squareRoot()))
    }

    /// Whether both values are finite and within the ranges of a real place.
    ///
    /// Checked at every boundary where coordinates enter the library, so that NaN or a
    /// swapped pair is refused with a message instead of corrupting a spatial index.
    public var isValid: Bool {
        longitude.isFinite && latitude.isFinite
            && (-180...180).contains(longitude) && (-90...90).contains(latitude)
    }

    /// Why `isValid` is false, in words a caller can act on (a swapped pair is named as such).
    public var invalidReason: String {
        let c = self
        if !c.longitude.isFinite || !c.latitude.isFinite { return "longitude and latitude must be finite numbers" }
        if !(-90...90).contains(c.latitude) && (-90...90).contains(c.longitude) && (-180...180).contains(c.latitude) {
            return "latitude \(c.latitude) is out of range; longitude and latitude look swapped (give longitude first: LNG,LAT)"
        }
        if !(-90...90).contains(c.latitude) { return "latitude \(c.latitude) is out of range (-90 to 90)" }
        return "longitude \(c.longitude) is out of range (-180 to 180)"
    }
}
