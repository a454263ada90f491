/// One answer of a keyword search: a region or a POI, with where it is.
public struct SearchHit: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case region(Region)
        case poi(POI)
    }

    /// How the text matched the name; hits are ranked in this order.
    public enum Match: Int, Sendable, Hashable, Comparable, Codable {
        /// The whole name, the short name, or the pinyin (全拼 or initials).
        case exact
        /// The start of the name (or of its pinyin).
        case prefix
        /// Somewhere inside the name.
        case substring

        public static func < (a: Match, b: Match) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind
    public var match: Match
    /// Metres from the search's `location`, when one was given and the hit has a location.
    public var distance: Double?
    /// The regions the hit lies in (for a POI, from its adcode; for a region, its ancestors).
    public var province: Region?
    public var city: Region?
    public var district: Region?

    public init(kind: Kind, match: Match, distance: Double? = nil, province: Region? = nil, city: Region? = nil, district: Region? = nil) {
        self.kind = kind
        self.match = match
        self.distance = distance
        self.province = province
        self.city = city
        self.district = district
    }

    public var name: String {
        switch kind {
        case .region(let r): r.name
        case .poi(let p): p.name
        }
    }

    /// Region centre or POI location, in the caller's system.
    public var location: Coordinate? {
        switch kind {
        case .region(let r): r.center
        case .poi(let p): p.location
        }
    }

    /// `province`, `city`, `district`, `town` or `poi`.
    public var levelName: String {
        switch kind {
        case .region(let r): r.level.name
        case .poi: "poi"
        }
    }
}

/// A page of search answers.
public struct SearchResult: Sendable, Hashable {
    public var hits: [SearchHit]
    /// How many hits there are in all (over every page), up to the search's candidate cap.
    public var count: Int

    public init(hits: [SearchHit], count: Int) {
        self.hits = hits
        self.count = count
    }
}

/// Options of `Repository.search`.
public struct SearchOptions: Sendable {
    /// A city (or province, district) by name or adcode: its hits rank first.
    public var city: String?
    /// With `city`: only hits inside it.
    public var cityLimit = false
    /// Bias towards this point and measure distances from it.
    public var location: Coordinate?
    /// Coordinate system of `location` and of the answers.
    public var system: CoordinateSystem = .gcj02
    /// Category filter (type codes or type words); regions are left out when set.
    public var types: [String] = []
    /// Hits per page, 1 to 200.
    public var limit = 20
    /// 1-based page.
    public var page = 1

    public init() {}
}
