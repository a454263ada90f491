import Foundation

/// The GCJ-02 and BD-09 obfuscation formulas.
///
/// These are the widely published reverse-engineered formulas (Krasovsky ellipsoid for GCJ-02,
/// Baidu's rotation/scale for BD-09). The forward directions match the `coordtransform` and
/// `eviltransform` Python packages to better than 1e-6 degrees; the inverses are solved
/// iteratively, so that a round trip returns the original point instead of being off by up
/// to a few metres as the one-step textbook inverses are.
package enum CoordinateTransform {
    /// Semi-major axis of the Krasovsky 1940 ellipsoid, which GCJ-02 is built on.
    package static let krasovskyA = 6378245.0
    /// First eccentricity squared of the Krasovsky ellipsoid.
    package static let krasovskyEE = 0.00669342162296594323
    /// Baidu's constant: π·3000/180.
    package static let xPi = Double.pi * 3000.0 / 180.0

    /// Stop iterating an inverse once the forward image is this close (degrees, ≈ 0.01 mm).
    private static let inverseTolerance = 1e-10
    private static let maxInverseIterations = 12

    /// WGS-84 → GCJ-02. Points outside China are returned unchanged.
    package static func wgs84ToGCJ02(_ c: Coordinate) -> Coordinate {
        guard isInChina(c) else { return c }
        let (dLng, dLat) = gcjOffset(longitude: c.longitude, latitude: c.latitude)
        return Coordinate(longitude: c.longitude + dLng, latitude: c.latitude + dLat)
    }

    /// GCJ-02 → WGS-84 by fixed-point iteration on the forward transform (converges to
    /// < 1e-10° in 3-5 steps because the offset field varies slowly). The inside/outside
    /// decision is taken once, at the given point, so a point near the border polygon cannot
    /// flip between the two branches while iterating.
    package static func gcj02ToWGS84(_ c: Coordinate) -> Coordinate {
        guard isInChina(c) else { return c }
        var (dLng, dLat) = gcjOffset(longitude: c.longitude, latitude: c.latitude)
        var lng = c.longitude - dLng
        var lat = c.latitude - dLat
        for _ in 0..<maxInverseIterations {
            (dLng, dLat) = gcjOffset(longitude: lng, latitude: lat)
            let errLng = lng + dLng - c.longitude
            let errLat = lat + dLat - c.latitude
            lng -= errLng
            lat -= errLat
            if abs(errLng) < inverseTolerance && abs(errLat) < inverseTolerance { break }
        }
        return Coordinate(longitude: lng, latitude: lat)
    }

    /// GCJ-02 → BD-09 (Baidu's published formula; applied everywhere, like the references).
    package static func gcj02ToBD09(_ c: Coordinate) -> Coordinate {
        let x = c.longitude
        let y = c.latitude
        let z = (x * x + y * y).squareRoot() + 0.00002 * sin(y * xPi)
        let theta = atan2(y, x) + 0.000003 * cos(x * xPi)
        return Coordinate(longitude: z * cos(theta) + 0.0065, latitude: z * sin(theta) + 0.006)
    }

    /// BD-09 → GCJ-02: the usual one-step inverse (off by up to 2e-6°, ≈ 0.2 m), refined by
    /// fixed-point iteration so that `gcj02ToBD09` maps the result back onto the input.
    package static func bd09ToGCJ02(_ c: Coordinate) -> Coordinate {
        let x = c.longitude - 0.0065
        let y = c.latitude - 0.006
        let z = (x * x + y * y).squareRoot() - 0.00002 * sin(y * xPi)
        let theta = atan2(y, x) - 0.000003 * cos(x * xPi)
        var g = Coordinate(longitude: z * cos(theta), latitude: z * sin(theta))
        guard g.longitude.isFinite, g.latitude.isFinite else { return g }
        for _ in 0..<maxInverseIterations {
            let b = gcj02ToBD09(g)
            let errLng = b.longitude - c.longitude
            let errLat = b.latitude - c.latitude
            g.longitude -= errLng
            g.latitude -= errLat
            if abs(errLng) < inverseTolerance && abs(errLat) < inverseTolerance { break }
        }
        return g
    }

    /// Whether GCJ-02 obfuscation applies at this point.
    ///
    /// Uses `ChinaBorder`, a generous (≥ 8 km margin) simplified outline of China, instead of the
    /// usual rectangle that wrongly shifts Seoul, Hanoi, Ulaanbaatar or Kyushu. The outline is
    /// drawn in GCJ-02 but the shift (< 1 km) is negligible next to its margin, so the same test
    /// serves WGS-84 and GCJ-02 input.
    package static func isInChina(_ c: Coordinate) -> Bool {
        ChinaBorder.outline.contains(c)
    }

    /// The GCJ-02 offset (Δlng, Δlat) in degrees at a WGS-84 point, without the China test.
    @inline(__always)
    package static func gcjOffset(longitude: Double, latitude: Double) -> (Double, Double) {
        let x = longitude - 105.0
        let y = latitude - 35.0
        let absX = abs(x).squareRoot()
        let xPi = x * Double.pi
        let yPi = y * Double.pi
        let common = (20.0 * sin(6.0 * xPi) + 20.0 * sin(2.0 * xPi)) * 2.0 / 3.0

        var dLat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * absX
        dLat += common
        dLat += (20.0 * sin(yPi) + 40.0 * sin(yPi / 3.0)) * 2.0 / 3.0
        dLat += (160.0 * sin(yPi / 12.0) + 320.0 * sin(yPi / 30.0)) * 2.0 / 3.0

        var dLng = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * absX
        dLng += common
        dLng += (20.0 * sin(xPi) + 40.0 * sin(xPi / 3.0)) * 2.0 / 3.0
        dLng += (150.0 * sin(xPi / 12.0) + 300.0 * sin(xPi / 30.0)) * 2.0 / 3.0

        let radLat = latitude / 180.0 * Double.pi
        var magic = sin(radLat)
        magic = 1 - krasovskyEE * magic * magic
        let sqrtMagic = magic.squareRoot()
        dLat = (dLat * 180.0) / ((krasovskyA * (1 - krasovskyEE)) / (magic * sqrtMagic) * Double.pi)
        dLng = (dLng * 180.0) / (krasovskyA / sqrtMagic * cos(radLat) * Double.pi)
        return (dLng, dLat)
    }
}
