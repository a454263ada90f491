import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.seed), .skippedInFastRuns) struct DistrictTests {
    let repo = SeedDatabase.repository

    @Test func regionWithChildren() throws {
        let hz = try repo.districts("杭州市", subdistrict: 1)
        #expect(hz.count == 1)
        let node = hz[0]
        #expect(node.region.code == "330100" && node.region.center != nil && node.region.boundingBox != nil)
        #expect(node.children.contains { $0.region.name == "西湖区" })
        #expect(node.children.allSatisfy { $0.children.isEmpty && $0.region.level == .district })
        let deep = try repo.districts("330106", subdistrict: 1)
        #expect(deep[0].children.contains { $0.region.code == "330106003000" })
    }

    @Test func everyNamesakeAndNoKeyword() throws {
        #expect(Set(try repo.districts("西湖区", subdistrict: 0).map(\.region.code)) == ["330106", "360103"])
        let provinces = try repo.districts(nil, subdistrict: 1)
        #expect(provinces.count >= 34 && provinces.allSatisfy { $0.region.level == .province && $0.children.isEmpty })
        #expect(try repo.districts("不存在区").isEmpty)
        #expect(throws: GazetteerError.self) { _ = try repo.districts("杭州", subdistrict: 4) }
    }

    @Test func polygonAsGeoJSON() throws {
        let node = try repo.districts("110101", subdistrict: 0, polygon: true)[0]
        let json = try #require(node.boundaryGeoJSON)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "MultiPolygon")
        #expect((object?["coordinates"] as? [Any])?.isEmpty == false)
        #expect(try repo.districts("110101", subdistrict: 0)[0].boundaryGeoJSON == nil)
    }
}
