import ArgumentParser
import Gazetteer

/// `gazetteer district`: a region with its centre, box and children (行政区域查询).
struct District: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Look up regions by name or adcode, with centre, bounding box and children; no argument lists the provinces.",
        discussion: "Examples: gazetteer district 杭州市 --subdistrict 1;  gazetteer district 330106 --polygon --json")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("A name (full or short) or an adcode.", valueName: "name|adcode"))
    var keyword: String?

    @Option(help: ArgumentHelp("Levels of children to list, 0 to 3.", valueName: "n"))
    var subdistrict = 1

    @Flag(help: "Include the boundary (GeoJSON in --json mode; its size in text mode).")
    var polygon = false

    @Flag(help: "Print JSON in AMap's config/district shape.")
    var json = false

    func validate() throws {
        if !(0...3).contains(subdistrict) { throw ValidationError("--subdistrict must be 0 to 3.") }
    }

    func run() throws {
        var options = QueryOptions()
        options.json = json
        try options.answer {
            let repository = try database.openRepository()
            // With no keyword the country is the top and the provinces are its first level.
            let nodes = try repository.districts(keyword, subdistrict: subdistrict, polygon: polygon)
            if json {
                let top: [JSON]
                if keyword == nil {
                    let country: JSON = .object([
                        ("citycode", .string("")), ("adcode", .string("100000")), ("name", .string("中华人民共和国")),
                        ("center", .string("116.3683244,39.915085")), ("level", .string("country")),
                        ("districts", .array(subdistrict > 0 ? nodes.map(Self.json) : [])),
                    ])
                    top = [country]
                } else {
                    top = nodes.map(Self.json)
                }
                return JSON.object([("status", .string("1")), ("info", .string("OK")), ("infocode", .string("10000")),
                                    ("count", .string(String(top.count))), ("districts", .array(top))]).text
            }
            guard !nodes.isEmpty else { return "no region named or coded '\(keyword ?? "")'" }
            if keyword == nil {
                return "中华人民共和国  100000  country\n" + (subdistrict > 0 ? nodes.map { Self.text($0, indent: 1) }.joined(separator: "\n") : "")
            }
            return nodes.map { Self.text($0, indent: 0) }.joined(separator: "\n\n")
        }
    }

    static func json(_ n: DistrictNode) -> JSON {
        let r = n.region
        var pairs: [(String, JSON)] = [
            ("citycode", .string(r.citycode ?? "")), ("adcode", .string(r.code)), ("name", .string(r.name)),
            ("center", .string(r.center.map { AMapShape.location($0) } ?? "")), ("level", .string(r.level.name)),
            ("center_approximate", .bool(r.centerIsApproximate)),
        ]
        if let b = r.boundingBox {
            pairs.append(("bbox", .array([b.minLongitude, b.minLatitude, b.maxLongitude, b.maxLatitude].map { .number($0) })))
        }
        if let g = n.boundaryGeoJSON { pairs.append(("polygon", .raw(g))) }
        pairs.append(("districts", .array(n.children.map(json))))
        return .object(pairs)
    }

    static func text(_ n: DistrictNode, indent: Int) -> String {
        let r = n.region
        let pad = String(repeating: "  ", count: indent)
        var line = "\(pad)\(r.name)  \(r.code)  \(r.level.name)"
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
