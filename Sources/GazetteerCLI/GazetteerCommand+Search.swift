import ArgumentParser
import Gazetteer
import GazetteerAMap

extension GazetteerCommand {
    /// `gazetteer search`: regions and POIs by name (关键字搜索).
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Keyword search over regions and POIs: full or short names, 1- and 2-character words, pinyin or initials.",
            discussion: """
                Ranking: exact name before prefix before substring; then hits in --city, higher admin level, nearer \
                to --location.

                Examples: gazetteer search 灵隐;  gazetteer search xihu;  gazetteer search 西湖 --city 杭州市
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var query: QueryOptions

        @Argument(help: "The text to search for.")
        var text: String

        @Option(help: ArgumentHelp("Among equally good matches, rank hits in this city (name or adcode) first; exact names still come before prefixes, and prefixes before substrings.", valueName: "name|adcode"))
        var city: String?

        @Flag(help: "With --city: only hits inside the city.")
        var citylimit = false

        @Option(help: ArgumentHelp("Bias towards this point and show distances from it: LNG,LAT (a negative longitude as --location=-70.1,40).", valueName: "lng,lat"),
                transform: parseLocation)
        var location: Coordinate?

        @Option(help: ArgumentHelp("Only POIs of these categories: type codes (050000, 141201) or words (餐饮, 高等院校), joined by |.", valueName: "types"))
        var types: String?

        @Option(help: ArgumentHelp("Hits per page (1 to 200).", valueName: "n"))
        var limit = 20

        @Option(help: ArgumentHelp("Page number, from 1.", valueName: "n"))
        var page = 1

        func validate() throws {
            if !(1...200).contains(limit) { throw ValidationError("--limit must be 1 to 200.") }
            if page < 1 { throw ValidationError("--page must be 1 or more.") }
            if citylimit && city == nil { throw ValidationError("--citylimit needs --city.") }
        }

        func run() throws {
            try query.answer {
                if query.json {
                    return try query.amap(try database.openRepository(), "/v3/place/text", [
                        "keywords": text, "city": city, "citylimit": citylimit ? "true" : nil, "location": location.map(amapLocation),
                        "types": types, "offset": String(limit), "page": String(page),
                    ]) { $0.maxOffset = 200 }
                }
                var options = SearchOptions()
                options.city = city
                options.cityLimit = citylimit
                options.location = location
                options.system = query.coordsys
                options.types = types.map { [$0] } ?? []
                options.limit = limit
                options.page = page
                let result = try database.openRepository().search(text, options: options)
                guard !result.hits.isEmpty else {
                    return result.count > 0 ? "page \(page) is past the last one (\(result.count) hit\(result.count == 1 ? "" : "s"))"
                        : "no match for '\(text)'"
                }
                let first = (page - 1) * limit
                var rows = [["#", "name", "level", "code", "in", "distance"]]
                for (i, hit) in result.hits.enumerated() {
                    let code: String
                    switch hit.kind {
                    case .region(let r): code = r.code
                    case .poi(let p): code = p.townCode12 ?? p.adcode ?? ""
                    }
                    let place = [hit.province?.name, hit.city?.name, hit.district?.name].compactMap { $0 }.joined()
                    rows.append([String(first + i + 1), hit.name, hit.levelName, code, place, hit.distance.map(Format.distance) ?? ""])
                }
                var out = Format.columns(rows)
                if result.count > first + result.hits.count {
                    out += "\n… \(result.count) hits in all; --page \(page + 1) for more"
                }
                return out
            }
        }
    }
}
