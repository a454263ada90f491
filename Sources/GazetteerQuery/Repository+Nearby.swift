import GazetteerCore

extension Repository {
    /// Most keyword matches turned into a set for filtering; more than this and each nearby
    /// candidate is checked against the index instead.
    static let keywordSetLimit = 20_000

    /// POIs around a point, nearest first, with exact distances (周边搜索).
    public func nearby(_ location: Coordinate, options: NearbyOptions = NearbyOptions()) throws(GazetteerError) -> NearbyResult {
        guard location.isValid else { throw .invalidArgument(name: "location", reason: location.invalidReason) }
        guard options.radius.isFinite, options.radius > 0, options.radius <= 50_000 else {
            throw .invalidArgument(name: "radius", reason: "must be more than 0 and at most 50000 metres, not \(options.radius)")
        }
        guard (1...100).contains(options.limit) else { throw .invalidArgument(name: "limit", reason: "must be 1 to 100, not \(options.limit)") }
        guard (1...1000).contains(options.page) else { throw .invalidArgument(name: "page", reason: "must be 1 to 1000, not \(options.page)") }
        let p = location.converted(from: options.system, to: .gcj02)
        return try read { db in
            var filter = POIFinder.Filter()
            filter.category = try CategoryFilter(options.types, db: db)
            if let keywords = options.keywords?.trimmingCharacters(in: .whitespacesAndNewlines), !keywords.isEmpty {
                guard let match = SearchTokens.nameQuery(keywords) else { return NearbyResult(pois: [], count: options.countAll ? 0 : nil) }
                let rowids = try db.cachedStatement("SELECT rowid FROM poi_fts WHERE poi_fts MATCH ? LIMIT ?")
                    .rows([.text(match), .integer(Int64(Self.keywordSetLimit + 1))]) { $0.int64(0) }
                if rowids.count <= Self.keywordSetLimit {
                    filter.rowids = Set(rowids)
                } else {
                    let check = try db.cachedStatement("SELECT 1 FROM poi_fts WHERE poi_fts MATCH ? AND rowid = ?")
                    filter.accept = { rowid in try check.first([.text(match), .integer(rowid)]) { _ in true } ?? false }
                }
            }
            let finder = POIFinder(db: db)
            let hits = try finder.nearest(p, radius: options.radius, offset: (options.page - 1) * options.limit,
                                          limit: options.limit, filter: filter)
            let pois = try withRegions(try finder.load(hits.map(\.rowid), system: options.system), hits, db: db, system: options.system)
            let count = options.countAll ? try finder.count(p, radius: options.radius, filter: filter) : nil
            return NearbyResult(pois: pois, count: count)
        }
    }
}
