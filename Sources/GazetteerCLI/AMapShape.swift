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

    /// Writes `regeo(r).text` as UTF-8, byte for byte, without building the `JSON` tree: batch
    /// mode writes millions of these.
    static func writeRegeo(_ r: ReverseGeocode, into out: inout [UInt8]) {
        func literal(_ s: StaticString) { s.withUTF8Buffer { out.append(contentsOf: $0) } }
        let a = r.address
        literal(#"{"status":"1","info":"OK","infocode":"10000","regeocode":{"formatted_address":"#)
        JSON.escape(r.formattedAddress, into: &out)
        literal(#","addressComponent":{"country":"#)
        JSON.escape(a.country, into: &out)
        literal(#","province":"#)
        JSON.escape(a.province?.name ?? "", into: &out)
        literal(#","city":"#)
        JSON.escape(a.city?.name ?? "", into: &out)
        literal(#","citycode":"#)
        JSON.escape(a.citycode ?? "", into: &out)
        literal(#","district":"#)
        JSON.escape(a.district?.name ?? "", into: &out)
        literal(#","adcode":"#)
        JSON.escape(a.adcode ?? "", into: &out)
        literal(#","township":"#)
        JSON.escape(a.town?.name ?? "", into: &out)
        literal(#","towncode":"#)
        JSON.escape(a.town?.code ?? "", into: &out)
        literal(a.townIsApproximate ? #","township_approximate":true},"pois":["# : #","township_approximate":false},"pois":["#)
        for (i, p) in r.pois.enumerated() {
            if i > 0 { out.append(0x2C) }
            poi(p, poi: p.poi).write(into: &out)
        }
        literal("]}}")
    }

    /// AMap's category for a region hit (地名地址信息), by level.
    static func regionType(_ level: RegionLevel) -> (type: String, code: String) {
        switch level {
        case .province: ("地名地址信息;普通地名;省级地名", "190102")
        case .city: ("地名地址信息;普通地名;地市级地名", "190103")
        case .district: ("地名地址信息;普通地名;区县级地名", "190104")
        case .town: ("地名地址信息;普通地名;乡镇级地名", "190105")
        }
    }

    /// A place/text or place/around entry, for a region or a POI hit.
    static func place(_ hit: SearchHit, withMatch: Bool) -> JSON {
        var pairs: [(String, JSON)]
        var towncode = ""
        switch hit.kind {
        case .poi(let p):
            pairs = [("id", .string(p.id)), ("name", .string(p.name)), ("type", .string(p.type ?? "")),
                     ("typecode", .string(p.typecode ?? "")), ("address", .string(p.address ?? "")),
                     ("tel", .string(p.phone ?? "")), ("location", .string(location(p.location))),
                     ("adcode", .string(p.adcode ?? ""))]
            towncode = p.townCode12 ?? ""
        case .region(let r):
            let t = regionType(r.level)
            pairs = [("id", .string(r.code)), ("name", .string(r.name)), ("type", .string(t.type)),
                     ("typecode", .string(t.code)), ("address", .string("")), ("tel", .string("")),
                     ("location", .string(r.center.map(location) ?? "")),
                     ("adcode", .string(r.level == .town ? (AdminCode(r.code)?.countyAdcode.description ?? r.code) : r.code))]
            if r.level == .town { towncode = r.code }
        }
        // The regions the hit lies in; a region hit fills its own level (a district's adname is its name).
        var pname = hit.province?.name ?? "", cityname = hit.city?.name ?? "", adname = hit.district?.name ?? ""
        if case .region(let r) = hit.kind {
            switch r.level {
            case .province: pname = r.name
            case .city: cityname = r.name
            case .district: adname = r.name
            case .town: break
            }
        }
        pairs += [
            ("adname", .string(adname)),
            ("pname", .string(pname)),
            ("cityname", .string(cityname)),
            ("distance", .string(hit.distance.map(distance) ?? "")),
            ("level", .string(hit.levelName)),
            ("towncode", .string(towncode)),
        ]
        if withMatch { pairs.append(("match", .string(["exact", "prefix", "substring"][hit.match.rawValue]))) }
        return .object(pairs)
    }

    /// place/text and place/around: `{"status","info","count","pois":[…]}`.
    static func places(_ hits: [SearchHit], count: Int, withMatch: Bool = true) -> JSON {
        .object([("status", .string("1")), ("info", .string("OK")), ("infocode", .string("10000")),
                 ("count", .string(String(count))), ("pois", .array(hits.map { place($0, withMatch: withMatch) }))])
    }

    /// geocode/geo: `{"status","info","count","geocodes":[{formatted_address, province, city, district, township, …}]}`
    static func geo(_ g: Geocode?) -> JSON {
        guard let g else {
            return .object([("status", .string("1")), ("info", .string("OK")), ("infocode", .string("10000")),
                            ("count", .string("0")), ("geocodes", .array([]))])
        }
        var pairs: [(String, JSON)] = [
            ("formatted_address", .string(g.formattedAddress)),
            ("country", .string("中国")),
            ("province", .string(g.province?.name ?? "")),
            ("city", .string(g.city?.name ?? "")),
            ("citycode", .string(g.city?.citycode ?? "")),
            ("district", .string(g.district?.name ?? "")),
            ("township", .string(g.town?.name ?? "")),
            ("towncode", .string(g.town?.code ?? "")),
            ("adcode", .string(g.adcode ?? "")),
        ]
        let locationText: String = g.location.map { location($0) } ?? ""
        pairs.append(("location", .string(locationText)))
        pairs.append(("level", .string(g.level)))
        pairs.append(("location_approximate", .bool(g.locationIsApproximate)))
        pairs.append(("poi", .string(g.poi?.name ?? "")))
        pairs.append(("unmatched", .string(g.unmatched)))
        let entry: JSON = .object(pairs)
        return .object([("status", .string("1")), ("info", .string("OK")), ("infocode", .string("10000")),
                        ("count", .string("1")), ("geocodes", .array([entry]))])
    }
}
