import GazetteerCore

/// The three CSV formats the importer reads (docs/csv-formats.md), told apart by header.
enum CSVFormat: Int, Sendable, Comparable, CaseIterable {
    // Raw values give the import order: parents before what refers to them.
    case regions = 0
    case boundaries = 1
    case pois = 2

    var columns: [String] {
        switch self {
        case .regions:
            ["code", "parent", "level", "name", "short_name", "pinyin", "citycode", "lng", "lat", "center_approx",
             "min_lng", "min_lat", "max_lng", "max_lat"]
        case .boundaries:
            ["code", "geometry"]
        case .pois:
            ["id", "name", "type", "typecode", "address", "phone", "lng", "lat", "adcode", "towncode"]
        }
    }

    var requiredColumns: [String] {
        switch self {
        case .regions: ["code", "level", "name"]
        case .boundaries: ["code", "geometry"]
        case .pois: ["id", "name", "lng", "lat"]
        }
    }

    var name: String {
        switch self {
        case .regions: "regions"
        case .boundaries: "boundaries"
        case .pois: "POIs"
        }
    }

    /// Recognises the format from the (trimmed, lower-cased) header names.
    static func detect(_ header: [String]) -> CSVFormat? {
        let names = Set(header)
        if names.contains("geometry") { return .boundaries }
        if names.contains("level") { return .regions }
        if names.contains("id") && (names.contains("lng") || names.contains("lat")) { return .pois }
        return nil
    }

    static func < (a: CSVFormat, b: CSVFormat) -> Bool { a.rawValue < b.rawValue }
}
