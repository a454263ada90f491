import Synchronization

/// Regions, their decoded boundaries and town centres, loaded on first use and kept: a
/// reverse geocode then costs an R*Tree look-up and a few point-in-polygon tests, not a
/// decode of thousands of vertices. Shared by all of a repository's threads.
final class RegionCache: Sendable {
    struct Entry: Sendable {
        var code: Int64
        var parent: Int64?
        var level: RegionLevel
        var name: String
        var shortName: String?
        var pinyin: String?
        var citycode: String?
        var center: Coordinate?
        var centerApproximate: Bool
        var boundingBox: BoundingBox?
        var hasBoundary: Bool
    }

    struct TownCentre: Sendable {
        var code: Int64
        var center: Coordinate
    }

    private let entries = Mutex<[Int64: Entry]>([:])
    private let shapes = Mutex<[Int64: MultiPolygon]>([:])
    private let towns = Mutex<[Int64: [TownCentre]]>([:])
    private let grid = Mutex<RegionGrid?>(nil)
    /// The database's `data_generation` (raised by every import) the cached data came from.
    private let stamp = Mutex<String?>(nil)

    /// Forgets everything cached when the database changed since it was cached: another
    /// process or connection may have imported in the meantime. Called at the start of
    /// every query, inside its read transaction.
    func validate(_ db: Connection) throws {
        let current: String
        if case .text(let t) = try db.scalar("SELECT value FROM meta WHERE key = 'data_generation'") { current = t } else { current = "" }
        let changed = stamp.withLock { old -> Bool in
            defer { old = current }
            return old != nil && old != current
        }
        if changed {
            entries.withLock { $0.removeAll() }
            shapes.withLock { $0.removeAll() }
            towns.withLock { $0.removeAll() }
            grid.withLock { $0 = nil }
        }
    }

    /// The regions whose bounding box meets `b`, deepest level first.
    func candidates(_ b: BoundingBox, _ db: Connection) throws -> [(code: Int64, level: Int)] {
        if let g = grid.withLock({ $0 }) { return g.candidates(b) }
        let loaded = try RegionGrid(loading: db)
        grid.withLock { $0 = loaded }
        return loaded.candidates(b)
    }

    static let selectColumns = """
        code, parent, level, name, short_name, pinyin, citycode, lng, lat, center_approx,
        min_lng, min_lat, max_lng, max_lat, boundary IS NOT NULL
        """

    static func entry(from s: Statement, offset: Int32 = 0) -> Entry {
        let o = offset
        var box: BoundingBox?
        if !s.isNull(o + 10) {
            box = BoundingBox(minLongitude: s.double(o + 10), minLatitude: s.double(o + 11),
                              maxLongitude: s.double(o + 12), maxLatitude: s.double(o + 13))
        }
        var center: Coordinate?
        if !s.isNull(o + 7) { center = Coordinate(longitude: s.double(o + 7), latitude: s.double(o + 8)) }
        return Entry(
            code: s.int64(o), parent: s.optionalInt64(o + 1), level: RegionLevel(rawValue: s.int(o + 2)) ?? .town,
            name: s.text(o + 3), shortName: s.optionalText(o + 4), pinyin: s.optionalText(o + 5),
            citycode: s.optionalText(o + 6), center: center, centerApproximate: s.int(o + 9) != 0,
            boundingBox: box, hasBoundary: s.int(o + 14) != 0)
    }

    func entry(_ code: Int64, _ db: Connection) throws -> Entry? {
        if let e = entries.withLock({ $0[code] }) { return e }
        guard let e = try db.prepare("SELECT \(Self.selectColumns) FROM region WHERE code = ?")
            .first([.integer(code)], { Self.entry(from: $0) })
        else { return nil }
        entries.withLock { $0[code] = e }
        return e
    }

    func shape(_ code: Int64, _ db: Connection) throws -> MultiPolygon? {
        if let s = shapes.withLock({ $0[code] }) { return s }
        guard let blob = try db.prepare("SELECT boundary FROM region WHERE code = ?").first([.integer(code)], { $0.optionalBlob(0) }) ?? nil
        else { return nil }
        let shape = try MultiPolygon(encoded: blob)
        shapes.withLock { $0[code] = shape }
        return shape
    }

    /// `e` and the regions above it, province first.
    func lineage(_ e: Entry, _ db: Connection) throws -> [Entry] {
        var chain = [e]
        var next = e.parent
        while let code = next, let p = try entry(code, db) {
            chain.insert(p, at: 0)
            next = p.parent
        }
        return chain
    }

    /// Towns under `parent` that have a centre.
    func townCentres(under parent: Int64, _ db: Connection) throws -> [TownCentre] {
        if let t = towns.withLock({ $0[parent] }) { return t }
        let list = try db.prepare("SELECT code, lng, lat FROM region WHERE parent = ? AND level = 3 AND lng IS NOT NULL")
            .rows([.integer(parent)]) { TownCentre(code: $0.int64(0), center: Coordinate(longitude: $0.double(1), latitude: $0.double(2))) }
        towns.withLock { $0[parent] = list }
        return list
    }

    /// The public form of a cached region, with its centre in the caller's system.
    func region(_ e: Entry, system: CoordinateSystem) -> Region {
        Region(
            code: String(e.code), level: e.level, name: e.name, shortName: e.shortName, pinyin: e.pinyin,
            citycode: e.citycode, parentCode: e.parent.map(String.init),
            center: e.center.map { $0.converted(from: .gcj02, to: system) }, centerIsApproximate: e.centerApproximate,
            boundingBox: e.boundingBox)
    }
}
