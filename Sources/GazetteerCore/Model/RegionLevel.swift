/// The four administrative levels of mainland China, top down. Raw values are the depth in
/// the tree and are what the database stores.
public enum RegionLevel: Int, Sendable, Hashable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    case province = 0
    case city = 1
    case district = 2
    case town = 3

    /// The English word used in CSV files, JSON and the CLI.
    public var name: String {
        switch self {
        case .province: "province"
        case .city: "city"
        case .district: "district"
        case .town: "town"
        }
    }

    /// The Chinese word AMap uses for this level in geocoding answers (省, 市, 区县, 乡镇).
    public var chineseName: String {
        switch self {
        case .province: "省"
        case .city: "市"
        case .district: "区县"
        case .town: "乡镇"
        }
    }

    public init?(name: String) {
        guard let level = RegionLevel.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = level
    }

    public var description: String { name }
    public static func < (a: RegionLevel, b: RegionLevel) -> Bool { a.rawValue < b.rawValue }
}
