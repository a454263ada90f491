import ArgumentParser
import Gazetteer
import GazetteerAMap

extension GazetteerCommand {
    /// `gazetteer district`: a region with its centre, box and children (行政区域查询).
    struct District: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "district",
            abstract: "Look up regions by name or adcode, with centre, bounding box and children; no argument lists the provinces.",
            discussion: """
                Every region of the name is listed (鼓楼 gives 4 districts and 14 towns), each with the province, \
                city and district it lies in. --json prints AMap's config/district shape, where a town's level is \
                street and its adcode its district's, with its own code in towncode.

                Examples: gazetteer district 杭州市 --subdistrict 1;  gazetteer district 330106 --polygon --json
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var query: QueryOptions

        @Argument(help: ArgumentHelp("A name (full or short) or an adcode (6 digits, or a town's 12); none, 100000 or 中国 is the country.", valueName: "name|adcode"))
        var keyword: String?

        @Option(help: ArgumentHelp("Levels of children to list, 0 to 3.", valueName: "n"))
        var subdistrict = 1

        @Flag(help: "Include the boundary (AMap's polyline text in --json mode, extensions=all; its size in text mode).")
        var polygon = false

        func validate() throws {
            if !(0...3).contains(subdistrict) { throw ValidationError("--subdistrict must be 0 to 3.") }
        }

        /// The country: no keyword, its adcode 100000, or its name.
        var asksForCountry: Bool {
            guard let k = keyword?.trimmingCharacters(in: .whitespaces), !k.isEmpty else { return true }
            return ["100000", "中国", "中华人民共和国"].contains(k)
        }

        func run() throws {
            try query.answer {
                let repository = try database.openRepository()
                if query.json {
                    return try query.amap(repository, "/v3/config/district", [
                        "keywords": keyword, "subdistrict": String(subdistrict), "extensions": polygon ? "all" : nil, "offset": "200",
                    ]) { $0.maxOffset = 200 }
                }
                // The country is the top and the provinces are its first level.
                let country = asksForCountry
                let nodes = try repository.districts(country ? nil : keyword, subdistrict: subdistrict, polygon: polygon, system: query.coordsys)
                if country {
                    return (["中华人民共和国  100000  country"] + (subdistrict > 0 ? nodes.map { Self.text($0, indent: 1) } : []))
                        .joined(separator: "\n")
                }
                guard !nodes.isEmpty else { return "no region named or coded '\(keyword ?? "")'" }
                // Namesakes (鼓楼 names 4 districts and 14 towns) are told apart by where they are.
                var names: [String: Region] = [:]
                func parentPath(_ region: Region) throws -> String {
                    var path: [String] = []
                    var code = region.parentCode
                    while let c = code {
                        if names[c] == nil { names[c] = try repository.districts(c, subdistrict: 0).first?.region }
                        guard let parent = names[c] else { break }
                        path.insert(parent.name, at: 0)
                        code = parent.parentCode
                    }
                    return path.joined()
                }
                return try nodes.map { Self.text($0, indent: 0, in: try parentPath($0.region)) }.joined(separator: "\n\n")
            }
        }

        /// AMap's centre of the country (GCJ-02), in `system`.
        static func countryCentre(_ system: CoordinateSystem) -> String {
            if system == .gcj02 { return "116.3683244,39.915085" }
            return AMapShape.location(Coordinate(longitude: 116.3683244, latitude: 39.915085).converted(from: .gcj02, to: system))
        }

        /// AMap's config/district level words: a town or street is `street`.
        static func levelName(_ level: RegionLevel) -> String {
            level == .town ? "street" : level.name
        }

        /// A region and its children, indented; `parents` (province, city, district names) is
        /// shown after a top region's level.
        static func text(_ n: DistrictNode, indent: Int, in parents: String = "") -> String {
            let r = n.region
            let pad = String(repeating: "  ", count: indent)
            var line = "\(pad)\(r.name)  \(r.code)  \(r.level.name)"
            if !parents.isEmpty { line += "  in \(parents)" }
            if indent == 0 {
                if let c = r.center { line += "\n\(pad)centre  \(AMapShape.location(c))\(r.centerIsApproximate ? " (approximate)" : "")" }
                if let b = r.boundingBox {
                    line += String(format: "\n\(pad)box     %.6f,%.6f – %.6f,%.6f", b.minLongitude, b.minLatitude, b.maxLongitude, b.maxLatitude)
                }
                if let g = n.boundaryGeoJSON { line += "\n\(pad)boundary  GeoJSON, \(g.utf8.count) bytes (use --json to print it)" }
            }
            let kids = n.children.map { text($0, indent: indent + 1) }
            return ([line] + kids).joined(separator: "\n")
        }
    }
}
