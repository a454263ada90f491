import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerAMap

// AMapService in process: every endpoint's parameters, AMap's full shapes with their JSON
// types, and AMap's error answers for bad input. On the small fixture (fast) and on the seed.

/// One service answer, parsed.
struct AMapReply {
    let answer: AMapAnswer
    let object: [String: Any]

    init(_ service: AMapService, _ path: String, _ parameters: [String: String], options: AMapService.Options = .init(),
         sourceLocation: SourceLocation = #_sourceLocation) throws {
        answer = service.answer(path: path, parameters: parameters, options: options)
        let parsed = try JSONSerialization.jsonObject(with: Data(answer.json.utf8))
        object = try #require(parsed as? [String: Any], "not a JSON object: \(answer.json)", sourceLocation: sourceLocation)
    }

    var status: String? { object["status"] as? String }
    var infocode: String? { object["infocode"] as? String }
}

/// A JSON type, as AMap's clients expect them.
enum JSONKind { case string, object, array }

/// Checks that `object` has every key of `shape` with that JSON type.
func expectShape(_ object: [String: Any], _ shape: [String: JSONKind], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for (key, kind) in shape {
        let value = object[key]
        let ok: Bool
        switch kind {
        case .string: ok = value is String
        case .object: ok = value is [String: Any]
        case .array: ok = value is [Any]
        }
        #expect(ok, "\(what): \(key) should be \(kind), is \(String(describing: value))", sourceLocation: sourceLocation)
    }
}

/// What AMap documents, with the JSON type of each member.
enum AMapShapes {
    static let addressComponent: [String: JSONKind] = [
        "country": .string, "province": .string, "city": .string, "citycode": .string, "district": .string, "adcode": .string,
        "township": .string, "towncode": .string, "neighborhood": .object, "building": .object, "streetNumber": .object,
        "businessAreas": .array,
    ]
    static let streetNumber: [String: JSONKind] = ["street": .string, "number": .string, "location": .string, "direction": .string, "distance": .string]
    static let regeoPOI: [String: JSONKind] = [
        "id": .string, "name": .string, "type": .string, "tel": .string, "direction": .string, "distance": .string,
        "location": .string, "address": .string, "poiweight": .string, "businessarea": .string,
    ]
    static let place: [String: JSONKind] = [
        "id": .string, "parent": .string, "childtype": .string, "name": .string, "type": .string, "typecode": .string,
        "biz_type": .string, "address": .string, "location": .string, "tel": .string, "distance": .string, "pcode": .string,
        "pname": .string, "citycode": .string, "cityname": .string, "adcode": .string, "adname": .string, "importance": .string,
        "shopid": .string, "shopinfo": .string, "poiweight": .string, "gridcode": .string, "navi_poiid": .string,
        "entr_location": .string, "business_area": .string, "exit_location": .string, "match": .string, "recommend": .string,
        "timestamp": .string, "alias": .string, "indoor_map": .string, "indoor_data": .object, "groupbuy_num": .string,
        "discount_num": .string, "biz_ext": .object, "event": .string, "children": .array, "photos": .array,
    ]
    static let geocode: [String: JSONKind] = [
        "formatted_address": .string, "country": .string, "province": .string, "citycode": .string, "city": .string,
        "district": .string, "township": .string, "neighborhood": .object, "building": .object, "adcode": .string,
        "street": .string, "number": .string, "location": .string, "level": .string,
    ]
    static let district: [String: JSONKind] = [
        "citycode": .string, "adcode": .string, "name": .string, "center": .string, "level": .string, "districts": .array,
    ]
    static let tip: [String: JSONKind] = [
        "id": .string, "name": .string, "district": .string, "adcode": .string, "location": .string, "address": .string, "typecode": .string,
    ]

    /// A "lng,lat" string.
    static func isLocation(_ value: Any?) -> Bool {
        guard let s = value as? String else { return false }
        let parts = s.split(separator: ",")
        return parts.count == 2 && parts.allSatisfy { Double($0) != nil }
    }
}

@Suite(.tags(.fast)) struct AMapServiceSmallTests {
    let service = AMapService(repository: SmallGazetteer.repository)
    let origin = "100.2,30.2"

    func reply(_ path: String, _ parameters: [String: String], options: AMapService.Options = .init()) throws -> AMapReply {
        try AMapReply(service, path, parameters, options: options)
    }

    // MARK: errors common to every endpoint

    @Test func unknownPathIs10002() throws {
        for path in ["/v3/ip", "/vv3/geocode/regeo", "", "/v3/geocode/regeo/", "/v3/weather/weatherInfo"] {
            let r = try reply(path, ["location": origin])
            #expect(r.status == "0" && r.infocode == "10002", "\(path): \(r.answer.json)")
            #expect(r.object.count == 3, "only status, info, infocode")
        }
    }

    @Test func outputJSONInAnyCaseAndXMLRefused() throws {
        for output in ["json", "JSON", "Json"] {
            #expect(try reply("/v3/geocode/regeo", ["location": origin, "output": output]).status == "1")
        }
        let xml = try reply("/v3/geocode/regeo", ["location": origin, "output": "XML"])
        #expect(xml.infocode == "20000" && xml.object["info"] as? String == "INVALID_PARAMS")
    }

    @Test func unknownParametersAreIgnoredAndEmptyOnesAbsent() throws {
        let r = try reply("/v3/geocode/regeo", ["location": origin, "key": "k", "s": "rsx", "platform": "WXJS", "sdkversion": "1.2", "radius": ""])
        #expect(r.status == "1", "\(r.answer.json)")
        #expect(try reply("/v3/geocode/regeo", ["location": "", "key": "k"]).infocode == "20001")
    }

    static let missingRequiredIs20001Cases: [(String, [String: String])] = [
        ("/v3/geocode/regeo", [String: String]()),
        ("/v3/geocode/geo", [:]),
        ("/v3/place/text", ["city": "青山市"]),
        ("/v3/place/around", ["keywords": "便利店"]),
        ("/v3/assistant/inputtips", ["city": "青山市"]),
        ("/v3/assistant/coordinate/convert", ["coordsys": "gps"]),
    ]

    @Test(arguments: Self.missingRequiredIs20001Cases)
    func missingRequiredIs20001(path: String, parameters: [String: String]) throws {
        let r = try reply(path, parameters)
        #expect(r.status == "0" && r.infocode == "20001" && r.object["info"] as? String == "MISSING_REQUIRED_PARAMS", "\(path): \(r.answer.json)")
    }

    static let malformedIs20000Cases: [(String, [String: String])] = [
        ("/v3/geocode/regeo", ["location": "abc"]),
        ("/v3/geocode/regeo", ["location": "30.2,100.2"]),
        ("/v3/geocode/regeo", ["location": "200,30"]),
        ("/v3/geocode/regeo", ["location": "100.2,30.2", "radius": "3001"]),
        ("/v3/geocode/regeo", ["location": "100.2,30.2", "radius": "-1"]),
        ("/v3/geocode/regeo", ["location": "100.2,30.2", "radius": "nan"]),
        ("/v3/geocode/regeo", ["location": "100.2,30.2", "extensions": "more"]),
        ("/v3/geocode/regeo", ["location": "100.2,30.2", "batch": "maybe"]),
        ("/v3/geocode/regeo", ["location": Array(repeating: "100.2,30.2", count: 21).joined(separator: "|"), "batch": "true"]),
        ("/v3/geocode/regeo", ["location": "100.2,30.2|", "batch": "true"]),
        ("/v3/geocode/geo", ["address": Array(repeating: "青山市", count: 11).joined(separator: "|"), "batch": "true"]),
        ("/v3/geocode/geo", ["address": String(repeating: "青", count: 201)]),
        ("/v3/place/text", ["keywords": String(repeating: "便", count: 81)]),
        ("/v3/place/text", ["keywords": "便利店", "offset": "26"]),
        ("/v3/place/text", ["keywords": "便利店", "offset": "0"]),
        ("/v3/place/text", ["keywords": "便利店", "page": "101"]),
        ("/v3/place/text", ["keywords": "便利店", "page": "99999999999999999999999"]),
        ("/v3/place/around", ["location": "100.2,30.2", "radius": "50001"]),
        ("/v3/place/around", ["location": "100.2,30.2", "sortrule": "price"]),
        ("/v3/place/around", ["location": "x"]),
        ("/v3/config/district", ["keywords": "青山市", "subdistrict": "4"]),
        ("/v3/config/district", ["keywords": "青山市", "filter": "abc"]),
        ("/v3/assistant/inputtips", ["keywords": "便利", "datatype": "movies"]),
        ("/v3/assistant/coordinate/convert", ["locations": "100.2,30.2", "coordsys": "mapbar"]),
        ("/v3/assistant/coordinate/convert", ["locations": Array(repeating: "100.2,30.2", count: 41).joined(separator: "|")]),
    ]

    @Test(arguments: Self.malformedIs20000Cases)
    func malformedIs20000(path: String, parameters: [String: String]) throws {
        let r = try reply(path, parameters)
        #expect(r.status == "0" && r.infocode == "20000" && r.object["info"] as? String == "INVALID_PARAMS", "\(path) \(parameters): \(r.answer.json)")
        #expect(r.object.count == 3)
    }

    /// Hostile text never breaks an answer: AMap's success or error shape, valid JSON, no
    /// path or trace in `info`.
    @Test func hostileTextGivesAnAMapAnswer() throws {
        let texts = ["\"'; DROP TABLE region; --", "a\"b\\c\u{0}\u{1}\u{2028}", "NEAR(a b) OR *", "%%%", "\u{FEFF}\u{200B}", "|||", "🙂🙂",
                     String(repeating: "x", count: 5_000), "\n\t", "../../etc/passwd"]
        for text in texts {
            for path in AMapService.paths {
                for name in ["keywords", "address", "location", "locations", "city", "types", "type", "filter", "radius", "offset"] {
                    var p = ["keywords": "便利店", "address": "青山市", "location": origin, "locations": origin]
                    p[name] = text
                    let r = try reply(path, p)
                    let code = r.infocode ?? ""
                    let fine = r.status == "1" || code == "20000" || code == "20001"
                    #expect(fine, "\(path) \(name): \(r.answer.json.prefix(300))")
                    if r.status == "0" { #expect(!r.answer.json.contains("/"), "no path in info") }
                }
            }
        }
    }

    // MARK: regeo

    @Test func regeoBaseHasTheAddressAndNoPOIs() throws {
        // Near 石桥镇's (approximate) centre.
        let r = try reply("/v3/geocode/regeo", ["location": "100.11,30.11"])
        #expect(r.status == "1" && r.object["info"] as? String == "OK" && r.infocode == "10000")
        let regeocode = try #require(r.object["regeocode"] as? [String: Any], "\(r.answer.json)")
        #expect(regeocode["formatted_address"] is String)
        let component = try #require(regeocode["addressComponent"] as? [String: Any])
        expectShape(component, AMapShapes.addressComponent, "addressComponent")
        expectShape(try #require(component["streetNumber"] as? [String: Any]), AMapShapes.streetNumber, "streetNumber")
        #expect(AMapShapes.isLocation((component["streetNumber"] as? [String: Any])?["location"]))
        #expect(component["province"] as? String == "东海省")
        #expect(component["city"] as? String == "青山市")
        #expect(component["district"] as? String == "白沙区")
        #expect(component["adcode"] as? String == "910102")
        #expect(component["township"] as? String == "石桥镇")
        #expect(component["towncode"] as? String == "910102001000")
        #expect(component["towncode9"] as? String == "910102001")
        #expect(component["township_approximate"] as? String == "true")
        // AMap's empty forms.
        let neighborhood = try #require(component["neighborhood"] as? [String: Any])
        #expect((neighborhood["name"] as? [Any])?.isEmpty == true && (neighborhood["type"] as? [Any])?.isEmpty == true)
        #expect(r.answer.json.contains(#""building":{"name":[],"type":[]}"#))
        #expect(r.answer.json.contains(#""businessAreas":[[]]"#))
        for key in ["pois", "roads", "roadinters", "aois"] { #expect(regeocode[key] == nil, "\(key) only with extensions=all") }
    }

    @Test func regeoAllListsPOIsWithDirectionAndEmptyRoads() throws {
        let r = try reply("/v3/geocode/regeo", ["location": origin, "extensions": "all", "radius": "3000"])
        let regeocode = try #require(r.object["regeocode"] as? [String: Any], "\(r.answer.json)")
        for key in ["roads", "roadinters", "aois"] { #expect((regeocode[key] as? [Any])?.isEmpty == true, "\(key)") }
        let pois = try #require(regeocode["pois"] as? [[String: Any]])
        #expect(!pois.isEmpty)
        for p in pois {
            expectShape(p, AMapShapes.regeoPOI, "regeo poi")
            #expect(AMapShapes.isLocation(p["location"]))
        }
        // The 便利店 at (100.2, 30.2008) is 89 m due north of the point.
        let north = try #require(pois.first, "\(pois)")
        #expect(north["name"] as? String == "便利店" && north["direction"] as? String == "北" && north["distance"] as? String == "89", "\(north)")
        #expect(pois.contains { $0["direction"] as? String == "东" }, "the 便利店 at 100.215 lies east")
        #expect(pois.contains { $0["direction"] as? String == "南" })
        // radius 0 lists none; poitype filters.
        let none = try reply("/v3/geocode/regeo", ["location": origin, "extensions": "all", "radius": "0"])
        #expect(((none.object["regeocode"] as? [String: Any])?["pois"] as? [Any])?.isEmpty == true)
        let books = try reply("/v3/geocode/regeo", ["location": origin, "extensions": "all", "poitype": "061205"])
        let bookPOIs = try #require((books.object["regeocode"] as? [String: Any])?["pois"] as? [[String: Any]])
        #expect(!bookPOIs.isEmpty && bookPOIs.allSatisfy { $0["typecode"] as? String == "061205" }, "\(bookPOIs)")
    }

    /// AMap's mini-program SDK (amap-wx.js, `platform=WXJS`) reads `roads[0].name` unchecked:
    /// it gets one nameless road at the point, every other client the honest empty list.
    @Test func miniProgramSDKGetsANamelessRoad() throws {
        let query = ["location": origin, "extensions": "all", "s": "rsx", "platform": "WXJS", "sdkversion": "1.2.0"]
        let r = try reply("/v3/geocode/regeo", query)
        let roads = try #require((r.object["regeocode"] as? [String: Any])?["roads"] as? [[String: Any]], "\(r.answer.json)")
        #expect(roads.count == 1)
        #expect(roads.first?["name"] as? String == "" && roads.first?["id"] as? String == "")
        #expect(roads.first?["location"] as? String == origin.split(separator: ",").map { String(format: "%.6f", Double($0)!) }.joined(separator: ","))
        var other = query
        other["platform"] = "JS"
        let plain = try reply("/v3/geocode/regeo", other)
        #expect(((plain.object["regeocode"] as? [String: Any])?["roads"] as? [Any])?.isEmpty == true)
    }

    /// Locations and distances print as `String(format: "%.6f")` and `"%.0f"` did, byte for byte
    /// (clients and the CLI/service equality depend on it), through the fast paths too.
    @Test func numbersPrintAsPrintf() {
        var g = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 1e-7, -1e-7, 0.5, 1.5, 2.5, -0.4, 1e-5, 116.3974775, 39.9086925, 1e20]
        for i in 0..<20_000 {
            switch i % 3 {
            case 0: values.append(Double(Int.random(in: -180_000_000...180_000_000, using: &g)) / 1e6)
            case 1: values.append(Double(Int.random(in: -1_800_000_000...1_800_000_000, using: &g)) / 1e7)
            default: values.append(Double.random(in: -180...180, using: &g))
            }
        }
        for x in values {
            #expect(AMapShape.decimals6(x) == String(format: "%.6f", x), "\(x)")
            let metres = abs(x) * 37 + (x > 0 ? 0.5 : 0)
            #expect(AMapShape.distance(metres) == String(format: "%.0f", metres), "\(metres)")
        }
    }

    @Test func regeoDirectionWords() {
        let o = Coordinate(longitude: 100, latitude: 30)
        let cases: [(Double, Double, String)] = [(0, 1, "北"), (1, 1, "东北"), (1, 0, "东"), (1, -1, "东南"), (0, -1, "南"),
                                                 (-1, -1, "西南"), (-1, 0, "西"), (-1, 1, "西北"), (0, 0, "Center")]
        for (dx, dy, word) in cases {
            #expect(AMapShape.direction(from: o, to: Coordinate(longitude: 100 + dx * 0.01, latitude: 30 + dy * 0.01)) == word, "\(dx),\(dy)")
        }
    }

    @Test func regeoBatchAnswersEveryPointInOrder() throws {
        let points = ["100.2,30.2", "101.25,30.25", "0,0", "102.25,30.25"]
        let r = try reply("/v3/geocode/regeo", ["location": points.joined(separator: "|"), "batch": "true"])
        let all = try #require(r.object["regeocodes"] as? [[String: Any]], "\(r.answer.json)")
        #expect(r.object["regeocode"] == nil)
        #expect(all.count == 4)
        let adcodes = all.map { ($0["addressComponent"] as? [String: Any])?["adcode"] as? String }
        #expect(adcodes == ["910102", "910202", "", "920102"], "outside the data: the empty shape")
        // Without batch only the first point counts.
        let single = try reply("/v3/geocode/regeo", ["location": points.joined(separator: "|")])
        #expect((single.object["regeocode"] as? [String: Any]) != nil && single.object["regeocodes"] == nil)
        let twenty = Array(repeating: "100.2,30.2", count: 20).joined(separator: "|")
        #expect((try reply("/v3/geocode/regeo", ["location": twenty, "batch": "TRUE"]).object["regeocodes"] as? [Any])?.count == 20)
    }

    /// `reverse --batch` writes regeo with its byte writer: the same bytes as the service.
    @Test func regeoByteWriterEqualsTheServiceAnswer() throws {
        for point in ["100.2,30.2", "101.03,30.2", "0,0", "100.4,30.4"] {
            let c = try Coordinate(parsing: point)
            let r = try SmallGazetteer.repository.reverseGeocode(c, radius: 1000, poiLimit: 20)
            var bytes: [UInt8] = []
            AMapShape.writeRegeo(r, all: true, into: &bytes)
            let answer = service.answer(path: "/v3/geocode/regeo", parameters: ["location": point, "extensions": "all"])
            #expect(String(decoding: bytes, as: UTF8.self) == answer.json)
        }
    }

    // MARK: place/text, place/around

    @Test func textRegionHitsHaveAMapsTypecodesAndEveryField() throws {
        let r = try reply("/v3/place/text", ["keywords": "青山市"])
        #expect(r.status == "1" && r.object["count"] as? String == "1", "\(r.answer.json)")
        let suggestion = try #require(r.object["suggestion"] as? [String: Any])
        #expect(suggestion["keywords"] is [Any] && suggestion["cities"] is [Any])
        let pois = try #require(r.object["pois"] as? [[String: Any]])
        let city = try #require(pois.first)
        expectShape(city, AMapShapes.place, "place")
        #expect(city["typecode"] as? String == "190104" && city["type"] as? String == "地名地址信息;普通地名;地市级地名")
        #expect(city["match"] as? String == "0" && city["match_class"] as? String == "exact")
        #expect(city["distance"] as? String == "", "no location given: no distance")
        #expect(AMapShapes.isLocation(city["location"]))
        expectShape(try #require(city["biz_ext"] as? [String: Any]), ["rating": .string, "cost": .string], "biz_ext")
        #expect(city["tag"] == nil, "tag only with extensions=all")
        let all = try reply("/v3/place/text", ["keywords": "青山市", "extensions": "all"])
        let first = try #require((all.object["pois"] as? [[String: Any]])?.first)
        expectShape(first, ["tag": .string, "postcode": .string, "website": .string, "email": .string], "all")
        for (keyword, code) in [("东海省", "190102"), ("白沙区", "190105"), ("石桥镇", "190106")] {
            let hit = try #require((try reply("/v3/place/text", ["keywords": keyword]).object["pois"] as? [[String: Any]])?.first)
            #expect(hit["typecode"] as? String == code, "\(keyword)")
        }
    }

    @Test func textCityAndPaging() throws {
        let everywhere = try reply("/v3/place/text", ["keywords": "新城"])
        let inYungang = try reply("/v3/place/text", ["keywords": "新城", "city": "云港市", "citylimit": "true"])
        let all = try #require(everywhere.object["pois"] as? [[String: Any]])
        let limited = try #require(inYungang.object["pois"] as? [[String: Any]], "\(inYungang.answer.json)")
        #expect(limited.count < all.count && !limited.isEmpty)
        #expect(limited.allSatisfy { ($0["adcode"] as? String)?.hasPrefix("9102") == true }, "\(limited)")
        // The same city by adcode, by short name and by pinyin.
        for city in ["910200", "云港", "yungang"] {
            let r = try reply("/v3/place/text", ["keywords": "新城", "city": city, "citylimit": "true"])
            #expect(r.object["count"] as? String == inYungang.object["count"] as? String, "city=\(city): \(r.answer.json.prefix(200))")
        }
        let page1 = try reply("/v3/place/text", ["keywords": "新城", "offset": "1", "page": "1"])
        let page2 = try reply("/v3/place/text", ["keywords": "新城", "offset": "1", "page": "2"])
        #expect((page1.object["pois"] as? [Any])?.count == 1 && (page2.object["pois"] as? [Any])?.count == 1)
        #expect(page1.object["count"] as? String == everywhere.object["count"] as? String)
        #expect(((page1.object["pois"] as? [[String: Any]])?.first?["id"] as? String) != ((page2.object["pois"] as? [[String: Any]])?.first?["id"] as? String))
    }

    @Test func aroundDistancesTypesAndDefaults() throws {
        let r = try reply("/v3/place/around", ["location": origin, "keywords": "便利店", "radius": "1000"])
        #expect(r.status == "1", "\(r.answer.json)")
        #expect(r.object["suggestion"] is [String: Any])
        let pois = try #require(r.object["pois"] as? [[String: Any]])
        #expect(pois.count == 3 && r.object["count"] as? String == "3", "the fourth is 1.4 km east")
        for p in pois {
            expectShape(p, AMapShapes.place, "around poi")
            #expect(Int(p["distance"] as? String ?? "") != nil, "distance is an integer string")
        }
        let distances = pois.compactMap { Int($0["distance"] as? String ?? "") }
        #expect(distances == distances.sorted())
        // 060000 covers its category; 050000 (餐饮) has nothing within 1 km.
        let shops = try reply("/v3/place/around", ["location": origin, "types": "060000", "radius": "1000"])
        #expect(shops.object["count"] as? String == "4", "\(shops.answer.json)")
        let food = try reply("/v3/place/around", ["location": origin, "types": "050000", "radius": "1000"])
        #expect(food.object["count"] as? String == "0")
        // Neither keywords nor types: AMap's default types (餐饮, 商务住宅, 生活服务) — none here
        // within 1 km; the CLI's option searches everything.
        #expect(try reply("/v3/place/around", ["location": origin, "radius": "1000"]).object["count"] as? String == "0")
        var everything = AMapService.Options()
        everything.aroundDefaultTypes = nil
        #expect(try reply("/v3/place/around", ["location": origin, "radius": "1000"], options: everything).object["count"] as? String == "4")
        // Default radius 5000 reaches 老石桥饭店 (050100) 14 km away? No: 5 km does not.
        #expect(try reply("/v3/place/around", ["location": origin, "keywords": "饭店"]).object["count"] as? String == "0")
        #expect(try reply("/v3/place/around", ["location": origin, "keywords": "饭店", "radius": "50000"]).object["count"] as? String != "0")
    }

    // MARK: geo

    @Test func geoFullEntryAndBatch() throws {
        let r = try reply("/v3/geocode/geo", ["address": "东海省青山市白沙区石桥镇"])
        #expect(r.object["count"] as? String == "1", "\(r.answer.json)")
        let g = try #require((r.object["geocodes"] as? [[String: Any]])?.first)
        expectShape(g, AMapShapes.geocode, "geocode")
        #expect(g["township"] as? String == "石桥镇" && g["adcode"] as? String == "910102" && g["level"] as? String == "乡镇")
        #expect(AMapShapes.isLocation(g["location"]))
        let none = try reply("/v3/geocode/geo", ["address": "火星"])
        #expect(none.object["count"] as? String == "0" && (none.object["geocodes"] as? [Any])?.isEmpty == true, "\(none.answer.json)")
        let batch = try reply("/v3/geocode/geo", ["address": "青山市|火星|云港市新城区", "batch": "true"])
        let entries = try #require(batch.object["geocodes"] as? [[String: Any]], "\(batch.answer.json)")
        #expect(entries.count == 3 && batch.object["count"] as? String == "3")
        #expect(entries.map { $0["adcode"] as? String } == ["910100", "", "910202"], "an unresolved address keeps its slot")
        for e in entries { expectShape(e, AMapShapes.geocode, "batch geocode") }
        // city picks among namesakes.
        let xincheng = try reply("/v3/geocode/geo", ["address": "新城区", "city": "青山市"])
        #expect((xincheng.object["geocodes"] as? [[String: Any]])?.first?["adcode"] as? String == "910103", "\(xincheng.answer.json)")
        #expect(xincheng.object["count"] as? String == "1")
        // Without the city, every namesake is an entry of its own, each in AMap's full shape;
        // in a batch, an address keeps its one slot.
        let both = try reply("/v3/geocode/geo", ["address": "新城区"])
        let list = try #require(both.object["geocodes"] as? [[String: Any]], "\(both.answer.json)")
        #expect(both.object["count"] as? String == String(list.count) && list.count >= 2)
        #expect(Set(list.map { $0["district"] as? String }) == ["新城区"] && Set(list.map { $0["adcode"] as? String }).count == list.count)
        for e in list { expectShape(e, AMapShapes.geocode, "namesake geocode") }
        let slots = try reply("/v3/geocode/geo", ["address": "新城区|青山市", "batch": "true"])
        #expect((slots.object["geocodes"] as? [Any])?.count == 2 && slots.object["count"] as? String == "2")
    }

    // MARK: district

    @Test func districtShapesPolylineAndFilter() throws {
        let r = try reply("/v3/config/district", ["keywords": "白沙区", "subdistrict": "1"])
        #expect(r.object["count"] as? String == "2", "\(r.answer.json)")
        #expect(r.object["suggestion"] is [String: Any])
        let list = try #require(r.object["districts"] as? [[String: Any]])
        for d in list { expectShape(d, AMapShapes.district, "district") }
        #expect(list[0]["polyline"] == nil, "polyline only with extensions=all")
        let towns = try #require(list[0]["districts"] as? [[String: Any]])
        #expect(towns.count == 2 && towns.allSatisfy { $0["level"] as? String == "street" && $0["adcode"] as? String == "910102" && AMapShapes.isLocation($0["center"]) })
        let filtered = try reply("/v3/config/district", ["keywords": "白沙区", "filter": "910200"])
        #expect((filtered.object["districts"] as? [[String: Any]])?.map { $0["adcode"] as? String } == ["910203"], "\(filtered.answer.json)")
        let alias = try reply("/v3/config/district", ["keywords": "白沙区", "adcode": "910200"])
        #expect(alias.object["count"] as? String == "1")
        let all = try reply("/v3/config/district", ["keywords": "910102", "extensions": "all", "subdistrict": "0"])
        let polyline = try #require((all.object["districts"] as? [[String: Any]])?.first?["polyline"] as? String, "\(all.answer.json)")
        let points = polyline.split(separator: "|").flatMap { $0.split(separator: ";") }
        #expect(points.count >= 4 && points.allSatisfy { AMapShapes.isLocation(String($0)) }, "\(polyline)")
        let country = try reply("/v3/config/district", ["subdistrict": "1"])
        let top = try #require((country.object["districts"] as? [[String: Any]])?.first)
        #expect(top["adcode"] as? String == "100000" && top["level"] as? String == "country")
        #expect((top["districts"] as? [[String: Any]])?.map { $0["adcode"] as? String } == ["910000", "920000"])
        let paged = try reply("/v3/config/district", ["keywords": "白沙区", "offset": "1", "page": "2", "subdistrict": "0"])
        #expect((paged.object["districts"] as? [[String: Any]])?.map { $0["adcode"] as? String } == ["910203"], "\(paged.answer.json)")
    }

    // MARK: inputtips, convert

    @Test func inputtipsRegionAndPOITips() throws {
        let r = try reply("/v3/assistant/inputtips", ["keywords": "石桥"])
        let tips = try #require(r.object["tips"] as? [[String: Any]], "\(r.answer.json)")
        #expect(r.object["count"] as? String == String(tips.count) && !tips.isEmpty)
        for t in tips {
            expectShape(t, AMapShapes.tip, "tip")
            #expect(AMapShapes.isLocation(t["location"]))
        }
        #expect(tips.contains { $0["typecode"] as? String == "190106" && $0["district"] as? String == "东海省青山市白沙区" }, "\(tips)")
        #expect(tips.contains { $0["id"] as? String == "f02" && $0["typecode"] as? String == "141203" })
        let poiOnly = try reply("/v3/assistant/inputtips", ["keywords": "石桥", "datatype": "poi"])
        #expect((poiOnly.object["tips"] as? [[String: Any]])?.allSatisfy { !($0["typecode"] as? String ?? "").hasPrefix("1901") } == true)
        let bus = try reply("/v3/assistant/inputtips", ["keywords": "石桥", "datatype": "bus"])
        #expect(bus.object["count"] as? String == "0")
    }

    @Test func convertToGCJ02() throws {
        let r = try reply("/v3/assistant/coordinate/convert", ["locations": "116.481499,39.990475|116.4,39.9", "coordsys": "gps"])
        #expect(r.object["info"] as? String == "ok" && r.status == "1", "\(r.answer.json)")
        let pairs = try #require(r.object["locations"] as? String).split(separator: ";")
        #expect(pairs.count == 2 && pairs.allSatisfy { AMapShapes.isLocation(String($0)) })
        let expected = Coordinate(longitude: 116.481499, latitude: 39.990475).converted(from: .wgs84, to: .gcj02)
        #expect(pairs.first.map(String.init) == AMapShape.location(expected))
        let same = try reply("/v3/assistant/coordinate/convert", ["locations": "116.4,39.9"])
        #expect(same.object["locations"] as? String == "116.400000,39.900000")
        let baidu = try reply("/v3/assistant/coordinate/convert", ["locations": "116.4,39.9", "coordsys": "baidu"])
        #expect(baidu.object["locations"] as? String == AMapShape.location(Coordinate(longitude: 116.4, latitude: 39.9).converted(from: .bd09, to: .gcj02)))
    }
}

@Suite(.tags(.fast)) struct AMapCitycodeTests {
    /// A copy of the small gazetteer with telephone codes: 青山市 0871 (and its districts), 云港市 0872.
    static let repository: Repository = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-citycode-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: directory)
        let path = try! SmallGazetteer.build(in: directory)
        let codes = directory.appendingPathComponent("citycodes.csv")
        try! Data("code,parent,level,name,citycode\n910100,910000,city,青山市,0871\n910102,910100,district,白沙区,0871\n910200,910000,city,云港市,0872\n".utf8).write(to: codes)
        _ = try! Importer(path: path).importFiles([codes.path])
        atexit { try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-citycode-\(ProcessInfo.processInfo.processIdentifier)")) }
        return try! Repository(path: path)
    }()

    @Test func regionsByCitycode() throws {
        #expect(try Self.repository.regions(citycode: "0871").map(\.code) == ["910100", "910102"], "the city first")
        #expect(try Self.repository.regions(citycode: "0872").map(\.code) == ["910200"])
        #expect(try Self.repository.regions(citycode: "0999").isEmpty)
        #expect(try Self.repository.regions(citycode: "'; --").isEmpty)
        #expect(try Self.repository.regions(citycode: "").isEmpty)
    }

    @Test func cityAsAreaCodeAndCitycodesInAnswers() throws {
        let service = AMapService(repository: Self.repository)
        let r = service.answer(path: "/v3/place/text", parameters: ["keywords": "新城", "city": "0872", "citylimit": "true"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.json.utf8)) as? [String: Any])
        let pois = try #require(object["pois"] as? [[String: Any]], "\(r.json)")
        #expect(!pois.isEmpty && pois.allSatisfy { ($0["adcode"] as? String)?.hasPrefix("9102") == true }, "\(r.json)")
        #expect(pois.allSatisfy { $0["citycode"] as? String == "0872" }, "\(r.json)")
        let regeo = service.answer(path: "/v3/geocode/regeo", parameters: ["location": "100.2,30.2"])
        #expect(regeo.json.contains(#""citycode":"0871""#), "\(regeo.json)")
        let district = service.answer(path: "/v3/config/district", parameters: ["keywords": "0872", "subdistrict": "0"])
        #expect(district.json.contains(#""adcode":"910200""#) && district.json.contains(#""citycode":"0872""#), "\(district.json)")
    }
}

@Suite(.tags(.seed), .skippedInFastRuns) struct AMapServiceSeedTests {
    let service = AMapService(repository: SeedDatabase.repository)

    func object(_ path: String, _ parameters: [String: String]) throws -> [String: Any] {
        let a = service.answer(path: path, parameters: parameters)
        #expect(a.isSuccess, "\(path): \(a.json.prefix(300))")
        return try #require(try JSONSerialization.jsonObject(with: Data(a.json.utf8)) as? [String: Any])
    }

    @Test func regeoTiananmen() throws {
        let o = try object("/v3/geocode/regeo", ["location": "116.397477,39.908692", "extensions": "all"])
        let regeocode = try #require(o["regeocode"] as? [String: Any])
        let c = try #require(regeocode["addressComponent"] as? [String: Any])
        expectShape(c, AMapShapes.addressComponent, "addressComponent")
        #expect(c["province"] as? String == "北京市" && c["city"] as? String == "" && c["district"] as? String == "东城区")
        for p in try #require(regeocode["pois"] as? [[String: Any]]) { expectShape(p, AMapShapes.regeoPOI, "poi") }
    }

    @Test func municipalityTypecodeAndGeoCity() throws {
        let text = try object("/v3/place/text", ["keywords": "北京市"])
        let beijing = try #require((text["pois"] as? [[String: Any]])?.first)
        #expect(beijing["typecode"] as? String == "190103", "直辖市级地名")
        let shenzhen = try #require((try object("/v3/place/text", ["keywords": "深圳市"])["pois"] as? [[String: Any]])?.first)
        #expect(shenzhen["typecode"] as? String == "190104")
        let geo = try object("/v3/geocode/geo", ["address": "北京市朝阳区"])
        let g = try #require((geo["geocodes"] as? [[String: Any]])?.first)
        #expect(g["city"] as? String == "北京市" && g["district"] as? String == "朝阳区" && g["adcode"] as? String == "110105")
    }

    /// AMap gives a municipality its area code at province level (北京市 010) and an ordinary
    /// province none.
    @Test func districtCitycodeOfProvinces() throws {
        func citycode(_ keywords: String) throws -> String? {
            try #require((try object("/v3/config/district", ["keywords": keywords, "subdistrict": "0"])["districts"] as? [[String: Any]])?.first)["citycode"] as? String
        }
        #expect(try citycode("北京市") == "010")
        #expect(try citycode("上海市") == "021")
        #expect(try citycode("浙江省") == "")
        #expect(try citycode("杭州市") == "0571")
    }

    @Test func textCityByNameShortNameAndPinyin() throws {
        func count(_ city: String) throws -> String? {
            try object("/v3/place/text", ["keywords": "西湖", "city": city, "citylimit": "true"])["count"] as? String
        }
        let byName = try count("杭州市")
        #expect(byName != "0")
        #expect(try count("杭州") == byName)
        #expect(try count("330100") == byName)
        #expect(try count("hangzhou") == byName)
    }

    @Test func everyLocationIsALocation() throws {
        for keywords in ["西湖", "鼓楼", "城关镇", "大学"] {
            let o = try object("/v3/place/text", ["keywords": keywords, "offset": "25"])
            for p in try #require(o["pois"] as? [[String: Any]]) { #expect(AMapShapes.isLocation(p["location"]), "\(p)") }
            let tips = try object("/v3/assistant/inputtips", ["keywords": keywords])
            for t in try #require(tips["tips"] as? [[String: Any]]) { #expect(AMapShapes.isLocation(t["location"]), "\(t)") }
        }
        let d = try object("/v3/config/district", ["keywords": "西湖区", "subdistrict": "2"])
        func walk(_ list: [[String: Any]]) {
            for n in list {
                #expect(AMapShapes.isLocation(n["center"]), "\(n["name"] ?? "")")
                walk(n["districts"] as? [[String: Any]] ?? [])
            }
        }
        walk(try #require(d["districts"] as? [[String: Any]]))
    }
}

/// The CLI's --json is the service's answer for the same request, byte for byte.
@Suite(.tags(.seed, .cli), .skippedInFastRuns) struct AMapCLIEqualityTests {
    let service = AMapService(repository: SeedDatabase.repository)

    func expectSame(_ arguments: [String], _ path: String, _ parameters: [String: String], _ configure: (inout AMapService.Options) -> Void = { _ in },
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try CLI.seed(arguments + ["--json"])
        var options = AMapService.Options()
        configure(&options)
        let answer = service.answer(path: path, parameters: parameters, options: options)
        #expect(answer.isSuccess, "\(answer.json.prefix(200))", sourceLocation: sourceLocation)
        #expect(run.stdout == answer.json + "\n", "\(run)\n--- service:\n\(answer.json.prefix(2_000))", sourceLocation: sourceLocation)
    }

    @Test func reverse() throws {
        try expectSame(["reverse", "--location", "116.397477,39.908692"], "/v3/geocode/regeo",
                       ["location": "116.397477,39.908692", "extensions": "all", "radius": "1000"])
        try expectSame(["reverse", "--location", "120.1551,30.2741", "--radius", "5000", "--limit", "3"], "/v3/geocode/regeo",
                       ["location": "120.1551,30.2741", "extensions": "all", "radius": "5000"]) {
            $0.regeoPOILimit = 3
            $0.regeoMaxRadius = 50_000
        }
        try expectSame(["reverse", "--location", "116.397477,39.908692", "--coordsys", "wgs84"], "/v3/geocode/regeo",
                       ["location": "116.397477,39.908692", "extensions": "all"]) { $0.system = .wgs84 }
    }

    @Test func reverseBatchLinesEqualTheService() throws {
        let points = ["116.397477,39.908692", "120.1551,30.2741", "0,0", "113.7518,23.0205"]
        let run = try CLI.seed(["reverse", "--batch", "-"], stdin: points.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == points.count)
        for (line, point) in zip(lines, points) {
            #expect(line == service.answer(path: "/v3/geocode/regeo", parameters: ["location": point, "extensions": "all"]).json)
        }
    }

    @Test func search() throws {
        try expectSame(["search", "西湖", "--limit", "5"], "/v3/place/text", ["keywords": "西湖", "offset": "5"]) { $0.maxOffset = 200 }
        try expectSame(["search", "西湖", "--city", "杭州市", "--citylimit", "--page", "2", "--limit", "3"], "/v3/place/text",
                       ["keywords": "西湖", "city": "杭州市", "citylimit": "true", "offset": "3", "page": "2"]) { $0.maxOffset = 200 }
        try expectSame(["search", "大学", "--types", "141201", "--location", "116.3,39.99"], "/v3/place/text",
                       ["keywords": "大学", "types": "141201", "location": "116.3,39.99"]) { $0.maxOffset = 200 }
    }

    @Test func nearby() throws {
        try expectSame(["nearby", "--location", "116.397477,39.908692", "--radius", "3000"], "/v3/place/around",
                       ["location": "116.397477,39.908692", "radius": "3000"]) {
            $0.maxOffset = 100
            $0.aroundDefaultTypes = nil
        }
        try expectSame(["nearby", "--location", "116.3,39.99", "--radius", "5000", "--types", "141201", "--limit", "2", "--page", "2"],
                       "/v3/place/around", ["location": "116.3,39.99", "radius": "5000", "types": "141201", "offset": "2", "page": "2"]) {
            $0.maxOffset = 100
            $0.aroundDefaultTypes = nil
        }
    }

    @Test func geocode() throws {
        try expectSame(["geocode", "浙江省杭州市西湖区灵隐街道法云弄16号"], "/v3/geocode/geo", ["address": "浙江省杭州市西湖区灵隐街道法云弄16号"])
        try expectSame(["geocode", "朝阳区", "--city", "北京市"], "/v3/geocode/geo", ["address": "朝阳区", "city": "北京市"])
    }

    @Test func district() throws {
        try expectSame(["district", "杭州市"], "/v3/config/district", ["keywords": "杭州市", "offset": "200"]) { $0.maxOffset = 200 }
        try expectSame(["district", "330106", "--polygon", "--subdistrict", "0"], "/v3/config/district",
                       ["keywords": "330106", "extensions": "all", "subdistrict": "0", "offset": "200"]) { $0.maxOffset = 200 }
        try expectSame(["district"], "/v3/config/district", ["offset": "200"]) { $0.maxOffset = 200 }
    }
}
