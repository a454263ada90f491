import GazetteerCore
import GazetteerSQLite

/// Nearest-first POI look-ups around a point. The R*Tree gives the points in a box (with
/// their coordinates and category as auxiliary columns, so no table is read), the exact
/// great-circle distance decides and orders. The box starts small and grows only until enough
/// POIs lie within it, so dense city cores do not sort thousands of points for twenty answers.
struct POIFinder {
    let db: Connection
    /// The POIs' boxes in memory, when a batch has loaded them (`POICells.forEachPOI`): read
    /// instead of the R*Tree, with the same rows.
    var boxes: POICells? = nil

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

    /// How far a box coordinate (a 32-bit float) may lie from the stored double: under a
    /// metre in China; the exact coordinates decide whenever it could matter.
    static let boxSlack = 2.0

    /// Candidates in the box around `p` with distances from their box coordinates. Reading
    /// the box, not the auxiliary lng/lat columns, keeps a dense city core cheap: each
    /// auxiliary read is a seek into another table.
    private func approximate(_ p: Coordinate, radius: Double, filter: Filter) throws -> [(rowid: Int64, distance: Double)] {
        let b = BoundingBox.around(p, radius: radius + Self.boxSlack)
        let withType = !filter.category.isEmpty
        if let boxes, !withType {
            var hits: [(rowid: Int64, distance: Double)] = []
            let read = boxes.forEachPOI(meeting: b) { id, lng, lat in
                if let allowed = filter.rowids, !allowed.contains(id) { return }
                let d = p.distance(to: Coordinate(longitude: lng, latitude: lat))
                if d <= radius + Self.boxSlack { hits.append((id, d)) }
            }
            if read { return hits }
        }
        let box = try db.cachedStatement(withType
            ? "SELECT id, min_lng, min_lat, typecode FROM poi_rtree WHERE min_lng <= ?2 AND max_lng >= ?1 AND min_lat <= ?4 AND max_lat >= ?3"
            : "SELECT id, min_lng, min_lat FROM poi_rtree WHERE min_lng <= ?2 AND max_lng >= ?1 AND min_lat <= ?4 AND max_lat >= ?3")
        try box.bind([.real(b.minLongitude), .real(b.maxLongitude), .real(b.minLatitude), .real(b.maxLatitude)])
        defer { box.reset() }
        var hits: [(rowid: Int64, distance: Double)] = []
        while try box.step() {
            let id = box.int64(0)
            if let allowed = filter.rowids, !allowed.contains(id) { continue }
            if withType && !filter.category.matches(box.optionalInt64(3)) { continue }
            let d = p.distance(to: Coordinate(longitude: box.double(1), latitude: box.double(2)))
            if d <= radius + Self.boxSlack { hits.append((id, d)) }
        }
        return hits
    }

    /// Exact distances of these rowids, from the stored coordinates.
    private func exact(_ p: Coordinate, _ rowids: [Int64]) throws -> [(rowid: Int64, distance: Double)] {
        let s = try db.cachedStatement("SELECT lng, lat FROM poi WHERE rowid = ?")
        return try rowids.compactMap { id in
            try s.first([.integer(id)]) { (id, p.distance(to: Coordinate(longitude: $0.double(0), latitude: $0.double(1)))) }
        }
    }

    /// The `offset..<offset+limit` nearest POIs within `radius` metres of GCJ-02 point `p`,
    /// ties broken by rowid so pages never overlap or skip.
    func nearest(_ p: Coordinate, radius: Double, offset: Int, limit: Int, filter: Filter = Filter()) throws -> [(rowid: Int64, distance: Double)] {
        let needed = offset + limit
        guard needed > 0, radius > 0 else { return [] }
        var r = min(radius, 300)
        while true {
            var hits = try approximate(p, radius: r, filter: filter)
            hits.sort { ($0.distance, $0.rowid) < ($1.distance, $1.rowid) }
            if let accept = filter.accept {
                // Checked in distance order, only as far as the answer can reach.
                var kept: [(rowid: Int64, distance: Double)] = []
                for h in hits {
                    if kept.count >= needed && h.distance > kept[needed - 1].distance + 2 * Self.boxSlack { break }
                    if try accept(h.rowid) { kept.append(h) }
                }
                hits = kept
            }
            // Every true top-`needed` POI is within 2 × slack of the `needed`-th box distance.
            if hits.count > needed {
                let bound = hits[needed - 1].distance + 2 * Self.boxSlack
                hits = Array(hits.prefix { $0.distance <= bound })
            }
            var within = try exact(p, hits.map(\.rowid)).filter { $0.distance <= r }
            within.sort { ($0.distance, $0.rowid) < ($1.distance, $1.rowid) }
            if within.count >= needed || r >= radius {
                return Array(within.dropFirst(offset).prefix(limit))
            }
            // Nothing at all yet: straight to the full radius rather than growing step by step.
            r = hits.isEmpty ? radius : min(radius, r * 4)
        }
    }

    /// How many POIs within `radius` pass the filter: one pass over the box, nothing sorted;
    /// only those within the slack of the edge are measured exactly.
    func count(_ p: Coordinate, radius: Double, filter: Filter = Filter()) throws -> Int {
        var n = 0
        var edge: [Int64] = []
        for h in try approximate(p, radius: radius, filter: filter) {
            if let accept = filter.accept, try !accept(h.rowid) { continue }
            if h.distance < radius - Self.boxSlack { n += 1 } else { edge.append(h.rowid) }
        }
        return n + (try exact(p, edge).filter { $0.distance <= radius }.count)
    }

    /// The name of the first of these POIs (in the order given) whose typecode `accept` takes,
    /// reading their rows one at a time, only as far as that one and only its two columns.
    func firstName(_ rowids: [Int64], accepting accept: (String?) -> Bool) throws -> String? {
        let s = try db.cachedStatement("SELECT name, typecode FROM poi WHERE rowid = ?")
        for rowid in rowids {
            if let (name, typecode) = try s.first([.integer(rowid)], { ($0.text(0), $0.optionalText(1)) }), accept(typecode) {
                return name
            }
        }
        return nil
    }

    /// The POIs with these rowids, in the same order, with locations in `system`.
    func load(_ rowids: [Int64], system: CoordinateSystem) throws -> [POI] {
        let s = try db.cachedStatement("SELECT \(POIRow.columns) FROM poi WHERE rowid = ?")
        return try rowids.compactMap { rowid in try s.first([.integer(rowid)]) { POIRow.poi($0, system: system) } }
    }
}
