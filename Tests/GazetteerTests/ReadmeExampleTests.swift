import Foundation
import Testing
import Gazetteer

/// The README's library example, on the seed, so the example keeps compiling and answering
/// what it says. (A plain `import`: only the public API, as an app sees it.)
@Suite(.tags(.seed), .skippedInFastRuns) struct ReadmeExampleTests {
    @Test func libraryExampleAnswers() throws {
        let gazetteer = try Repository(path: SeedDatabase.path)

        let centre = Coordinate(longitude: 116.397477, latitude: 39.908692)
        let here = try gazetteer.reverseGeocode(centre, radius: 1000, poiLimit: 20)
        #expect(here.formattedAddress.hasPrefix("北京市东城区"))
        let a = here.address
        #expect(a.province?.name == "北京市" && a.district?.name == "东城区")
        // As the README says: no town is likely right at 天安门, so none is named.
        #expect(a.adcode == "110101" && a.town == nil && a.townCode9 == nil)
        #expect(here.pois.map(\.distance) == here.pois.map(\.distance).sorted())

        var around = NearbyOptions()
        around.radius = 3000
        around.types = ["餐饮服务"]
        let food = try gazetteer.nearby(Coordinate(longitude: 120.1551, latitude: 30.2741), options: around).pois
        #expect(!food.isEmpty && food.allSatisfy { $0.poi.typecode?.hasPrefix("05") == true && $0.distance <= 3000 })

        var options = SearchOptions()
        options.city = "杭州"
        let hits = try gazetteer.search("西湖", options: options).hits
        let first = try #require(hits.first?.location)
        #expect(hits.first?.city?.name == "杭州市" || hits.first?.name == "西湖区", "\(String(describing: hits.first))")
        options.location = first
        let ranked = try gazetteer.search("西湖", options: options).hits
        #expect(ranked.first?.distance != nil && ranked.allSatisfy { ($0.location == nil) == ($0.distance == nil) })

        let place = try #require(try gazetteer.geocode("浙江省杭州市西湖区灵隐街道"))
        #expect(place.adcode == "330106" && place.location != nil)

        let districts = try gazetteer.districts("杭州市", subdistrict: 1)
        #expect(districts.first?.region.name == "杭州市" && districts.first?.children.isEmpty == false)

        var answers: [Int: String] = [:]
        gazetteer.reverseGeocode([centre, Coordinate(longitude: 120.1551, latitude: 30.2741)], radius: 0) { index, result in
            answers[index] = (try? result.get())?.formattedAddress ?? "error"
        }
        #expect(answers[0]?.hasPrefix("北京市东城区") == true && answers[1]?.hasPrefix("浙江省杭州市") == true, "\(answers)")
    }

    /// The DocC article shows the README's example: the same Swift blocks, so what this suite
    /// runs is what the documentation says.
    @Test func docCArticleShowsTheReadmeExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        func swiftBlocks(_ path: String) throws -> [String] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            return text.components(separatedBy: "```swift\n").dropFirst()
                .map { $0.components(separatedBy: "```")[0] }
        }
        let readme = try swiftBlocks("README.md")
        let article = try swiftBlocks("Sources/Gazetteer/Gazetteer.docc/UsingTheLibrary.md")
        #expect(article.count == 2)
        #expect(article.allSatisfy(readme.contains))
    }
}
