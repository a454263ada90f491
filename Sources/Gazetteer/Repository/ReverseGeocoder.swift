import Foundation

/// Finds the regions a point lies in: the R*Tree gives the regions whose bounding box holds
/// the point, an exact point-in-polygon test picks the deepest one, and the parent links give
/// the rest, so province, city and district can never disagree with each other.
struct ReverseGeocoder {
    let cache: RegionCache
    let db: Connection

    /// How far outside every simplified boundary a point may be and still be placed in the
    /// nearest region: covers slivers between neighbouring simplified boundaries (29 m) but
    /// not the open sea.
    static let slack = 60.0

    /// The address of a GCJ-02 point.
    func locate(_ p: Coordinate) throws -> (chain: [RegionCache.Entry], townApproximate: Bool) {
        let candidates = try db.prepare("""
            SELECT id, level FROM region_rtree WHERE min_lng <= ?1 AND max_lng >= ?1 AND min_lat <= ?2 AND max_lat >= ?2
            """).rows([.real(p.longitude), .real(p.latitude)]) { ($0.int64(0), $0.int(1)) }
        guard !candidates.isEmpty else { return ([], false) }
        // Deepest level first; a town polygon, where imported, beats a town centre.
        let ordered = candidates.sorted { ($0.1, $0.0) > ($1.1, $1.0) }
        var found: Int64?
        for (code, _) in ordered {
            if let shape = try cache.shape(code, db), shape.contains(p) { found = code; break }
        }
        if found == nil {
            // Not inside any boundary: the nearest one within the slack, at the deepest level.
            var best: (code: Int64, level: Int, distance: Double)?
            for (code, level) in ordered where level >= 1 {
                guard let shape = try cache.shape(code, db) else { continue }
                let d = shape.distanceToBoundary(from: p)
                if d <= Self.slack, best == nil || (level, -d) > (best!.level, -best!.distance) { best = (code, level, d) }
            }
            found = best?.code
        }
        guard let deepest = found else { return ([], false) }
        var chain: [RegionCache.Entry] = []
        var next: Int64? = deepest
        while let code = next, let e = try cache.entry(code, db) {
            chain.insert(e, at: 0)
            next = e.parent
        }
        var approximate = false
        if let last = chain.last, last.level != .town, last.level >= .city {
            let towns = try cache.townCentres(under: last.code, db)
            // Equirectangular distance ranks as the great circle does at town scale, without trigonometry per town.
            let k = cos(p.latitude * .pi / 180)
            func d2(_ c: Coordinate) -> Double {
                let x = (c.longitude - p.longitude) * k, y = c.latitude - p.latitude
                return x * x + y * y
            }
            if let nearest = towns.min(by: { d2($0.center) < d2($1.center) }),
               let town = try cache.entry(nearest.code, db) {
                chain.append(town)
                approximate = true
            }
        }
        return (chain, approximate)
    }
}
