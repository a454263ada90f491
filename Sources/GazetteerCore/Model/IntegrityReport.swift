/// What `Repository.check()` found: each check by name, passed, failed or skipped, with the
/// first few offending codes or ids, so a person knows whether to trust or rebuild a file.
public struct IntegrityReport: Sendable, Codable, Equatable {
    /// The checks, in the order they run. The raw values are stable: scripts match them.
    public enum CheckName: String, Sendable, Codable, CaseIterable {
        /// SQLite's `PRAGMA integrity_check`: pages, b-trees, indexes.
        case sqliteIntegrity = "sqlite_integrity"
        /// FTS5's own `integrity-check` of the region and POI full-text indexes.
        case regionFTS = "region_fts"
        case poiFTS = "poi_fts"
        /// The full-text indexes hold exactly the tokens their rows derive (contentless FTS5
        /// cannot check this itself, so a delete with wrong tokens goes unnoticed otherwise).
        case regionFTSTokens = "region_fts_tokens"
        case poiFTSTokens = "poi_fts_tokens"
        /// `rtreecheck()` of the two R*Trees' internal structure.
        case regionRTree = "region_rtree"
        case poiRTree = "poi_rtree"
        /// `PRAGMA foreign_key_check`.
        case foreignKeys = "foreign_keys"
        /// Every region's parent exists and is of a higher level.
        case regionParents = "region_parents"
        /// Each child's code begins with its parent's significant digits (2, 4, 6).
        case regionCodes = "region_codes"
        /// One region R*Tree entry per region with a bounding box, and none other.
        case regionBoxes = "region_boxes"
        /// One POI R*Tree entry per POI, and none other.
        case poiPoints = "poi_points"
        /// Every stored boundary decodes.
        case boundaries = "boundaries"
        /// POIs' adcode and towncode name existing regions.
        case poiRegions = "poi_regions"
        /// meta has schema_version (this library's) and coordinate_system.
        case meta = "meta"
    }

    public enum Status: String, Sendable, Codable {
        case ok, failed, skipped
    }

    public struct Check: Sendable, Codable, Equatable {
        public var name: CheckName
        public var status: Status
        /// One line for people: what was checked, or what is wrong, or why it was skipped.
        public var summary: String
        /// The first few offending codes, ids or messages (at most `IntegrityReport.detailLimit`).
        public var details: [String]

        public init(name: CheckName, status: Status, summary: String, details: [String] = []) {
            self.name = name
            self.status = status
            self.summary = summary
            self.details = details
        }
    }

    /// How many offenders a check lists; the summary gives the full count.
    public static let detailLimit = 5

    public var path: String
    public var checks: [Check]

    public init(path: String, checks: [Check]) {
        self.path = path
        self.checks = checks
    }

    /// True when no check failed (skipped checks do not count as failures).
    public var passed: Bool { !checks.contains { $0.status == .failed } }

    public var failed: [Check] { checks.filter { $0.status == .failed } }
    public var skipped: [Check] { checks.filter { $0.status == .skipped } }

    public subscript(name: CheckName) -> Check? { checks.first { $0.name == name } }
}
