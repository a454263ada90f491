import ArgumentParser
import Gazetteer
import GazetteerAMap

extension GazetteerCommand {
    /// `gazetteer geocode`: a Chinese address to a region or POI and its location (地理编码).
    struct Geocode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Geocode a free-text Chinese address: the best region or POI, its location and what stayed unmatched.",
            discussion: "Example: gazetteer geocode 浙江省杭州市西湖区灵隐街道法云弄16号")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var query: QueryOptions

        @Argument(help: "The address.")
        var address: String

        @Option(help: ArgumentHelp("The city the address is in (name or adcode), to resolve ambiguous names.", valueName: "name|adcode"))
        var city: String?

        func run() throws {
            try query.answer {
                if query.json {
                    return try query.amap(try database.openRepository(), "/v3/geocode/geo", ["address": address, "city": city])
                }
                let result = try database.openRepository().geocode(address, city: city, system: query.coordsys)
                guard let g = result else { return "no region or POI found in '\(address)'" }
                var rows: [(String, String)] = [("address", g.formattedAddress), ("level", g.level)]
                for (label, region) in [("province", g.province), ("city", g.city), ("district", g.district), ("town", g.town)] {
                    if let region { rows.append((label, "\(region.name)  \(region.code)")) }
                }
                if let code = g.townCode9 { rows.append(("town code", code + "  (9 digits)")) }
                if let poi = g.poi { rows.append(("POI", "\(poi.name)  \(poi.id)")) }
                if let l = g.location { rows.append(("location", AMapShape.location(l) + (g.locationIsApproximate ? "  (approximate)" : ""))) }
                if !g.unmatched.isEmpty { rows.append(("unmatched", g.unmatched)) }
                return Format.table(rows)
            }
        }
    }
}
