import ArgumentParser
import Gazetteer
import GazetteerAMap

extension GazetteerCommand {
    /// `gazetteer nearby`: POIs around a point, nearest first (周边搜索).
    struct Nearby: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "nearby",
            abstract: "POIs around a point, nearest first, with distances; filtered by keyword and category.",
            discussion: "Example: gazetteer nearby --location 120.1551,30.2741 --radius 1000 --types 餐饮")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var query: QueryOptions

        @Option(help: ArgumentHelp("The point, longitude first: LNG,LAT (a negative longitude as --location=-70.1,40).", valueName: "lng,lat"),
                transform: parseLocation)
        var location: Coordinate

        @Option(help: ArgumentHelp("Search radius in metres (up to 50000).", valueName: "metres"))
        var radius: Double = 3000

        @Option(help: ArgumentHelp("Only POIs whose name contains this text.", valueName: "text"))
        var keywords: String?

        @Option(help: ArgumentHelp("Only these categories: type codes (050000, 141201) or words (餐饮, 高等院校), joined by |.", valueName: "types"))
        var types: String?

        @Option(help: ArgumentHelp("POIs per page (1 to 100).", valueName: "n"))
        var limit = 20

        @Option(help: ArgumentHelp("Page number, from 1; page 2 continues page 1.", valueName: "n"))
        var page = 1

        func validate() throws {
            if !radius.isFinite || radius <= 0 || radius > 50_000 { throw ValidationError("--radius must be more than 0 and at most 50000 metres.") }
            if !(1...100).contains(limit) { throw ValidationError("--limit must be 1 to 100.") }
            if page < 1 { throw ValidationError("--page must be 1 or more.") }
        }

        func run() throws {
            try query.answer {
                if query.json {
                    // Every POI when neither --keywords nor --types is given, as the text output lists.
                    return try query.amap(try database.openRepository(), "/v3/place/around", [
                        "location": amapLocation(location), "radius": String(radius), "keywords": keywords, "types": types,
                        "offset": String(limit), "page": String(page),
                    ]) {
                        $0.maxOffset = 100
                        $0.aroundDefaultTypes = nil
                    }
                }
                var options = NearbyOptions()
                options.radius = radius
                options.keywords = keywords
                options.types = types.map { [$0] } ?? []
                options.limit = limit
                options.page = page
                options.system = query.coordsys
                options.countAll = true
                let result = try database.openRepository().nearby(location, options: options)
                let hits = result.pois
                let count = result.count ?? hits.count
                guard !hits.isEmpty else {
                    return count > 0 ? "page \(page) is past the last one: \(count) POIs match within \(Format.distance(radius))"
                        : "no POIs within \(Format.distance(radius))"
                }
                var out = Format.columns(hits.map { [Format.distance($0.distance), $0.poi.name, $0.poi.type ?? "", $0.poi.address ?? ""] })
                let shown = (page - 1) * limit + hits.count
                if count > shown { out += "\n… \(count) POIs within \(Format.distance(radius)); --page \(page + 1) for more" }
                return out
            }
        }
    }
}
