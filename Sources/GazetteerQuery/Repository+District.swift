import GazetteerCore

extension Repository {
    /// Regions by name or adcode with their children to `subdistrict` levels (行政区域查询).
    ///
    /// - Parameters:
    ///   - keyword: an adcode (6 or 12 digits) or a full or short name; every region of that
    ///     name is returned (西湖区 gives two). Nil gives the provinces, as the country's
    ///     first level: their children then go `subdistrict - 1` levels down.
    ///   - subdistrict: levels of children to include, 0 to 3.
    ///   - polygon: include the boundary as GeoJSON (in `system`) for the top regions.
    ///   - system: the coordinate system of the centres and boundaries returned.
    public func districts(
        _ keyword: String?, subdistrict: Int = 1, polygon: Bool = false, system: CoordinateSystem = .gcj02
    ) throws(GazetteerError) -> [DistrictNode] {
        guard (0...3).contains(subdistrict) else {
            throw .invalidArgument(name: "subdistrict", reason: "must be 0 to 3, not \(subdistrict)")
        }
        return try read { db in
            let children = try db.cachedStatement("SELECT code FROM region WHERE parent = ? ORDER BY code")
            func node(_ e: RegionCache.Entry, depth: Int, withPolygon: Bool) throws -> DistrictNode {
                var kids: [DistrictNode] = []
                if depth > 0 {
                    for code in try children.rows([.integer(e.code)], { $0.int64(0) }) {
                        if let c = try regions.entry(code, db) { kids.append(try node(c, depth: depth - 1, withPolygon: false)) }
                    }
                }
                var geometry: String?
                if withPolygon, let shape = try regions.shape(e.code, db) {
                    geometry = system == .gcj02 ? shape.geoJSONGeometry : MultiPolygon(polygons: shape.polygons.map { p in
                        Polygon(rings: p.rings.map { $0.map { $0.converted(from: .gcj02, to: system) } })
                    }).geoJSONGeometry
                }
                return DistrictNode(region: e.region(system: system), children: kids, boundaryGeoJSON: geometry)
            }
            guard let keyword = keyword?.trimmingCharacters(in: .whitespaces), !keyword.isEmpty else {
                let provinces = try db.cachedStatement("SELECT code FROM region WHERE level = 0 ORDER BY code").rows { $0.int64(0) }
                return try provinces.compactMap { try regions.entry($0, db) }.map {
                    try node($0, depth: max(0, subdistrict - 1), withPolygon: polygon)
                }
            }
            var codes: [Int64] = []
            if keyword.allSatisfy(\.isNumber), let n = Int64(keyword) {
                codes = [AdminCode(keyword)?.value ?? n]
            } else {
                codes = try db.cachedStatement("SELECT code FROM region WHERE name = ?1 UNION SELECT code FROM region WHERE short_name = ?1 ORDER BY 1")
                    .rows([.text(keyword)]) { $0.int64(0) }
            }
            // A former code or name (330103, 下城区, 襄樊) finds the region it is part of today.
            if try !codes.contains(where: { try regions.entry($0, db) != nil }) { codes = FormerNames.today(of: keyword) }
            return try codes.compactMap { try regions.entry($0, db) }
                .sorted { ($0.level, $0.code) < ($1.level, $1.code) }
                .map { try node($0, depth: subdistrict, withPolygon: polygon) }
        }
    }
}
