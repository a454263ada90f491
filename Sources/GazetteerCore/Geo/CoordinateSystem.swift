import Foundation

/// The datum a coordinate is expressed in.
///
/// Chinese maps deliberately use obfuscated systems, so a coordinate is meaningless without
/// knowing which one it is in: mixing them puts points several hundred metres off.
public enum CoordinateSystem: String, Sendable, CaseIterable, Codable {
    /// The Chinese national "Mars" system used by AMap and Tencent; the library stores this.
    case gcj02
    /// GPS and OpenStreetMap.
    case wgs84
    /// Baidu's system: a further offset applied on top of GCJ-02.
    case bd09
}

extension Coordinate {
    /// Converts between systems; points outside mainland China (see below) are returned
    /// unchanged for WGS<->GCJ.
    ///
    /// "Outside" is decided by a coarse, generous polygon of China (including Hong Kong, Macau
    /// and Taiwan, see `CoordinateTransform.isInChina`), not a rectangle, so that Seoul or Hanoi
    /// are not shifted while border towns are. The BD-09 offset is applied everywhere, as the
    /// common reference implementations do. Conversions through GCJ-02 compose, so
    /// WGS-84 -> BD-09 is WGS-84 -> GCJ-02 -> BD-09.
    public func converted(from source: CoordinateSystem, to target: CoordinateSystem) -> Coordinate {
        switch (source, target) {
        case (.gcj02, .gcj02), (.wgs84, .wgs84), (.bd09, .bd09):
            return self
        case (.wgs84, .gcj02):
            return CoordinateTransform.wgs84ToGCJ02(self)
        case (.gcj02, .wgs84):
            return CoordinateTransform.gcj02ToWGS84(self)
        case (.gcj02, .bd09):
            return CoordinateTransform.gcj02ToBD09(self)
        case (.bd09, .gcj02):
            return CoordinateTransform.bd09ToGCJ02(self)
        case (.wgs84, .bd09):
            return CoordinateTransform.gcj02ToBD09(CoordinateTransform.wgs84ToGCJ02(self))
        case (.bd09, .wgs84):
            return CoordinateTransform.gcj02ToWGS84(CoordinateTransform.bd09ToGCJ02(self))
        }
    }
}
