import Foundation
import Gazetteer
import GazetteerAMap
import Testing

/// `RegionMap`: the picker's base map as GeoJSON, its parameters, limits and errors, on the seed.
@Suite(.disabled(if: fastTestsOnly, "GAZETTEER_TESTS=fast: needs the seed")) struct RegionMapTests {
    let map = RegionMap(repository: ServerSeed.repository)

    func json(_ answer: RegionMap.Answer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(answer.json.utf8)) as? [String: Any])
    }

    @Test func levelAndDetailFollowTheZoom() {
        #expect((3...5).allSatisfy { RegionMap.level(zoom: $0) == .province })
        #expect((6...8).allSatisfy { RegionMap.level(zoom: $0) == .city })
        #expect((9...18).allSatisfy { RegionMap.level(zoom: $0) == .district })
        #expect(RegionMap.pixelDegrees(zoom: 0) == 360.0 / 256)
        #expect(RegionMap.pixelDegrees(zoom: 10) == RegionMap.pixelDegrees(zoom: 11) * 2)
        #expect(RegionMap.decimals(zoom: 3) == 2)
        #expect(RegionMap.decimals(zoom: 18) == 7)
    }

    @Test func theRegionsInTheBoxAsGeoJSON() throws {
        let answer = map.answer(parameters: ["bbox": "116.38,39.90,116.41,39.92", "zoom": "16"])
        #expect(answer.status == 200 && answer.infocode == "10000")
        let doc = try json(answer)
        #expect(doc["type"] as? String == "FeatureCollection")
        #expect(doc["level"] as? String == "district" && doc["zoom"] as? Int == 16 && doc["complete"] as? Bool == true)
        let features = try #require(doc["features"] as? [[String: Any]])
        let names = features.compactMap { ($0["properties"] as? [String: Any])?["name"] as? String }
        #expect(Set(names) == ["东城区", "西城区"])
        for f in features {
            let p = try #require(f["properties"] as? [String: Any])
            #expect(f["type"] as? String == "Feature" && f["id"] as? String == p["adcode"] as? String)
            #expect(p["level"] as? String == "district" && (p["citycode"] as? String) == "010")
            let label = try #require(p["label"] as? [Double])
            #expect(label.count == 2 && (116.38...116.41).contains(label[0]) && (39.90...39.92).contains(label[1]))
            #expect((p["center"] as? [Double])?.count == 2)
            let g = try #require(f["geometry"] as? [String: Any])
            #expect(g["type"] as? String == "MultiPolygon")
            let rings = try #require(g["coordinates"] as? [[[[Double]]]])
            for ring in rings.flatMap({ $0 }) {
                #expect(ring.count >= 4 && ring.first == ring.last)
                for p in ring { #expect((116.38...116.41).contains(p[0]) && (39.90...39.92).contains(p[1])) }
            }
        }
    }

    @Test func provincesWhenZoomedOutCitiesBetween() throws {
        let china = try json(map.answer(parameters: ["bbox": "73,18,135,54", "zoom": "3"]))
        let provinces = try #require(china["features"] as? [[String: Any]])
        #expect(china["level"] as? String == "province" && provinces.count == 34)
        let east = try json(map.answer(parameters: ["bbox": "115,29,122,33", "zoom": "7"]))
        let names = (east["features"] as? [[String: Any]] ?? []).compactMap { ($0["properties"] as? [String: Any])?["name"] as? String }
        #expect(east["level"] as? String == "city")
        #expect(names.contains("杭州市") && names.contains("上海市") && names.contains("南京市"))
        #expect(!names.contains("浙江省") && !names.contains("西湖区"))
    }

    @Test func everyAnswerIsBounded() throws {
        // The widest box zoom 6 allows over the densest east: still at most maxPoints points.
        let answer = map.answer(parameters: ["bbox": "100,20,122,42", "zoom": "6"])
        #expect(answer.status == 200)
        let doc = try json(answer)
        let features = try #require(doc["features"] as? [[String: Any]])
        let points = features.reduce(0) { total, f in
            let rings = ((f["geometry"] as? [String: Any])?["coordinates"] as? [[[[Double]]]]) ?? []
            return total + rings.flatMap { $0 }.reduce(0) { $0 + $1.count }
        }
        #expect(points <= RegionMap.maxPoints)
        #expect(features.count <= RegionMap.maxRegions)
        #expect(answer.json.utf8.count < 3_000_000)
    }

    static func points(_ doc: [String: Any]) -> Int {
        (doc["features"] as? [[String: Any]] ?? []).reduce(0) { total, f in
            let rings = ((f["geometry"] as? [String: Any])?["coordinates"] as? [[[[Double]]]]) ?? []
            return total + rings.flatMap { $0 }.reduce(0) { $0 + $1.count }
        }
    }

    @Test func pastThePointLimitTheToleranceGrowsThenRegionsGo() throws {
        let parameters = ["bbox": "115,29,122,33", "zoom": "7"]
        let full = try json(map.answer(parameters: parameters))
        let fullPoints = Self.points(full)
        var tight = map
        tight.maxPoints = fullPoints / 3
        let coarser = try json(tight.answer(parameters: parameters))
        #expect(Self.points(coarser) <= fullPoints / 3)
        #expect((coarser["tolerance"] as? Double ?? 0) > (full["tolerance"] as? Double ?? 0))
        #expect((coarser["features"] as? [Any])?.count == (full["features"] as? [Any])?.count)
        #expect(coarser["complete"] as? Bool == true)
        tight.maxPoints = 10
        let cut = try json(tight.answer(parameters: parameters))
        #expect(Self.points(cut) <= 10)
        #expect(cut["complete"] as? Bool == false)
        tight.maxRegions = 3
        tight.maxPoints = RegionMap.maxPoints
        let few = try json(tight.answer(parameters: parameters))
        #expect((few["features"] as? [Any])?.count == 3 && few["complete"] as? Bool == false)
    }

    @Test(arguments: [
        ([:], "20001", "zoom is required"),
        (["zoom": "10"], "20001", "bbox is required"),
        (["zoom": "2", "bbox": "116,39,117,40"], "20000", "zoom must be a whole number from 3 to 18"),
        (["zoom": "19", "bbox": "116,39,117,40"], "20000", "zoom must be"),
        (["zoom": "9.5", "bbox": "116,39,117,40"], "20000", "zoom must be"),
        (["zoom": "10", "bbox": "116,39,117"], "20000", "four numbers"),
        (["zoom": "10", "bbox": "116,39,117,40,1"], "20000", "four numbers"),
        (["zoom": "10", "bbox": "116,39,nan,40"], "20000", "four numbers"),
        (["zoom": "10", "bbox": "116,39,inf,40"], "20000", "four numbers"),
        (["zoom": "10", "bbox": "a,b,c,d"], "20000", "four numbers"),
        (["zoom": "10", "bbox": "117,39,116,40"], "20000", "minlng < maxlng"),
        (["zoom": "10", "bbox": "116,40,117,40"], "20000", "minlat < maxlat"),
        (["zoom": "10", "bbox": "116,39,190,40"], "20000", "out of range"),
        (["zoom": "10", "bbox": "39,116,40,117"], "20000", "out of range"),
        (["zoom": "18", "bbox": "73,18,135,54"], "20000", "too large for zoom 18"),
    ] as [([String: String], String, String)])
    func badParametersAre400WithAReason(_ parameters: [String: String], _ infocode: String, _ detail: String) throws {
        let answer = map.answer(parameters: parameters)
        #expect(answer.status == 400)
        #expect(answer.infocode == infocode)
        let doc = try json(answer)
        #expect(doc["status"] as? String == "0" && doc["infocode"] as? String == infocode)
        #expect((doc["detail"] as? String)?.contains(detail) == true, "\(doc)")
        #expect(Set(doc.keys) == ["status", "info", "infocode", "detail"])
    }
}
