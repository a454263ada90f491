import GazetteerCore
import GazetteerSQLite

extension Repository {
    /// Most POIs a reverse geocode lists.
    public static let reverseGeocodePOILimit = 20

    /// The address of a point and the POIs around it (逆地理编码), as a location picker asks
    /// on every map move.
    ///
    /// - Parameters:
    ///   - location: longitude/latitude in `system`.
    ///   - system: the coordinate system of `location`; answers come back in it too.
    ///   - radius: metres within which POIs are listed (0 lists none).
    ///   - poiLimit: most POIs listed, nearest first.
    /// - Returns: an empty address (not an error) for a point outside the data.
    public func reverseGeocode(
        _ location: Coordinate, system: CoordinateSystem = .gcj02, radius: Double = 1000,
        poiLimit: Int = Repository.reverseGeocodePOILimit
    ) throws(GazetteerError) -> ReverseGeocode {
        guard location.isValid else {
            throw .invalidArgument(name: "location", reason: location.invalidReason)
        }
        guard radius.isFinite, (0...50_000).contains(radius) else {
            throw .invalidArgument(name: "radius", reason: "must be 0 to 50000 metres, not \(radius)")
        }
        return try read { db in
            try answer(location, system: system, radius: radius, poiLimit: poiLimit, locator: RegionLocator(cache: regions, db: db), db: db)
        }
    }

    /// Reverse geocodes many points as `reverseGeocode(_:system:radius:poiLimit:)` does one at
    /// a time (same answers, same errors), but on one connection in one read transaction, for
    /// batch jobs: a point whose regions are cached takes a few microseconds, and the
    /// transaction, data-generation check and pool hand-over that a lone query pays would
    /// otherwise cost about as much again. All points see the same snapshot of the database.
    ///
    /// - Parameters:
    ///   - locations: longitude/latitude pairs in `system`.
    ///   - system: the coordinate system of `locations`; answers come back in it too.
    ///   - radius: metres within which POIs are listed (0 lists none).
    ///   - poiLimit: most POIs listed per point, nearest first.
    ///   - body: called with each point's index in `locations` and its answer or error, in
    ///     order, before the next point is looked up.
    public func reverseGeocode(
        _ locations: [Coordinate], system: CoordinateSystem = .gcj02, radius: Double = 1000,
        poiLimit: Int = Repository.reverseGeocodePOILimit,
        _ body: (Int, Result<ReverseGeocode, GazetteerError>) -> Void
    ) {
        guard !locations.isEmpty else { return }
        guard radius.isFinite, (0...50_000).contains(radius) else {
            // As a lone query: the location is checked first.
            for (i, location) in locations.enumerated() {
                body(i, .failure(location.isValid
                    ? .invalidArgument(name: "radius", reason: "must be 0 to 50000 metres, not \(radius)")
                    : .invalidArgument(name: "location", reason: location.invalidReason)))
            }
            return
        }
        var done = 0
        do {
            try read { db in
                regions.notePOIBatch(locations.count, db)
                regions.noteRegionBatch(locations.count, db) { try RegionLocator(cache: regions, db: db).buildCells() }
                let locator = RegionLocator(cache: regions, db: db, memo: RegionLocator.Memo(system: system))
                for (i, location) in locations.enumerated() {
                    guard location.isValid else {
                        body(i, .failure(.invalidArgument(name: "location", reason: location.invalidReason)))
                        done = i + 1
                        continue
                    }
                    let result: Result<ReverseGeocode, GazetteerError>
                    do {
                        result = .success(try answer(location, system: system, radius: radius, poiLimit: poiLimit, locator: locator, db: db))
                    } catch {
                        result = .failure(mapped(error))
                    }
                    body(i, result)
                    done = i + 1
                }
            }
        } catch {
            // The transaction itself failed (to begin, or to check the data's generation):
            // every point not yet answered gets that error, as each lone query would, except
            // an invalid point, which a lone query refuses before it opens anything.
            for i in done..<locations.count {
                let location = locations[i]
                body(i, .failure(location.isValid ? mapped(error)
                                 : .invalidArgument(name: "location", reason: location.invalidReason)))
            }
        }
    }

    /// One reverse geocode inside a read transaction on `db`; `location` is valid.
    func answer(
        _ location: Coordinate, system: CoordinateSystem, radius: Double, poiLimit: Int, locator: RegionLocator, db: Connection
    ) throws -> ReverseGeocode {
        let p = location.converted(from: system, to: .gcj02)
        let placed = try locator.address(p, system: system)
        var formatted = placed.formatted
        var pois: [POIDistance] = []
        if radius > 0 && poiLimit > 0
            && locator.mayHavePOIs(in: BoundingBox.around(p, radius: radius + POIFinder.boxSlack)) {
            let finder = POIFinder(db: db, boxes: locator.poiCells)
            let hits = try finder.nearest(p, radius: radius, offset: 0, limit: poiLimit)
            pois = try withRegions(try finder.load(hits.map(\.rowid), system: system), hits, db: db, system: system)
        }
        if !formatted.isEmpty, let landmark = try landmark(near: p, among: pois, locator: locator, db: db) { formatted += landmark }
        return ReverseGeocode(location: location, address: placed.address, formattedAddress: formatted, pois: pois)
    }

    /// How far the POI named at the end of a formatted address may be.
    static let landmarkReach = 100.0

    /// The name a formatted address ends with, as AMap's does: the nearest POI within 100 m
    /// that people would use as a landmark (not a toilet, parking lot, bike stand or ATM),
    /// whatever radius the caller asked POIs for.
    func landmark(near p: Coordinate, among pois: [POIDistance], locator: RegionLocator, db: Connection) throws -> String? {
        func usable(_ typecode: String?) -> Bool {
            guard let t = typecode else { return true }
            return !(t.hasPrefix("2003") || t == "150000" || t.hasPrefix("1509") || t == "160300")
        }
        if let hit = pois.first(where: { $0.distance <= Self.landmarkReach && usable($0.poi.typecode) }) { return hit.poi.name }
        if let last = pois.last, last.distance >= Self.landmarkReach { return nil } // the list already covers the reach
        // The box POIFinder.nearest asks the R*Tree for first (it starts at 300 m at most).
        if !locator.mayHavePOIs(in: BoundingBox.around(p, radius: Self.landmarkReach + POIFinder.boxSlack)) { return nil }
        let finder = POIFinder(db: db, boxes: locator.poiCells)
        let near = try finder.nearest(p, radius: Self.landmarkReach, offset: 0, limit: 10)
        return try finder.firstName(near.map(\.rowid), accepting: usable)
    }
}
