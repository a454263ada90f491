import GazetteerCore
import GazetteerSQLite

extension Repository {
    /// The regions that tile a map at `level` inside `box`, with boundaries simplified by
    /// `tolerance` (see `MultiPolygon.simplified(tolerance:)`) and clipped to `box`: the base
    /// map of an offline map view.
    ///
    /// The tiling follows the tree, not only the level, so it leaves no holes where the tree
    /// skips a level: at city level a municipality (北京市, whose districts sit directly under
    /// it) is drawn whole and a county-level city directly under its province (仙桃市) is drawn
    /// beside the cities; at district level a city with no districts (东莞市) is drawn whole.
    /// Precisely, walking down from the provinces, a region is drawn when it is at `level` or
    /// deeper, or when nothing below it is at `level`. Towns are never drawn (`level` .town is
    /// taken as .district), nor regions without a stored boundary.
    ///
    /// - Parameters:
    ///   - box: the area in GCJ-02; regions whose bounding box meets it are drawn.
    ///   - limit: most regions returned (those nearest the middle of the box, by their bounding
    ///     boxes); `complete` says whether more met. Either way they come in adcode order.
    public func regionOutlines(
        in box: BoundingBox, level: RegionLevel, tolerance: Double, limit: Int = 1000
    ) throws(GazetteerError) -> RegionOutlines {
        guard !box.isEmpty, box.minLongitude.isFinite, box.maxLongitude.isFinite, box.minLatitude.isFinite, box.maxLatitude.isFinite else {
            throw .invalidArgument(name: "box", reason: "must be a finite, non-empty box")
        }
        guard tolerance.isFinite, tolerance >= 0 else {
            throw .invalidArgument(name: "tolerance", reason: "must be a finite number of degrees, 0 or more")
        }
        let target = min(level, .district).rawValue
        return try read { db in
            let candidates = try db.cachedStatement("""
                SELECT id FROM region_rtree
                WHERE max_lng >= ? AND min_lng <= ? AND max_lat >= ? AND min_lat <= ? AND level <= 2
                ORDER BY id
                """).rows([.real(box.minLongitude), .real(box.maxLongitude), .real(box.minLatitude), .real(box.maxLatitude)]) { $0.int64(0) }
            // Whether a region has a descendant at the target level (at most two steps down:
            // province → city → district).
            let below = try db.cachedStatement("""
                SELECT 1 FROM region WHERE parent = ?1 AND level = ?2
                UNION ALL
                SELECT 1 FROM region c JOIN region d ON d.parent = c.code
                WHERE c.parent = ?1 AND c.level < ?2 AND d.level = ?2
                LIMIT 1
                """)
            var memo: [Int64: Bool] = [:]
            func hasDescendant(_ code: Int64) throws -> Bool {
                if let known = memo[code] { return known }
                let found = try below.first([.integer(code), .integer(Int64(target))]) { _ in true } ?? false
                memo[code] = found
                return found
            }
            // Walking down from the top, whether `e`'s parent was opened (so its children drawn).
            func parentOpened(_ e: RegionCache.Entry) throws -> Bool {
                guard let p = e.parent, let parent = try regions.entry(p, db) else { return true }
                guard parent.level.rawValue < target else { return false }
                return try hasDescendant(parent.code)
            }
            var shown: [RegionCache.Entry] = []
            for code in candidates {
                guard let e = try regions.entry(code, db), e.hasBoundary, e.level != .town else { continue }
                let show: Bool
                if e.level.rawValue == target {
                    show = true
                } else if e.level.rawValue > target {
                    show = try parentOpened(e)
                } else {
                    show = try !hasDescendant(e.code) ? parentOpened(e) : false
                }
                guard show, e.boundingBox.map({ $0.intersects(box) }) ?? true else { continue }
                shown.append(e)
            }
            // Past the limit, the regions nearest the middle of the box stay (a map's user
            // looks there), then back in adcode order.
            let complete = shown.count <= limit
            var drawn = shown
            if !complete {
                let mid = Coordinate(longitude: (box.minLongitude + box.maxLongitude) / 2, latitude: (box.minLatitude + box.maxLatitude) / 2)
                func distance(_ e: RegionCache.Entry) -> Double {
                    guard let b = e.boundingBox else { return .infinity }
                    let dx = max(b.minLongitude - mid.longitude, 0, mid.longitude - b.maxLongitude)
                    let dy = max(b.minLatitude - mid.latitude, 0, mid.latitude - b.maxLatitude)
                    return dx * dx + dy * dy
                }
                drawn = Array(shown.map { ($0, distance($0)) }.sorted { ($0.1, $0.0.code) < ($1.1, $1.0.code) }.prefix(max(0, limit)).map(\.0))
                drawn.sort { $0.code < $1.code }
            }
            var outlines: [RegionOutline] = []
            for e in drawn {
                guard let shape = try regions.simplifiedShape(e.code, tolerance: tolerance, db) else { continue }
                let clipped = shape.clipped(to: box)
                if clipped.polygons.isEmpty { continue }
                outlines.append(RegionOutline(region: e.region(system: .gcj02), shape: clipped))
            }
            return RegionOutlines(outlines: outlines, complete: complete)
        }
    }
}
