/// Nearest-first POI look-ups around a point. The R*Tree gives the points in a box (with
/// their coordinates and category as auxiliary columns, so no table is read), the exact
/// great-circle distance decides and orders. The box starts small and grows only until enough
/// POIs lie within it, so dense city cores do not sort thousands of points for twenty answers.
struct POIFinder {
    let db: Connection

    /// What a candidate must satisfy besides distance.
    struct Filter {
        /// rowids allowed (a keyword's matches, when they are few); nil means all.
        var rowids: Set<Int64>?
        var category = CategoryFilter()
        /// A slower check run in distance order only on candidates that passed the rest
        /// (a keyword with too many matches to list).
        var accept: ((Int64) throws -> Bool)?

        var isEmpty: Bool { rowids == nil && category.isEmpty && accept == nil }
    }

    /// The `offset..<offset+limit` nearest POIs within `radius` metres of GCJ-02 point `p`,
    /// ties broken by rowid so pages never overlap or skip.
    func nearest(_ p: Coordinate, radius: Double, offset: Int, limit: Int, filter: Filter = Filter()) throws -> [(rowid: Int64, distance: Double)] {
        let needed = offset + limit
        guard needed > 0, radius > 0 else { return [] }
        let box = try db.prepare("""
            SELECT id, lng, lat, typecode FROM poi_rtree
            WHERE min_lng <= ?2 AND max_lng >= ?1 AND min_lat <= ?4 AND max_lat >= ?3
            """)
        var r = min(radius, 300)
        while true {
            let b = BoundingBox.around(p, radius: r)
            var hits: [(rowid: Int64, distance: Double)] = []
            try box.bind([.real(b.minLongitude), .real(b.maxLongitude), .real(b.minLatitude), .real(b.maxLatitude)])
            while try box.step() {
                let id = box.int64(0)
                if let allowed = filter.rowids, !allowed.contains(id) { continue }
                if !filter.category.isEmpty && !filter.category.matches(box.optionalInt64(3)) { continue }
                let d = p.distance(to: Coordinate(longitude: box.double(1), latitude: box.double(2)))
                if d <= r { hits.append((id, d)) }
            }
            box.reset()
            if hits.count >= needed || r >= radius {
                hits.sort { ($0.distance, $0.rowid) < ($1.distance, $1.rowid) }
                if let accept = filter.accept {
                    var kept: [(rowid: Int64, distance: Double)] = []
                    for h in hits where try accept(h.rowid) {
                        kept.append(h)
                        if kept.count >= needed { break }
                    }
                    hits = kept
                }
                if hits.count >= needed || r >= radius {
                    return Array(hits.dropFirst(offset).prefix(limit))
                }
            }
            r = min(radius, r * 4)
        }
    }

    /// How many POIs within `radius` pass the filter: one pass over the box, nothing sorted.
    func count(_ p: Coordinate, radius: Double, filter: Filter = Filter()) throws -> Int {
        let b = BoundingBox.around(p, radius: radius)
        let box = try db.prepare("""
            SELECT id, lng, lat, typecode FROM poi_rtree
            WHERE min_lng <= ?2 AND max_lng >= ?1 AND min_lat <= ?4 AND max_lat >= ?3
            """)
        try box.bind([.real(b.minLongitude), .real(b.maxLongitude), .real(b.minLatitude), .real(b.maxLatitude)])
        defer { box.reset() }
        var n = 0
        while try box.step() {
            let id = box.int64(0)
            if let allowed = filter.rowids, !allowed.contains(id) { continue }
            if !filter.category.isEmpty && !filter.category.matches(box.optionalInt64(3)) { continue }
            guard p.distance(to: Coordinate(longitude: box.double(1), latitude: box.double(2))) <= radius else { continue }
            if let accept = filter.accept, try !accept(id) { continue }
            n += 1
        }
        return n
    }

    /// The POIs with these rowids, in the same order, with locations in `system`.
    func load(_ rowids: [Int64], system: CoordinateSystem) throws -> [POI] {
        let s = try db.prepare("SELECT id, name, type, typecode, address, phone, lng, lat, adcode, towncode FROM poi WHERE rowid = ?")
        return try rowids.compactMap { rowid in
            try s.first([.integer(rowid)]) { r in
                POI(id: r.text(0), name: r.text(1), type: r.optionalText(2), typecode: r.optionalText(3),
                    address: r.optionalText(4), phone: r.optionalText(5),
                    location: Coordinate(longitude: r.double(6), latitude: r.double(7)).converted(from: .gcj02, to: system),
                    adcode: r.optionalInt64(8).map(String.init), towncode: r.optionalInt64(9).map(String.init))
            }
        }
    }
}
