import Foundation
import GazetteerSQLite

/// Finds the regions a point lies in: the region R*Tree's boxes (held in memory as a
/// `RegionGrid`) give the regions whose bounding box holds the point, an exact
/// point-in-polygon test picks the deepest one, and the parent links give the rest, so
/// province, city and district can never disagree with each other.
package struct RegionLocator {
    package let cache: RegionCache
    package let db: Connection
    /// The region cells, as built when this locator was made (see `RegionCells`). A batch
    /// makes one locator for all its points, so a point reads them without a lock or retain.
    private let cells: RegionCells?
    /// The POI cells, likewise (nil: not loaded, ask the cache).
    package let poiCells: POICells?
    /// What this locator has already asked the shared cache, when it serves one batch on one
    /// thread: each point then takes no lock (every lock taken by both threads of a batch
    /// moves its cache line between the cores).
    private let memo: Memo?

    package final class Memo {
        fileprivate let system: CoordinateSystem
        fileprivate var placed: [Int64: RegionCache.Placed] = [:]
        fileprivate var towns: [Int64: TownSet] = [:]
        fileprivate var townRegions: [Int64: Region?] = [:]
        fileprivate var grid: RegionGrid?
        fileprivate var shapes: [Int64: RegionCache.Shape?] = [:]
        /// The shapes of `grid`'s regions by their index there, once asked (`exactDeepest`).
        fileprivate var gridShapes: [RegionCache.Shape?] = []
        fileprivate var gridShapeKnown: [Bool] = []
        package init(system: CoordinateSystem) { self.system = system }
    }

    /// - Parameter memo: for a batch on one thread, in one read transaction: remembers the
    ///   regions asked for, answering in `memo`'s coordinate system from memory.
    package init(cache: RegionCache, db: Connection, memo: Memo? = nil) {
        self.cache = cache
        self.db = db
        self.cells = cache.regionCells(db)
        self.poiCells = cache.poiCells(db)
        self.memo = memo
    }

    /// False only when no POI's R*Tree box meets `b` (see `RegionCache.mayHavePOIs`).
    package func mayHavePOIs(in b: BoundingBox) -> Bool {
        if let poiCells { return poiCells.mayHold(b) }
        return cache.mayHavePOIs(in: b, db)
    }

    /// The region cells this locator answers from (nil: not built).
    package var regionCells: RegionCells? { cells }

    /// The address parts of a point whose deepest region is `code` (see `RegionCache.placed`).
    package func placed(_ code: Int64, system: CoordinateSystem) throws -> RegionCache.Placed {
        guard let memo, memo.system == system else { return try cache.placed(code, system: system, db) }
        if let p = memo.placed[code] { return p }
        let p = try cache.placed(code, system: system, db)
        memo.placed[code] = p
        return p
    }

    /// The towns `address` may name under `parent`.
    package func towns(under parent: Int64) throws -> TownSet {
        guard let memo else { return try cache.towns(under: parent, db) }
        if let t = memo.towns[parent] { return t }
        let t = try cache.towns(under: parent, db)
        memo.towns[parent] = t
        return t
    }

    /// Town `code` as an address shows it (nil: unknown).
    package func townRegion(_ code: Int64, system: CoordinateSystem) throws -> Region? {
        guard let memo, memo.system == system else { return try cache.townRegion(code, system: system, db) }
        if let r = memo.townRegions[code] { return r }
        let r = try cache.townRegion(code, system: system, db)
        memo.townRegions[code] = r
        return r
    }

    /// How far outside every simplified boundary a point may be and still be placed in the
    /// nearest region: covers slivers between neighbouring simplified boundaries (29 m) but
    /// not the open sea.
    package static let slack = 60.0

    /// The regions whose bounding box meets `b`, deepest level first.
    private func candidates(_ b: BoundingBox) throws -> [(code: Int64, level: Int)] {
        guard let memo else { return try cache.candidates(b, db) }
        if memo.grid == nil { memo.grid = try cache.grid(db) }
        return memo.grid!.candidates(b)
    }

    private func boxedShape(_ code: Int64) throws -> RegionCache.Shape? {
        guard let memo else { return try cache.boxedShape(code, db) }
        if let s = memo.shapes[code] { return s }
        let s = try cache.boxedShape(code, db)
        memo.shapes[code] = s
        return s
    }

    /// The town under `parent` that `TownSet` names for `p`, if any.
    package func nearestTown(under parent: Int64, to p: Coordinate) throws -> RegionCache.Entry? {
        guard let code = try nearestTownCode(under: parent, to: p) else { return nil }
        return try cache.entry(code, db)
    }

    /// The code of the town `nearestTown(under:to:)` finds.
    package func nearestTownCode(under parent: Int64, to p: Coordinate) throws -> Int64? {
        try towns(under: parent).town(at: p)
    }

    /// The address of a GCJ-02 point.
    package func locate(_ p: Coordinate) throws -> (chain: [RegionCache.Entry], townApproximate: Bool) {
        guard let deepest = try deepest(p) else { return ([], false) }
        guard let entry = try cache.entry(deepest, db) else { return ([], false) }
        var chain = try cache.lineage(entry, db)
        var approximate = false
        if let last = chain.last, last.level != .town, last.level >= .city, let town = try nearestTown(under: last.code, to: p) {
            chain.append(town)
            approximate = true
        }
        return (chain, approximate)
    }

    /// The address of a GCJ-02 point, as `locate` finds it, in the caller's system: the parts
    /// that depend only on the deepest region are built once per region and kept (see
    /// `RegionCache.Placed`), so a point costs its point-in-polygon tests and little else.
    package func address(_ p: Coordinate, system: CoordinateSystem) throws -> (address: Address, formatted: String) {
        guard let deepest = try deepest(p) else { return (.empty, "") }
        let placed = try placed(deepest, system: system)
        guard placed.wantsTown, let code = try nearestTownCode(under: deepest, to: p),
              let town = try townRegion(code, system: system)
        else { return (placed.address, placed.formatted) }
        var address = placed.address
        address.town = town
        address.townIsApproximate = true
        return (address, placed.formatted + town.name)
    }

    /// The code of the deepest region holding `p` (or, in a sliver, nearest it): see `locate`.
    /// From the region cells when they are built and `p`'s cell is clear of every boundary.
    package func deepest(_ p: Coordinate) throws -> Int64? {
        if let cells, case .known(let code) = cells.answer(p) { return code }
        return try exactDeepest(p)
    }

    /// The region cells for the regions this locator searches (see `RegionCells`).
    package func buildCells() throws -> RegionCells? {
        let grid = try cache.grid(db)
        try cache.loadShapes(grid.codes, db)
        var shapes: [PolygonIndex] = []
        for code in grid.codes {
            if let shape = try cache.boxedShape(code, db) { shapes.append(shape.index) }
        }
        return try RegionCells.build(bounds: grid.bounds, shapes: shapes, slack: Self.slack) { try exactDeepest($0) }
    }

    /// `deepest` by the candidate boxes and exact tests alone.
    package func exactDeepest(_ p: Coordinate) throws -> Int64? {
        var found: (code: Int64, level: Int)?
        if let memo {
            // A batch's thread: the candidates in place, their shapes by index in the grid.
            if memo.grid == nil { memo.grid = try cache.grid(db) }
            let grid = memo.grid!
            if memo.gridShapes.count != grid.count {
                memo.gridShapes = Array(repeating: nil, count: grid.count)
                memo.gridShapeKnown = Array(repeating: false, count: grid.count)
            }
            try grid.forEachCandidate(at: p) { i, code, level in
                if !memo.gridShapeKnown[i] {
                    memo.gridShapes[i] = try boxedShape(code)
                    memo.gridShapeKnown[i] = true
                }
                guard let shape = memo.gridShapes[i], shape.contains(p) else { return true }
                found = (code, level)
                return false
            }
        } else {
            let point = BoundingBox(minLongitude: p.longitude, minLatitude: p.latitude, maxLongitude: p.longitude, maxLatitude: p.latitude)
            for c in try candidates(point) {
                if let shape = try boxedShape(c.code), shape.contains(p) { found = c; break }
            }
        }
        if (found?.level ?? -1) < RegionLevel.district.rawValue {
            // Above district level only (or nowhere): the point may sit in a sliver between two
            // simplified district boundaries. Take the nearest deeper region within the slack,
            // inside what was found; a city without districts (东莞) finds none and stays.
            var best: (code: Int64, level: Int, distance: Double)?
            for c in try candidates(BoundingBox.around(p, radius: Self.slack)) where c.level > (found?.level ?? -1) {
                if let f = found, !AdminCode(c.code).isWithin(AdminCode(f.code), level: RegionLevel(rawValue: f.level) ?? .town) { continue }
                guard let shape = try boxedShape(c.code) else { continue }
                let d = shape.contains(p) ? 0 : shape.distanceToBoundary(from: p, within: Self.slack)
                if d <= Self.slack, best == nil || (c.level, -d) > (best!.level, -best!.distance) { best = (c.code, c.level, d) }
            }
            if let best { found = (best.code, best.level) }
        }
        return found?.code
    }
}
