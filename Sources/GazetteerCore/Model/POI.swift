/// A point of interest.
public struct POI: Sendable, Hashable, Codable {
    /// The stable id it was imported with.
    public var id: String
    public var name: String
    /// Category path in AMap's style: 科教文化服务;学校;高等院校.
    public var type: String?
    /// 6-digit category code in AMap's style: 141201.
    public var typecode: String?
    public var address: String?
    public var phone: String?
    /// Location in the caller's coordinate system.
    public var location: Coordinate
    /// Adcode of the district (or city) it lies in.
    public var adcode: String?
    /// 12-digit code of the town it lies in (AMap's `towncode`; `AdminCode` gives its 9-digit form).
    public var townCode12: String?
    @available(*, deprecated, renamed: "townCode12", message: "says which of the two town codes it is")
    public var towncode: String? { get { townCode12 } set { townCode12 = newValue } }

    /// Encoded under AMap's name, as before the rename.
    private enum CodingKeys: String, CodingKey {
        case id, name, type, typecode, address, phone, location, adcode
        case townCode12 = "towncode"
    }

    public init(id: String, name: String, type: String? = nil, typecode: String? = nil, address: String? = nil, phone: String? = nil, location: Coordinate, adcode: String? = nil, townCode12: String? = nil) {
        self.id = id
        self.name = name
        self.type = type
        self.typecode = typecode
        self.address = address
        self.phone = phone
        self.location = location
        self.adcode = adcode
        self.townCode12 = townCode12
    }
}

/// A POI with its distance from the point asked about.
public struct POIDistance: Sendable, Hashable, Codable {
    public var poi: POI
    /// Great-circle distance in metres.
    public var distance: Double
    /// The regions the POI lies in, from its adcode.
    public var province: Region?
    public var city: Region?
    public var district: Region?

    public init(poi: POI, distance: Double, province: Region? = nil, city: Region? = nil, district: Region? = nil) {
        self.poi = poi
        self.distance = distance
        self.province = province
        self.city = city
        self.district = district
    }
}
