/// An administrative region as answers carry it.
public struct Region: Sendable, Hashable, Codable {
    /// 6-digit adcode for provinces, cities and districts; 12-digit code for towns.
    public var code: String
    public var level: RegionLevel
    /// Full name: 杭州市.
    public var name: String
    /// Name without suffix: 杭州.
    public var shortName: String?
    public var pinyin: String?
    /// Telephone area code, where known.
    public var citycode: String?
    /// Code of the parent region; nil for provinces.
    public var parentCode: String?
    /// Centre in the caller's coordinate system.
    public var center: Coordinate?
    /// True when the centre is an estimate (most town centres).
    public var centerIsApproximate: Bool
    public var boundingBox: BoundingBox?

    public init(code: String, level: RegionLevel, name: String, shortName: String? = nil, pinyin: String? = nil,
                citycode: String? = nil, parentCode: String? = nil, center: Coordinate? = nil,
                centerIsApproximate: Bool = false, boundingBox: BoundingBox? = nil) {
        self.code = code
        self.level = level
        self.name = name
        self.shortName = shortName
        self.pinyin = pinyin
        self.citycode = citycode
        self.parentCode = parentCode
        self.center = center
        self.centerIsApproximate = centerIsApproximate
        self.boundingBox = boundingBox
    }
}
