import Foundation
import Gazetteer

/// The answers in AMap's web-service shapes, so code written against AMap reads ours.
///
/// Conventions: every value is a string (numbers too); a string we cannot fill is `""`;
/// AMap's empty objects keep their shape (`{"name":[],"type":[]}`, `[[]]`); our own extras go
/// under names AMap does not use (`township_approximate`, `township_status`, `towncode9`, `match_class` …).
public enum AMapShape {
    public static func location(_ c: Coordinate) -> String {
        decimals6(c.longitude) + "," + decimals6(c.latitude)
    }

    /// Whole metres, rounded half to even as `%.0f` rounds (the binary value is exact, so
    /// rounding it to an integer is exact too).
    public static func distance(_ metres: Double) -> String {
        guard metres.isFinite, abs(metres) < 1e15 else { return fixed(metres, "%.0f") }
        let n = Int64(metres.rounded(.toNearestOrEven))
        return n == 0 && metres.sign == .minus ? "-0" : String(n)
    }

    /// `%.6f`, byte for byte. Most coordinates are stored with at most six decimals: then the
    /// shortest representation, padded with zeros, is what printf prints, without the cost of a
    /// variadic C call, and only the others go to libc.
    static func decimals6(_ x: Double) -> String {
        var text = x.description
        if let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")), !text.utf8.contains(UInt8(ascii: "e")) {
            let decimals = text.utf8.distance(from: dot, to: text.utf8.endIndex) - 1
            if decimals <= 6 {
                text.append(String(repeating: "0", count: 6 - decimals))
                return text
            }
        }
        return fixed(x, "%.6f")
    }

    /// `location(c)` as UTF-8 bytes, without a `String` when both numbers have at most six
    /// decimals (a batch writes one per point).
    static func writeLocation(_ c: Coordinate, into out: inout [UInt8]) {
        guard let lng = micros(c.longitude), let lat = micros(c.latitude) else {
            out.append(contentsOf: location(c).utf8)
            return
        }
        // Both numbers right to left into one small buffer, appended at once: an append per
        // byte checked the array's capacity and uniqueness each time.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var at = 48
            writeMicros(lat, before: &at, in: buffer)
            at -= 1
            buffer[at] = 0x2C
            writeMicros(lng, before: &at, in: buffer)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[at...]))
        }
    }

    /// `x` in millionths when `decimals6(x)` is exactly that many millionths: when the nearest
    /// Double to m / 10⁶ is `x`, both the shortest representation and `%.6f` print m / 10⁶
    /// (two numbers of six decimals are 10⁻⁶ apart, far more than a Double's spacing here).
    /// -0 and anything large are left to `decimals6`.
    private static func micros(_ x: Double) -> Int64? {
        guard abs(x) < 1e9, x != 0 || x.sign == .plus else { return nil }
        // To nearest, ties to even: one instruction, where `rounded()` (ties away) is a call to
        // libm. They differ only at a tie, which is never within a Double's error of a whole
        // number of millionths, so the check below refuses both.
        let m = (x * 1e6).rounded(.toNearestOrEven)
        return Double(m) / 1e6 == x ? Int64(m) : nil
    }

    /// Writes `m` millionths as `-?digits.dddddd` so that it ends just before `at`, and moves
    /// `at` to its first byte. At most 17 bytes: `m` is below 10¹⁵ (see `micros`).
    @inline(__always)
    private static func writeMicros(_ m: Int64, before at: inout Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
        var whole = m.magnitude / 1_000_000, fraction = m.magnitude % 1_000_000
        for _ in 0..<6 {
            at -= 1
            buffer[at] = UInt8(truncatingIfNeeded: 48 &+ fraction % 10)
            fraction /= 10
        }
        at -= 1
        buffer[at] = 0x2E
        repeat {
            at -= 1
            buffer[at] = UInt8(truncatingIfNeeded: 48 &+ whole % 10)
            whole /= 10
        } while whole > 0
        if m < 0 {
            at -= 1
            buffer[at] = 0x2D
        }
    }

    /// libc's `printf` of one Double: the same bytes as `String(format:)`, without Foundation's
    /// format machinery, which cost a regeo with 20 POIs more than its query.
    static func fixed(_ x: Double, _ format: StaticString) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer in
            let base = buffer.baseAddress!
            _ = format.withUTF8Buffer { f in
                f.withMemoryRebound(to: CChar.self) { f in withVaList([x]) { vsnprintf(base, 512, f.baseAddress!, $0) } }
            }
            return String(cString: base)
        }
    }

    /// AMap's 8-way direction words for the bearing from `from` to `to`; "Center" when they coincide.
    public static func direction(from: Coordinate, to: Coordinate) -> String {
        let dLat = to.latitude - from.latitude
        let dLng = (to.longitude - from.longitude) * cos(from.latitude * .pi / 180)
        if abs(dLat) < 1e-9 && abs(dLng) < 1e-9 { return "Center" }
        // Degrees clockwise from north.
        var bearing = atan2(dLng, dLat) * 180 / .pi
        if bearing < 0 { bearing += 360 }
        let words = ["北", "东北", "东", "东南", "南", "西南", "西", "西北"]
        return words[Int((bearing + 22.5) / 45) % 8]
    }

    static let ok: [(String, JSON)] = [("status", .string("1")), ("info", .string("OK")), ("infocode", .string("10000"))]
    static let emptyNamed: JSON = .object([("name", .array([])), ("type", .array([]))])
    static let emptySuggestion: JSON = .object([("keywords", .array([])), ("cities", .array([]))])

    /// The four municipalities (北京, 天津, 上海, 重庆), stored as provinces.
    public static func isMunicipality(_ code: String) -> Bool {
        ["110000", "120000", "310000", "500000"].contains(code)
    }

    // MARK: regeo

    /// Writes one `regeocode` object of `/v3/geocode/regeo` as UTF-8: the service and
    /// `reverse --batch` both write it this way, so their bytes are the same. `all` adds
    /// `roads`, `roadinters`, `pois` and `aois` (AMap's extensions=all). We know no roads, so
    /// `roads` is empty, except with `placeholderRoad`: one road with no name, id or distance at
    /// the point, for AMap's mini-program SDK, whose `getRegeo` reads `roads[0].name` unchecked
    /// and throws on an empty list (as it does on AMap's own answers where there is no road).
    public static func writeRegeocode(_ r: ReverseGeocode, all: Bool, placeholderRoad: Bool = false, into out: inout [UInt8]) {
        writeRegeocode(r, all: all, placeholderRoad: placeholderRoad, leavingLocation: false, into: &out)
    }

    /// `writeRegeocode`, with `leavingLocation` the streetNumber's location left out (its quotes
    /// written, nothing between them). - Returns: where the location goes in `out` (-1 without).
    @discardableResult
    private static func writeRegeocode(_ r: ReverseGeocode, all: Bool, placeholderRoad: Bool, leavingLocation: Bool, into out: inout [UInt8]) -> Int {
        var cut = -1
        func literal(_ s: StaticString) { s.withUTF8Buffer { out.append(contentsOf: $0) } }
        func string(_ s: String) { JSON.escape(s, into: &out) }
        let a = r.address
        literal(#"{"formatted_address":"#)
        string(r.formattedAddress)
        literal(#","addressComponent":{"country":"#)
        string(a.country)
        literal(#","province":"#)
        string(a.province?.name ?? "")
        literal(#","city":"#)
        string(a.city?.name ?? "")
        literal(#","citycode":"#)
        string(a.citycode ?? "")
        literal(#","district":"#)
        string(a.district?.name ?? "")
        literal(#","adcode":"#)
        string(a.adcode ?? "")
        literal(#","township":"#)
        string(a.town?.name ?? "")
        literal(#","towncode":"#)
        string(a.town?.code ?? "")
        literal(#","neighborhood":{"name":[],"type":[]},"building":{"name":[],"type":[]},"streetNumber":{"street":"","number":"","location":"#)
        if leavingLocation {
            out.append(0x22)
            cut = out.count
            out.append(0x22)
        } else {
            string(location(r.location))
        }
        literal(#","direction":"","distance":""},"businessAreas":[[]],"towncode9":"#)
        string(a.townCode9 ?? "")
        literal(a.townIsApproximate ? #","township_approximate":"true""# : #","township_approximate":"false""#)
        // Whether a town was named, and how: "none" says the point is placed but no town
        // centre is near enough to name one likely right (see `TownSet`).
        literal(#","township_status":"#)
        literal(a.town != nil ? (a.townIsApproximate ? #""approximate"}"# : #""exact"}"#) : (a.adcode != nil ? #""none"}"# : #"""}"#))
        if all {
            if placeholderRoad {
                literal(#","roads":[{"id":"","name":"","direction":"","distance":"","location":"#)
                string(location(r.location))
                literal(#"}],"roadinters":[],"pois":["#)
            } else {
                literal(#","roads":[],"roadinters":[],"pois":["#)
            }
            for (i, p) in r.pois.enumerated() {
                if i > 0 { out.append(0x2C) }
                regeoPOI(p, from: r.location).write(into: &out)
            }
            literal(#"],"aois":[]"#)
        }
        literal("}")
        return cut
    }

    /// One of regeo's `pois`: AMap's keys in its order, then our `typecode` and `adcode`.
    static func regeoPOI(_ p: POIDistance, from: Coordinate) -> JSON {
        let poi = p.poi
        return .object([
            ("id", .string(poi.id)), ("name", .string(poi.name)), ("type", .string(poi.type ?? "")),
            ("tel", .string(poi.phone ?? "")), ("direction", .string(direction(from: from, to: poi.location))),
            ("distance", .string(distance(p.distance))), ("location", .string(location(poi.location))),
            ("address", .string(poi.address ?? "")), ("poiweight", .string("")), ("businessarea", .string("")),
            ("typecode", .string(poi.typecode ?? "")), ("adcode", .string(poi.adcode ?? "")),
        ])
    }

    /// `{"status":"1","info":"OK","infocode":"10000","regeocode":{…}}` for one point, written
    /// as the service answers it.
    public static func writeRegeo(_ r: ReverseGeocode, all: Bool, into out: inout [UInt8]) {
        StaticString(#"{"status":"1","info":"OK","infocode":"10000","regeocode":"#).withUTF8Buffer { out.append(contentsOf: $0) }
        writeRegeocode(r, all: all, into: &out)
        out.append(0x7D)
    }

    /// `writeRegeo(r, all: true, into:)` without the streetNumber's location, the only
    /// location in an answer without POIs (`RegeoLines` writes each point's own there).
    /// - Returns: where in `out` that location goes: between the quotes that are written.
    package static func writeRegeoLeavingLocation(_ r: ReverseGeocode, into out: inout [UInt8]) -> Int {
        precondition(r.pois.isEmpty, "an answer with POIs has more than one location")
        StaticString(#"{"status":"1","info":"OK","infocode":"10000","regeocode":"#).withUTF8Buffer { out.append(contentsOf: $0) }
        let cut = writeRegeocode(r, all: true, placeholderRoad: false, leavingLocation: true, into: &out)
        out.append(0x7D)
        return cut
    }

    // MARK: place/text, place/around

    /// AMap's category for a region hit (地名地址信息), by level; the four municipalities are
    /// 直辖市级地名.
    public static func regionType(_ region: Region) -> (type: String, code: String) {
        switch region.level {
        case .province where isMunicipality(region.code): ("地名地址信息;普通地名;直辖市级地名", "190103")
        case .province: ("地名地址信息;普通地名;省级地名", "190102")
        case .city: ("地名地址信息;普通地名;地市级地名", "190104")
        case .district: ("地名地址信息;普通地名;区县级地名", "190105")
        case .town: ("地名地址信息;普通地名;乡镇级地名", "190106")
        }
    }

    /// The best location for a region: its centre, else the middle of its box, else that of
    /// the nearest region above it that has one; `approximate` unless it is a surveyed centre.
    static func estimate(_ r: Region, above: [Region?]) -> (location: Coordinate?, approximate: Bool) {
        if let c = r.center { return (c, r.centerIsApproximate) }
        if let b = r.boundingBox {
            return (Coordinate(longitude: (b.minLongitude + b.maxLongitude) / 2, latitude: (b.minLatitude + b.maxLatitude) / 2), true)
        }
        for case let p? in above.reversed() {
            if let c = p.center { return (c, true) }
        }
        return (nil, true)
    }

    /// A place/text or place/around entry for a region or a POI hit: AMap's POI fields, then
    /// our `level`, `towncode`, `match_class` and `location_approximate`.
    static func place(_ hit: SearchHit, all: Bool) -> JSON {
        var id = "", name = hit.name, type = "", typecode = "", address = "", tel = "", adcode = ""
        var towncode = "", loc = "", approximate = false
        var pname = hit.province?.name ?? "", cityname = hit.city?.name ?? "", adname = hit.district?.name ?? ""
        var pcode = hit.province?.code ?? "", citycode = hit.city?.citycode ?? hit.district?.citycode ?? ""
        switch hit.kind {
        case .poi(let p):
            id = p.id; type = p.type ?? ""; typecode = p.typecode ?? ""; address = p.address ?? ""
            tel = p.phone ?? ""; adcode = p.adcode ?? ""; towncode = p.townCode12 ?? ""; loc = location(p.location)
        case .region(let r):
            let t = regionType(r)
            id = r.code; type = t.type; typecode = t.code
            adcode = r.level == .town ? (AdminCode(r.code)?.countyAdcode.description ?? r.code) : r.code
            if r.level == .town { towncode = r.code }
            let e = estimate(r, above: [hit.province, hit.city, hit.district])
            loc = e.location.map(location) ?? ""
            approximate = e.approximate
            // A region hit fills its own level (a district's adname is its name).
            switch r.level {
            case .province: pname = r.name; pcode = r.code
            case .city: cityname = r.name
            case .district: adname = r.name
            case .town: break
            }
            if citycode.isEmpty { citycode = r.citycode ?? "" }
            address = adname
            name = r.name
        }
        if cityname.isEmpty, let p = hit.province, isMunicipality(p.code) { cityname = p.name }
        let matchClass = ["exact", "prefix", "substring"][hit.match.rawValue]
        var pairs: [(String, JSON)] = [
            ("id", .string(id)), ("parent", .string("")), ("childtype", .string("")), ("name", .string(name)),
            ("type", .string(type)), ("typecode", .string(typecode)), ("biz_type", .string("")),
            ("address", .string(address)), ("location", .string(loc)), ("tel", .string(tel)),
            ("distance", .string(hit.distance.map(distance) ?? "")),
            ("pcode", .string(pcode)), ("pname", .string(pname)), ("citycode", .string(citycode)),
            ("cityname", .string(cityname)), ("adcode", .string(adcode)), ("adname", .string(adname)),
            ("importance", .string("")), ("shopid", .string("")), ("shopinfo", .string("0")), ("poiweight", .string("")),
            ("gridcode", .string("")), ("navi_poiid", .string("")), ("entr_location", .string("")),
            ("business_area", .string("")), ("exit_location", .string("")), ("match", .string("0")),
            ("recommend", .string("0")), ("timestamp", .string("")), ("alias", .string("")),
            ("indoor_map", .string("0")),
            ("indoor_data", .object([("cpid", .string("")), ("floor", .string("")), ("truefloor", .string("")), ("cmsid", .string(""))])),
            ("groupbuy_num", .string("0")), ("discount_num", .string("0")),
            ("biz_ext", .object([("rating", .string("")), ("cost", .string(""))])),
            ("event", .string("")), ("children", .array([])), ("photos", .array([])),
        ]
        if all {
            pairs += [("tag", .string("")), ("postcode", .string("")), ("website", .string("")), ("email", .string(""))]
        }
        pairs += [
            ("level", .string(hit.levelName)), ("towncode", .string(towncode)), ("match_class", .string(matchClass)),
            ("location_approximate", .string(String(approximate))),
        ]
        return .object(pairs)
    }

    /// The same entry for a POI found by place/around.
    static func place(_ p: POIDistance, all: Bool) -> JSON {
        place(SearchHit(kind: .poi(p.poi), match: .exact, distance: p.distance, province: p.province, city: p.city, district: p.district), all: all)
    }

    /// place/text and place/around: `{"status","info","infocode","count","suggestion","pois"}`.
    static func places(_ pois: [JSON], count: Int) -> JSON {
        .object(ok + [("count", .string(String(count))), ("suggestion", emptySuggestion), ("pois", .array(pois))])
    }

    // MARK: geocode/geo

    /// The whole `/v3/geocode/geo` answer for one address: `count` 1 with its entry, or 0 and no
    /// entries when nothing was found (as the service answers).
    public static func geoAnswer(_ g: Geocode?) -> JSON {
        let all = g.map { [$0] + $0.namesakes } ?? []
        return .object(ok + [("count", .string(String(all.count))), ("geocodes", .array(all.map { geocode($0) }))])
    }

    /// One of geo's `geocodes`; nil gives the slot of an address that did not resolve.
    static func geocode(_ g: Geocode?) -> JSON {
        guard let g else {
            return .object([
                ("formatted_address", .string("")), ("country", .string("")), ("province", .string("")), ("citycode", .string("")),
                ("city", .string("")), ("district", .string("")), ("township", .string("")), ("neighborhood", emptyNamed),
                ("building", emptyNamed), ("adcode", .string("")), ("street", .string("")), ("number", .string("")),
                ("location", .string("")), ("level", .string("")),
            ])
        }
        let (city, loc, approximate) = entryValues(g)
        return .object([
            ("formatted_address", .string(g.formattedAddress)), ("country", .string("中国")),
            ("province", .string(g.province?.name ?? "")),
            ("citycode", .string(citycode(g))),
            ("city", .string(city)), ("district", .string(g.district?.name ?? "")), ("township", .string(g.town?.name ?? "")),
            ("neighborhood", emptyNamed), ("building", emptyNamed), ("adcode", .string(g.adcode ?? "")),
            ("street", .string("")), ("number", .string("")), ("location", .string(loc.map(location) ?? "")),
            ("level", .string(g.level)),
            ("towncode", .string(g.town?.code ?? "")), ("towncode9", .string(g.townCode9 ?? "")),
            ("location_approximate", .string(String(approximate))), ("poi", .string(g.poi?.name ?? "")), ("unmatched", .string(g.unmatched)),
            ("former_name", .string(g.formerNames.joined(separator: ","))),
        ])
    }

    /// `geoAnswer(g).write(into:)`, byte for byte, without the JSON value in between (as
    /// `writeRegeo` does for regeo): batch mode writes millions of these.
    public static func writeGeoAnswer(_ g: Geocode?, into out: inout [UInt8]) {
        func literal(_ s: StaticString) { s.withUTF8Buffer { out.append(contentsOf: $0) } }
        func string(_ s: String) { JSON.escape(s, into: &out) }
        literal(#"{"status":"1","info":"OK","infocode":"10000","count":"#)
        guard let g else {
            literal(#""0","geocodes":[]}"#)
            return
        }
        string(String(1 + g.namesakes.count))
        literal(#","geocodes":["#)
        func entry(_ e: Geocode, first: Bool) {
            let (city, loc, approximate) = entryValues(e)
            literal(first ? #"{"formatted_address":"# : #",{"formatted_address":"#)
            string(e.formattedAddress)
            literal(#","country":"中国","province":"#)
            string(e.province?.name ?? "")
            literal(#","citycode":"#)
            string(citycode(e))
            literal(#","city":"#)
            string(city)
            literal(#","district":"#)
            string(e.district?.name ?? "")
            literal(#","township":"#)
            string(e.town?.name ?? "")
            literal(#","neighborhood":{"name":[],"type":[]},"building":{"name":[],"type":[]},"adcode":"#)
            string(e.adcode ?? "")
            literal(#","street":"","number":"","location":""#)
            if let loc { writeLocation(loc, into: &out) }
            literal(#"","level":"#)
            string(e.level)
            literal(#","towncode":"#)
            string(e.town?.code ?? "")
            literal(#","towncode9":"#)
            string(e.townCode9 ?? "")
            literal(approximate ? #","location_approximate":"true","poi":"# : #","location_approximate":"false","poi":"#)
            string(e.poi?.name ?? "")
            literal(#","unmatched":"#)
            string(e.unmatched)
            literal(#","former_name":"#)
            string(e.formerNames.count == 1 ? e.formerNames[0] : e.formerNames.joined(separator: ","))
            literal("}")
        }
        entry(g, first: true)
        for namesake in g.namesakes { entry(namesake, first: false) }
        literal("]}")
    }

    private static func citycode(_ g: Geocode) -> String {
        g.city?.citycode ?? g.district?.citycode ?? g.province?.citycode ?? ""
    }

    /// An entry's city (a municipality's own name where it has no city level), location and
    /// whether that is approximate (a region's estimate where the answer has no location).
    private static func entryValues(_ g: Geocode) -> (city: String, location: Coordinate?, approximate: Bool) {
        var city = g.city?.name ?? ""
        if city.isEmpty, let p = g.province, isMunicipality(p.code) { city = p.name }
        var loc = g.location, approximate = g.locationIsApproximate
        if loc == nil {
            for case let r? in [g.town, g.district, g.city, g.province] {
                let e = estimate(r, above: [])
                if let l = e.location { loc = l; approximate = true; break }
            }
        }
        return (city, loc, approximate)
    }

    // MARK: config/district

    /// AMap's config/district level words: a town or street is `street`.
    public static func districtLevel(_ level: RegionLevel) -> String {
        level == .town ? "street" : level.name
    }

    /// A GeoJSON Polygon or MultiPolygon geometry as AMap's `polyline`: `lng,lat;lng,lat`
    /// per ring, rings joined by `|`. Empty if it cannot be read.
    static func polyline(geoJSON: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(geoJSON.utf8)) as? [String: Any],
              let coordinates = object["coordinates"] as? [Any] else { return "" }
        var rings: [[Any]] = []
        func collect(_ value: [Any]) {
            // A ring is a list of positions; a position is a list of numbers.
            if let first = value.first as? [Any], first.first is NSNumber { rings.append(value); return }
            for v in value { if let a = v as? [Any] { collect(a) } }
        }
        collect(coordinates)
        return rings.map { ring in
            ring.compactMap { p -> String? in
                guard let p = p as? [Any], p.count >= 2, let x = p[0] as? NSNumber, let y = p[1] as? NSNumber else { return nil }
                return location(Coordinate(longitude: x.doubleValue, latitude: y.doubleValue))
            }.joined(separator: ";")
        }.joined(separator: "|")
    }
}
