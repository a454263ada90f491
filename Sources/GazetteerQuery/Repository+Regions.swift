import Foundation
import GazetteerCore
import GazetteerSQLite

/// What several queries share: regions around a hit, and a region named by the caller.
extension Repository {
    /// The regions above `e` (not `e` itself), by level.
    func ancestors(of e: RegionCache.Entry, db: Connection, system: CoordinateSystem = .gcj02) throws -> [RegionLevel: Region] {
        var out: [RegionLevel: Region] = [:]
        for p in try regions.lineage(e, db).dropLast() { out[p.level] = p.region(system: system) }
        return out
    }

    /// The region with this adcode and those above it, by level.
    func regionsOf(adcode: Int64?, db: Connection, system: CoordinateSystem) throws -> [RegionLevel: Region] {
        guard let adcode, let e = try regions.entry(adcode, db) else { return [:] }
        var chain = try ancestors(of: e, db: db, system: system)
        chain[e.level] = e.region(system: system)
        return chain
    }

    /// POIs with their distances and the regions they lie in.
    func withRegions(_ pois: [POI], _ hits: [(rowid: Int64, distance: Double)], db: Connection, system: CoordinateSystem) throws -> [POIDistance] {
        try zip(pois, hits).map { poi, hit in
            let chain = try regionsOf(adcode: poi.adcode.flatMap { Int64($0) }, db: db, system: system)
            return POIDistance(poi: poi, distance: hit.distance, province: chain[.province], city: chain[.city], district: chain[.district])
        }
    }

    /// A region named by adcode (6 or 12 digits) or by name (full or short; a city is
    /// preferred to a province, a province to a district).
    func resolveRegion(_ text: String, db: Connection) throws -> RegionCache.Entry {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let code = AdminCode(t), let e = try regions.entry(code.value, db) {
            return e
        }
        let codes = try db.cachedStatement("SELECT code FROM region WHERE name = ?1 UNION SELECT code FROM region WHERE short_name = ?1")
            .rows([.text(t)]) { $0.int64(0) }
        var entries = try codes.compactMap { try regions.entry($0, db) }
        if entries.isEmpty {
            // A former code or name: the region it is part of today.
            entries = try FormerNames.today(of: t).compactMap { try regions.entry($0, db) }
        }
        let preference: [RegionLevel] = [.city, .province, .district, .town]
        guard let e = entries.min(by: { (preference.firstIndex(of: $0.level)!, $0.code) < (preference.firstIndex(of: $1.level)!, $1.code) }) else {
            throw GazetteerError.invalidArgument(name: "city", reason: "no region is named or coded '\(t)'")
        }
        return e
    }
}

extension Repository {
    /// The regions whose `citycode` (telephone area code, e.g. 0571) is `citycode`, highest
    /// level first, then by adcode: a city comes before its districts. Empty for an unknown code
    /// or one that is not 3 or 4 digits.
    public func regions(citycode: String, system: CoordinateSystem = .gcj02) throws(GazetteerError) -> [Region] {
        let code = citycode.trimmingCharacters(in: .whitespaces)
        guard (3...4).contains(code.count), code.allSatisfy({ $0.isASCII && $0.isNumber }) else { return [] }
        return try read { db in
            let codes = try db.cachedStatement("SELECT code FROM region WHERE citycode = ? ORDER BY level, code")
                .rows([.text(code)]) { $0.int64(0) }
            return try codes.compactMap { try regions.entry($0, db)?.region(system: system) }
        }
    }
}
