import Foundation
import Gazetteer

/// The answers in AMap's web-service shapes, so code written against AMap reads ours.
enum AMapShape {
    static func location(_ c: Coordinate) -> String {
        String(format: "%.6f,%.6f", c.longitude, c.latitude)
    }

    static func distance(_ metres: Double) -> String { String(format: "%.0f", metres) }

    static func poi(_ p: POIDistance?, poi: POI, extra: [(String, JSON)] = []) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .string(poi.id)), ("name", .string(poi.name)), ("type", .string(poi.type ?? "")),
            ("typecode", .string(poi.typecode ?? "")), ("address", .string(poi.address ?? "")),
            ("tel", .string(poi.phone ?? "")), ("location", .string(location(poi.location))),
        ]
        if let p { pairs.append(("distance", .string(distance(p.distance)))) }
        return .object(pairs + extra)
    }

    /// regeo: `{"status","info","regeocode":{"formatted_address","addressComponent",…,"pois"}}`
    static func regeo(_ r: ReverseGeocode) -> JSON {
        let a = r.address
        let component: JSON = .object([
            ("country", .string(a.country)),
            ("province", .string(a.province?.name ?? "")),
            ("city", .string(a.city?.name ?? "")),
            ("citycode", .string(a.citycode ?? "")),
            ("district", .string(a.district?.name ?? "")),
            ("adcode", .string(a.adcode ?? "")),
            ("township", .string(a.town?.name ?? "")),
            ("towncode", .string(a.town?.code ?? "")),
            ("township_approximate", .bool(a.townIsApproximate)),
        ])
        return .object([
            ("status", .string("1")), ("info", .string("OK")), ("infocode", .string("10000")),
            ("regeocode", .object([
                ("formatted_address", .string(r.formattedAddress)),
                ("addressComponent", component),
                ("pois", .array(r.pois.map { poi($0, poi: $0.poi) })),
            ])),
        ])
    }
}
