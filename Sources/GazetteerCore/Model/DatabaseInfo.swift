/// What a database holds, for `gazetteer info` and for apps that show their data's vintage.
public struct DatabaseInfo: Sendable, Codable, Equatable {
    /// The database file.
    public var path: String
    /// Number of regions at each level, keyed by level name (`province`, `city`, …).
    public var regionCounts: [String: Int]
    /// Regions that carry a boundary polygon.
    public var boundaryCount: Int
    /// Towns with an approximate centre.
    public var approximateTownCentres: Int
    public var poiCount: Int
    public var schemaVersion: Int
    public var datasetVersion: String
    public var datasetSources: String
    /// Coordinate system of every stored coordinate (always GCJ-02).
    public var coordinateSystem: String
    public var sqliteVersion: String
    public var sizeBytes: Int64

    public init(path: String, regionCounts: [String: Int], boundaryCount: Int, approximateTownCentres: Int, poiCount: Int, schemaVersion: Int, datasetVersion: String, datasetSources: String, coordinateSystem: String, sqliteVersion: String, sizeBytes: Int64) {
        self.path = path
        self.regionCounts = regionCounts
        self.boundaryCount = boundaryCount
        self.approximateTownCentres = approximateTownCentres
        self.poiCount = poiCount
        self.schemaVersion = schemaVersion
        self.datasetVersion = datasetVersion
        self.datasetSources = datasetSources
        self.coordinateSystem = coordinateSystem
        self.sqliteVersion = sqliteVersion
        self.sizeBytes = sizeBytes
    }
}
