/// The answer to a geocode (地理编码): the best region or POI for an address text.
public struct Geocode: Sendable, Hashable {
    /// The level matched: 省, 市, 区县, 乡镇 or 兴趣点 (AMap's words).
    public var level: String
    public var province: Region?
    public var city: Region?
    public var district: Region?
    public var town: Region?
    public var poi: POI?
    /// Location of the POI, else the centre of the deepest region, in the caller's system.
    public var location: Coordinate?
    /// True when the location is an approximate centre (most towns).
    public var locationIsApproximate: Bool
    /// The matched parts written out in full: 浙江省杭州市西湖区灵隐街道.
    public var formattedAddress: String
    /// What stayed unmatched after the last known part (street and number): 法云弄16号.
    public var unmatched: String
    /// Former names the text used for today's regions (襄樊市 for 襄阳市), in text order.
    public var formerNames: [String] = []
    /// Other places the text names just as well, when nothing in it decides between them
    /// (西湖区 alone: Hangzhou's and Nanchang's), in code order after this one; AMap's answer
    /// lists them all, so no namesake is picked at random.
    public var namesakes: [Geocode] = []

    /// The adcode of the deepest region at or above district level.
    public var adcode: String? { (district ?? city ?? province)?.code }
    /// The town's 9-digit code (GB/T 10114), when the address names a town.
    public var townCode9: String? { town.flatMap { AdminCode($0.code)?.townCode9 } }
    @available(*, deprecated, renamed: "townCode9", message: "says which of the two town codes it is")
    public var townCode: String? { townCode9 }

    public init(level: String, province: Region? = nil, city: Region? = nil, district: Region? = nil, town: Region? = nil, poi: POI? = nil, location: Coordinate? = nil, locationIsApproximate: Bool, formattedAddress: String, unmatched: String) {
        self.level = level
        self.province = province
        self.city = city
        self.district = district
        self.town = town
        self.poi = poi
        self.location = location
        self.locationIsApproximate = locationIsApproximate
        self.formattedAddress = formattedAddress
        self.unmatched = unmatched
    }
}

/// A region with its children, for district look-ups (行政区域查询).
public struct DistrictNode: Sendable, Hashable {
    public var region: Region
    public var children: [DistrictNode]
    /// The boundary as a GeoJSON geometry object, when asked for and known.
    public var boundaryGeoJSON: String?

    public init(region: Region, children: [DistrictNode], boundaryGeoJSON: String? = nil) {
        self.region = region
        self.children = children
        self.boundaryGeoJSON = boundaryGeoJSON
    }
}
