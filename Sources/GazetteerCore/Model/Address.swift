/// The administrative place of a point: what a location picker shows and submits.
public struct Address: Sendable, Hashable, Codable {
    /// "中国" inside the data, empty outside it.
    public var country: String
    public var province: Region?
    /// Nil for municipalities and counties directly under a province, as AMap leaves it empty.
    public var city: Region?
    /// Nil where a city has no districts (东莞, 中山 …).
    public var district: Region?
    public var town: Region?
    /// True when the town was taken from the nearest known town centre rather than a
    /// boundary: right most of the time near a centre, a guess near town borders.
    public var townIsApproximate: Bool

    /// The adcode AMap reports: the district's, else the city's, else the province's.
    public var adcode: String? { (district ?? city ?? province)?.code }
    /// The town's 9-digit code (GB/T 10114: county adcode + 3 digits), as forms that ask for a
    /// 乡镇代码 want it; `town?.code` is the 12-digit statistics code AMap calls towncode.
    public var townCode9: String? { town.flatMap { AdminCode($0.code)?.townCode9 } }
    @available(*, deprecated, renamed: "townCode9", message: "says which of the two town codes it is")
    public var townCode: String? { townCode9 }
    /// Telephone area code of the city (or of the province for municipalities), where known.
    public var citycode: String? { city?.citycode ?? district?.citycode ?? province?.citycode }
    /// True when nothing was found: the point is outside the data (sea, another country).
    public var isEmpty: Bool { province == nil }

    /// Province + city + district + town, without doubled parts: "北京市东城区东华门街道".
    public var formatted: String {
        [province, city, district, town].compactMap { $0?.name }.joined()
    }

    public static let empty = Address(country: "", province: nil, city: nil, district: nil, town: nil, townIsApproximate: false)

    public init(country: String, province: Region? = nil, city: Region? = nil, district: Region? = nil, town: Region? = nil, townIsApproximate: Bool) {
        self.country = country
        self.province = province
        self.city = city
        self.district = district
        self.town = town
        self.townIsApproximate = townIsApproximate
    }
}

/// The answer to a reverse geocode.
public struct ReverseGeocode: Sendable, Hashable, Codable {
    /// The point asked about, in the caller's system.
    public var location: Coordinate
    public var address: Address
    /// AMap's formatted_address: the address plus the nearest POI's name, if one is near.
    public var formattedAddress: String
    /// POIs within the radius, nearest first.
    public var pois: [POIDistance]

    public init(location: Coordinate, address: Address, formattedAddress: String, pois: [POIDistance]) {
        self.location = location
        self.address = address
        self.formattedAddress = formattedAddress
        self.pois = pois
    }
}
