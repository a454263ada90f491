/// Options of `Repository.nearby`.
public struct NearbyOptions: Sendable {
    /// Metres, up to 50,000.
    public var radius = 3000.0
    /// Only POIs whose name contains this text.
    public var keywords: String?
    /// Category filter: AMap type codes or words of the type path.
    public var types: [String] = []
    /// POIs per page, 1 to 100.
    public var limit = 20
    /// 1-based page; page 2 continues page 1 with no repeats or gaps.
    public var page = 1
    /// Coordinate system of the location and of the answers.
    public var system: CoordinateSystem = .gcj02
    /// Also count every POI that matches (for `NearbyResult.count`); costs one more pass
    /// over the circle, so it is off unless asked for.
    public var countAll = false

    public init() {}
}

/// A page of nearby POIs.
public struct NearbyResult: Sendable, Hashable {
    /// This page, nearest first.
    public var pois: [POIDistance]
    /// How many POIs match in all, over every page, when `NearbyOptions.countAll` was set.
    public var count: Int?

    public init(pois: [POIDistance], count: Int? = nil) {
        self.pois = pois
        self.count = count
    }
}
