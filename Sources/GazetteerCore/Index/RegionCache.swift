import Dispatch
import Foundation
import GazetteerSQLite
import GazetteerSupport
import Synchronization

/// Regions, their decoded boundaries and town centres, loaded on first use and kept: a
/// reverse geocode then costs an R*Tree look-up and a few point-in-polygon tests, not a
/// decode of thousands of vertices. Shared by all of a repository's threads.
package final class RegionCache: Sendable {
    /// A region as the cache keeps it: the row of the region table.
    package typealias Entry = RegionRow

    package struct TownCentre: Sendable {
        package var code: Int64
        package var center: Coordinate
    }

    /// Everything cached, with the data generation it was read from, behind one lock so a
    /// query never mixes generations (see `validate`).
    private struct State {
        /// The newest `data_generation` a query has seen: the one the cached data comes from.
        var generation: Int64?
        /// The generation each connection's current read transaction sees.
        var snapshots: [ObjectIdentifier: Int64] = [:]
        var entries: [Int64: Entry] = [:]
        /// Boxed: a reverse geocode tests a few shapes per point, and copying a bare
        /// `MultiPolygon` out of the dictionary retains and releases each of its arrays.
        var shapes: [Int64: Shape] = [:]
        /// Boundaries as polygons, for outlines and maps (see `shape`).
        var polygons: [Int64: MultiPolygon] = [:]
        /// Boundaries simplified for drawing (see `simplifiedShape`), and their points in all.
        var simplified: [SimplifiedKey: MultiPolygon] = [:]
        var simplifiedPoints = 0
        /// The finished address of each deepest region, per coordinate system (see `placed`).
        var placed: [PlacedKey: Placed] = [:]
        /// Towns as public regions, per coordinate system (see `townRegion`).
        var townRegions: [PlacedKey: Region] = [:]
        var towns: [Int64: TownSet] = [:]
        /// Every district's towns with a centre and how many towns it has, read in one scan
        /// for a large batch (see `noteTownBatch`); nil: each district's are queried on first use.
        var townLists: [Int64: (centres: [TownCentre], count: Int)]?
        /// Whether a batch has claimed loading `townLists`.
        var townListsClaimed = false
        var names: Names?
        /// Every region's row, when stored with the names (see `entry`).
        var rows: RegionRows?
        var grid: RegionGrid?
        /// Which grid cells hold POIs, once batches have asked enough to be worth loading it.
        var poiCells: POICells?
        /// Points reverse geocoded in batches (see `notePOIBatch`).
        var batchPoints = 0
        /// The region cells, once batches have asked enough to be worth building them.
        var regionCells: RegionCells?
        /// Points reverse geocoded in batches before the region cells were claimed; -1 once claimed.
        var regionBatchPoints = 0
        /// Every POI's coordinates, once searches ranked by distance have asked enough.
        var poiPoints: POIPoints?
        /// POI rows searches measured from the database (see `notePOIsMeasured`); -1 once claimed.
        var measuredPOIRows = 0
        /// Every POI's name, once batches have geocoded enough addresses (see `noteAddressesGeocoded`).
        var poiNames: POINames?
        /// Addresses geocoded in batches; -1 once the names' load is claimed.
        var geocodedAddresses = 0
        /// What finished geocoders learnt of this generation's regions (see `takeParserMemo`).
        var parserMemos: [any AnyObject & Sendable] = []

        /// Whether a query on this connection may read and fill the cache: only when its
        /// snapshot is of the cached generation. (A connection that never validated, such as
        /// the importer's, owns its cache and always may.)
        func serves(_ db: Connection) -> Bool {
            guard let seen = snapshots[ObjectIdentifier(db)] else { return true }
            return seen == generation
        }
    }

    private let state = ReadMostly(State())

    /// The `data_generation` `db`'s transaction sees: every import that changes data raises it.
    package static func dataGeneration(_ db: Connection) throws -> Int64 {
        switch try db.scalar("SELECT value FROM meta WHERE key = 'data_generation'") {
        case .text(let t): Int64(t) ?? 0
        case .integer(let n): n
        default: 0
        }
    }

    package init() {}

    /// Notes which data generation `db`'s read transaction sees, and forgets everything cached
    /// when that generation is newer than the cache's: another process or connection imported
    /// in the meantime. Called at the start of every query, inside its read transaction.
    ///
    /// A query that began before an import committed still sees the older data; it neither
    /// reads the cache (which may by then hold newer regions) nor fills it (which would hand
    /// its old regions to the queries after the import): it reads the database directly.
    package func validate(_ db: Connection) throws {
        let current = try Self.dataGeneration(db)
        // Freed after the lock: a geocoder's memo holds thousands of regions.
        var dropped: [any AnyObject & Sendable] = []
        defer { dropped.removeAll() }
        state.write { s in
            s.snapshots[ObjectIdentifier(db)] = current
            guard s.generation.map({ current > $0 }) ?? true else { return }
            if s.generation != nil {
                s.entries.removeAll()
                s.shapes.removeAll()
                s.polygons.removeAll()
                s.simplified.removeAll()
                s.simplifiedPoints = 0
                s.placed.removeAll()
                s.townRegions.removeAll()
                s.towns.removeAll()
                s.townLists = nil
                s.townListsClaimed = false
                s.names = nil
                s.rows = nil
                s.grid = nil
                s.poiCells = nil
                s.batchPoints = 0
                s.regionCells = nil
                s.regionBatchPoints = 0
                s.poiPoints = nil
                s.measuredPOIRows = 0
                s.poiNames = nil
                s.geocodedAddresses = 0
                swap(&dropped, &s.parserMemos)
            }
            s.generation = current
        }
    }

    /// The data generation `db`'s read transaction sees (nil: not validated): what a batch
    /// keeps across transactions holds only while this stays the same.
    package func generation(seenBy db: Connection) -> Int64? {
        state.read { $0.pointee.snapshots[ObjectIdentifier(db)] }
    }

    /// The cached value `get` finds, if `db` may use the cache.
    /// `get` reads the state in place: handed the state itself, even borrowing, it was copied
    /// at every look-up, retaining and releasing every table.
    private func cached<T>(_ db: Connection, _ get: (UnsafePointer<State>) -> T?) -> T? {
        state.read { s in s.pointee.serves(db) ? get(s) : nil }
    }

    /// Keeps a value read through `db`, if `db` may fill the cache.
    private func keep(_ db: Connection, _ put: (inout State) -> Void) {
        state.write { s in if s.serves(db) { put(&s) } }
    }

    /// The regions whose bounding box meets `b`, deepest level first.
    package func candidates(_ b: BoundingBox, _ db: Connection) throws -> [(code: Int64, level: Int)] {
        try grid(db).candidates(b)
    }

    /// Notes `count` more points reverse geocoded in a batch, and loads the POI cells once
    /// the batches have made them worth it: loading reads every POI's R*Tree box once (a
    /// fraction of a microsecond each), and saves an R*Tree query of several microseconds on
    /// each point with no POI near. After one point per 16 POIs the load has paid for itself
    /// where most points are far from POIs, and costs little where none is. Lone queries never
    /// load them, so they never pay the load.
    ///
    /// One thread loads while the others go on with the R*Tree (the load is claimed by setting
    /// `batchPoints` to -1), and a load that fails only leaves the cells out: they are a
    /// speed-up, never a reason for a batch to fail.
    package func notePOIBatch(_ count: Int, _ db: Connection) {
        loadOnceWorthIt(count, db, perPOI: 16, uses: \.batchPoints, value: \.poiCells) { try POICells(loading: db) }
    }

    /// Adds `count` to the uses counted at `uses` and, once they reach one per `perPOI` POIs,
    /// loads the value at `value` (if still missing): the load is claimed by setting the
    /// counter to -1, so one thread loads while the others go on without it, and a load that
    /// fails (or finds nothing worth keeping) is never tried again for this data.
    private func loadOnceWorthIt<T>(_ count: Int, _ db: Connection, perPOI: Int64, uses: WritableKeyPath<State, Int>,
                                    value: WritableKeyPath<State, T?>, load: () throws -> T?) {
        guard count > 0, let seen = state.write({ s -> Int? in
            guard s.serves(db), s[keyPath: value] == nil, s[keyPath: uses] >= 0 else { return nil }
            s[keyPath: uses] += count
            return s[keyPath: uses]
        }) else { return }
        let pois: Int64
        switch try? db.scalar("SELECT max(rowid) FROM poi") {
        case .integer(let n)?: pois = n
        default: pois = 0
        }
        guard Int64(seen) * perPOI >= pois else { return }
        let claimed = state.write { s -> Bool in
            guard s.serves(db), s[keyPath: value] == nil, s[keyPath: uses] >= 0 else { return false }
            s[keyPath: uses] = -1
            return true
        }
        guard claimed, let loaded = try? load() else { return }
        keep(db) { $0[keyPath: value] = loaded }
    }

    /// Points a batch needs before the region cells are built for it: building decodes every
    /// boundary (which such a batch does anyway) and labels the cells (tens of milliseconds),
    /// and saves several microseconds on each later point.
    package static let regionCellsAfter = 16_384

    /// Notes `count` more points reverse geocoded in a batch, and builds the region cells with
    /// `build` once the batches have made them worth it (see `RegionCells`). As with the POI
    /// cells, one thread builds while the others go on with the exact test, and a failed
    /// build only leaves the cells out.
    package func noteRegionBatch(_ count: Int, _ db: Connection, build: () throws -> RegionCells?) {
        let claimed = state.write { s -> Bool in
            guard s.serves(db), s.regionCells == nil, s.regionBatchPoints >= 0 else { return false }
            s.regionBatchPoints += count
            guard s.regionBatchPoints >= Self.regionCellsAfter else { return false }
            s.regionBatchPoints = -1
            return true
        }
        // As the importer stored them for this data (`StoredBatchCells`): no boundary decoded.
        guard claimed, let cells = StoredBatchCells.regionCells(db) ?? (try? build()) ?? nil else { return }
        keep(db) { $0.regionCells = cells }
    }

    /// Reads every region's row as the importer stored it with the names (`StoredNameTable.rows`)
    /// for a batch of `count` points once it is as large as `regionCellsAfter`: such a batch
    /// places points in nearly every district and names thousands of towns, each row a query
    /// (`entry`), where the stored rows cost one read of a few megabytes. Without them (not
    /// stored, or stale) every row stays a query.
    package func noteRowsBatch(_ count: Int, _ db: Connection) {
        guard count >= Self.regionCellsAfter, cached(db, { s in s.pointee.rows == nil ? true : nil }) == true,
              let rows = StoredNameTable.rows(db)
        else { return }
        keep(db) { s in if s.rows == nil { s.rows = rows } }
    }

    /// Notes `count` more POI rows a search ranked by distance read its coordinates for from
    /// the database, and loads every POI's (`POIPoints`) once searches have made it worth it:
    /// the load reads each row once in order (a tenth of a microsecond), a measured row costs
    /// a B-tree descent (about a microsecond), so after one measured row per 8 POIs the load
    /// has about paid for itself. Lone searches never load it. As with the POI cells, one
    /// thread loads while the others go on reading rows, and a failed load only leaves it out.
    package func notePOIsMeasured(_ count: Int, _ db: Connection) {
        loadOnceWorthIt(count, db, perPOI: 8, uses: \.measuredPOIRows, value: \.poiPoints) { try POIPoints(loading: db) }
    }

    /// Notes `count` addresses about to be geocoded in a batch, and loads every POI's name
    /// (`POINames`) once batches have geocoded one address per eight POIs: a name costs about
    /// what a tenth of an address's name seeks do.
    package func noteAddressesGeocoded(_ count: Int, _ db: Connection) {
        loadOnceWorthIt(count, db, perPOI: 8, uses: \.geocodedAddresses, value: \.poiNames) { try POINames(loading: db) }
    }

    /// A memo a finished geocoder gave back (`giveBack`), if `db` may use the cache: the next
    /// geocoder starts with the regions it met, as a batch's next block or a service's next
    /// query does. Its type is the geocoder's own; the cache only keeps it for the generation.
    package func takeParserMemo(_ db: Connection) -> (any AnyObject & Sendable)? {
        state.write { s in s.serves(db) ? s.parserMemos.popLast() : nil }
    }

    /// Keeps `memo` for the next geocoder of `db`'s generation, a few at most (one per core, up
    /// to four: each may come to hold every region).
    package func giveBack(parserMemo memo: any AnyObject & Sendable, _ db: Connection) {
        let most = min(4, ProcessInfo.processInfo.activeProcessorCount)
        state.write { s in if s.serves(db), s.parserMemos.count < most { s.parserMemos.append(memo) } }
    }

    /// Every POI's name, if loaded for `db`'s snapshot.
    package func poiNames(_ db: Connection) -> POINames? {
        cached(db, { $0.pointee.poiNames })
    }

    /// Every POI's coordinates, if loaded for `db`'s snapshot.
    package func poiPoints(_ db: Connection) -> POIPoints? {
        cached(db, { $0.pointee.poiPoints })
    }

    /// The region cells, if built for `db`'s snapshot.
    package func regionCells(_ db: Connection) -> RegionCells? {
        cached(db, { $0.pointee.regionCells })
    }

    /// The POI cells, if loaded for `db`'s snapshot.
    package func poiCells(_ db: Connection) -> POICells? {
        cached(db, { $0.pointee.poiCells })
    }

    /// The region grid, loaded if need be.
    package func grid(_ db: Connection) throws -> RegionGrid {
        if let g = cached(db, { $0.pointee.grid }) { return g }
        let loaded = try RegionGrid(loading: db)
        keep(db) { $0.grid = loaded }
        return loaded
    }

    /// False only when no POI's R*Tree box meets `b`, as far as the POI cells know; true
    /// whenever they are not loaded (or not for `db`'s snapshot).
    package func mayHavePOIs(in b: BoundingBox, _ db: Connection) -> Bool {
        cached(db, { $0.pointee.poiCells })?.mayHold(b) ?? true
    }

    /// Every region's row, if stored with the names and these are loaded for `db`'s snapshot.
    package func rows(_ db: Connection) -> RegionRows? {
        cached(db, { $0.pointee.rows })
    }

    package func entry(_ code: Int64, _ db: Connection) throws -> Entry? {
        // Read with the names (for a geocoder or a large batch): every row, none a query (nil
        // inside: no such region). Not kept again: a batch's threads met on the write lock.
        if let stored = cached(db, { s -> Entry?? in s.pointee.rows.map { $0.row(code) } }) { return stored }
        if let e = cached(db, { $0.pointee.entries[code] }) { return e }
        guard let e = try db.cachedStatement("SELECT \(RegionRow.columns) FROM region WHERE code = ?")
            .first([.integer(code)], { RegionRow($0) })
        else { return nil }
        keep(db) { $0.entries[code] = e }
        return e
    }

    /// A boundary as reverse geocoding reads it: tested in place on its stored bytes
    /// (`StoredBoundary`) until it has been tested often enough to be worth its point-in-polygon
    /// index, then through the index (`PolygonIndex(encoded:)`), built once by the thread whose
    /// test reaches that count while the others go on reading in place. A batch tests most
    /// districts a few times each: their indexes cost more to build, and to read cold, than
    /// those tests. The polygons themselves (`shape`) are never made here.
    package final class Shape: Sendable {
        /// The bytes read in place (none: the index was built at once).
        private let stored: StoredBoundary
        /// Tests made so far without the index.
        private let scans = Atomic<Int>(0)
        /// The index once built: the address of a retained `Built`, released with the shape (0: none yet).
        private let built: Atomic<Int>

        private final class Built: Sendable {
            let index: PolygonIndex
            init(_ index: PolygonIndex) { self.index = index }
            /// Reads the index in place: `built.index.contains` would copy it (every array retained and released).
            func contains(_ p: Coordinate) -> Bool { index.contains(longitude: p.longitude, latitude: p.latitude) }
        }

        /// Tests read in place before the index is built. Reading a ring's points in order costs
        /// a few instructions a point; building its index some 150, and reading it cold after
        /// misses the caches: past about this many tests the index is cheaper.
        package static let testsBeforeIndex = 16

        package init(_ index: PolygonIndex) {
            stored = StoredBoundary()
            built = Atomic(Int(bitPattern: Unmanaged.passRetained(Built(index)).toOpaque()))
        }

        /// A boundary to read in place, its index built on the `testsBeforeIndex`th test.
        package init(stored: StoredBoundary) {
            self.stored = stored
            built = Atomic(0)
        }

        deinit {
            if let b = UnsafeRawPointer(bitPattern: built.load(ordering: .acquiring)) { Unmanaged<Built>.fromOpaque(b).release() }
        }

        private var builtIndex: Built? {
            UnsafeRawPointer(bitPattern: built.load(ordering: .acquiring)).map { Unmanaged<Built>.fromOpaque($0).takeUnretainedValue() }
        }

        /// The point-in-polygon index, built now if it was not yet.
        package var index: PolygonIndex { indexNow().index }

        private func indexNow() -> Built {
            if let b = builtIndex { return b }
            // `StoredBoundary(_:)` took only bytes the index takes.
            guard let index = try? stored.index() else { preconditionFailure("a stored boundary the index refuses") }
            let mine = Unmanaged.passRetained(Built(index))
            let (exchanged, theirs) = built.compareExchange(expected: 0, desired: Int(bitPattern: mine.toOpaque()), ordering: .acquiringAndReleasing)
            if exchanged { return mine.takeUnretainedValue() }
            // Another thread's came first (the same index).
            mine.release()
            return Unmanaged<Built>.fromOpaque(UnsafeRawPointer(bitPattern: theirs)!).takeUnretainedValue()
        }

        /// `MultiPolygon.contains`, the same answer read in place or through the index.
        package func contains(_ p: Coordinate) -> Bool {
            if let b = builtIndex { return b.contains(p) }
            // One thread builds (the one whose test is the count's); the others read in place meanwhile.
            if scans.wrappingAdd(1, ordering: .relaxed).oldValue == Self.testsBeforeIndex { return indexNow().contains(p) }
            return stored.contains(longitude: p.longitude, latitude: p.latitude)
        }

        /// `MultiPolygon.distanceToBoundary(from:within:)` (through the index: only points in
        /// slivers between boundaries ask).
        package func distanceToBoundary(from p: Coordinate, within limit: Double) -> Double {
            index.distanceToBoundary(longitude: p.longitude, latitude: p.latitude, within: limit)
        }

        /// `MultiPolygon.area`, from the stored bytes when kept (the same arithmetic as the index's).
        package var area: Double { stored.pointCount > 0 ? stored.area : index.area }
    }

    /// Region `code`'s boundary as polygons (district outlines, maps), decoded on first use and kept.
    package func shape(_ code: Int64, _ db: Connection) throws -> MultiPolygon? {
        if let s = cached(db, { $0.pointee.polygons[code] }) { return s }
        guard let blob = try boundary(code, db) else { return nil }
        let polygon = try MultiPolygon(encoded: blob)
        keep(db) { $0.polygons[code] = polygon }
        return polygon
    }

    private func boundary(_ code: Int64, _ db: Connection) throws -> [UInt8]? {
        try db.cachedStatement("SELECT boundary FROM region WHERE code = ?").first([.integer(code)], { $0.optionalBlob(0) }) ?? nil
    }

    package func boxedShape(_ code: Int64, _ db: Connection) throws -> Shape? {
        if let s = cached(db, { $0.pointee.shapes[code] }) { return s }
        guard let blob = try boundary(code, db) else { return nil }
        // Bytes the index would refuse are refused by it, with its reason.
        let shape = try StoredBoundary(blob).map { Shape(stored: $0) } ?? Shape(PolygonIndex(encoded: blob))
        keep(db) { $0.shapes[code] = shape }
        return shape
    }

    /// Decodes and keeps the boundaries of `codes` not yet cached, on all cores: a batch about
    /// to build the region cells needs every one (2.7 million points, a quarter of a second
    /// on one core). A boundary that cannot be decoded is left for `boxedShape` to report.
    package func loadShapes(_ codes: [Int64], _ db: Connection) throws {
        guard cached(db, { _ in true }) == true else { return }
        let wanted = Set(codes.filter { code in cached(db, { $0.pointee.shapes[code] }) == nil })
        guard !wanted.isEmpty else { return }
        var blobs: [(code: Int64, blob: [UInt8])] = []
        for (code, blob) in try db.makeStatement("SELECT code, boundary FROM region WHERE boundary IS NOT NULL")
            .rows([], { ($0.int64(0), $0.blob(1)) }) where wanted.contains(code) {
            blobs.append((code, blob))
        }
        // Largest first, in as many pieces as there are cores times four, so the cores finish together.
        blobs.sort { $0.blob.count > $1.blob.count }
        let pieces = min(blobs.count, 4 * ProcessInfo.processInfo.activeProcessorCount)
        nonisolated(unsafe) let shapes = UnsafeMutableBufferPointer<Shape?>.allocate(capacity: blobs.count)
        shapes.initialize(repeating: nil)
        defer {
            _ = shapes.deinitialize()
            shapes.deallocate()
        }
        let source = blobs
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            for i in stride(from: piece, to: source.count, by: pieces) {
                shapes[i] = (try? PolygonIndex(encoded: source[i].blob)).map(Shape.init)
            }
        }
        keep(db) { s in
            for (i, b) in source.enumerated() { if let shape = shapes[i] { s.shapes[b.code] = shape } }
        }
    }

    package struct SimplifiedKey: Hashable {
        package var code: Int64
        package var tolerance: Double
    }

    /// Most points kept in simplified shapes: past it the kept ones are dropped and the cache
    /// fills again from what maps ask for now. Each point is 16 bytes and about as much index.
    package static let simplifiedPointBudget = 2_000_000

    /// Region `code`'s boundary simplified by `tolerance` (`MultiPolygon.simplified`): a map
    /// asks for the same few tolerances (one per zoom level) again and again as it pans, and
    /// simplifying a large boundary costs milliseconds.
    package func simplifiedShape(_ code: Int64, tolerance: Double, _ db: Connection) throws -> MultiPolygon? {
        let key = SimplifiedKey(code: code, tolerance: tolerance)
        if let s = cached(db, { $0.pointee.simplified[key] }) { return s }
        guard let full = try shape(code, db) else { return nil }
        let simple = full.simplified(tolerance: tolerance)
        let points = simple.pointCount
        keep(db) { s in
            if s.simplifiedPoints + points > Self.simplifiedPointBudget {
                s.simplified.removeAll()
                s.simplifiedPoints = 0
            }
            s.simplified[key] = simple
            s.simplifiedPoints += points
        }
        return simple
    }

    package struct PlacedKey: Hashable {
        package var code: Int64
        package var system: CoordinateSystem
    }

    /// The address of a point whose deepest region is `code`, without the nearest town that
    /// reverse geocoding may add: the same for every point there, so built once (a few
    /// microseconds of look-ups, string conversions and joins) and kept.
    package final class Placed: Sendable {
        /// Empty when the region is unknown.
        package let address: Address
        package let formatted: String
        /// The deepest region is a city or district, so the nearest town centre may be added.
        package let wantsTown: Bool
        package init(address: Address, formatted: String, wantsTown: Bool) {
            (self.address, self.formatted, self.wantsTown) = (address, formatted, wantsTown)
        }
    }

    /// The address of region `code` and the regions above it, as `region(_:system:)` gives them.
    package func placed(_ code: Int64, system: CoordinateSystem, _ db: Connection) throws -> Placed {
        let key = PlacedKey(code: code, system: system)
        if let p = cached(db, { $0.pointee.placed[key] }) { return p }
        var address = Address.empty
        var wantsTown = false
        if let entry = try entry(code, db) {
            let chain = try lineage(entry, db)
            address.country = "中国"
            for e in chain { address.fill(e.region(system: system)) }
            wantsTown = entry.level != .town && entry.level >= .city
        }
        let p = Placed(address: address, formatted: address.formatted, wantsTown: wantsTown)
        keep(db) { $0.placed[key] = p }
        return p
    }

    /// Town `code` as `region(_:system:)` gives it; nil when it is unknown.
    package func townRegion(_ code: Int64, system: CoordinateSystem, _ db: Connection) throws -> Region? {
        let key = PlacedKey(code: code, system: system)
        if let r = cached(db, { $0.pointee.townRegions[key] }) { return r }
        guard let e = try entry(code, db) else { return nil }
        let r = e.region(system: system)
        keep(db) { $0.townRegions[key] = r }
        return r
    }

    /// `e` and the regions above it, province first.
    package func lineage(_ e: Entry, _ db: Connection) throws -> [Entry] {
        var chain = [e]
        var next = e.parent
        while let code = next, let p = try entry(code, db) {
            chain.append(p)
            next = p.parent
        }
        chain.reverse()
        return chain
    }

    /// Every name a geocoder reads: regions' full and short names, former names and
    /// functional zones (see `NameTable`).
    package typealias Names = NameTable

    /// Every region's names, loaded once: the geocoder looks up each prefix of an address at
    /// each position it reaches, and a hash look-up costs far less than a query.
    package func names(_ db: Connection) throws -> Names {
        if let n = cached(db, { $0.pointee.names }) { return n }
        // As the importer stored it for this data (`StoredNameTable`), with every region's row,
        // or built from the regions.
        if let (n, rows) = StoredNameTable.tables(db) {
            keep(db) { ($0.names, $0.rows) = (n, rows) }
            return n
        }
        let n = try NameTable(loading: db)
        keep(db) { $0.names = n }
        return n
    }

    /// The towns under `parent`: those with a centre, and how far each may name its town.
    package func towns(under parent: Int64, _ db: Connection) throws -> TownSet {
        if let t = cached(db, { $0.pointee.towns[parent] }) { return t }
        let list: [TownCentre], count: Int
        if let lists = cached(db, { $0.pointee.townLists }) {
            (list, count) = lists[parent] ?? ([], 0)
        } else {
            list = try db.cachedStatement("SELECT code, lng, lat FROM region WHERE parent = ? AND level = 3 AND lng IS NOT NULL")
                .rows([.integer(parent)]) { TownCentre(code: $0.int64(0), center: Coordinate(longitude: $0.double(1), latitude: $0.double(2))) }
            count = list.isEmpty ? 0 : try db.cachedStatement("SELECT count(*) FROM region WHERE parent = ? AND level = 3")
                .first([.integer(parent)]) { Int($0.int64(0)) } ?? 0
        }
        var set = TownSet(centres: list, count: 0, area: nil)
        if !list.isEmpty {
            // Only a district with towns of unknown centre reads its area (`TownSet`).
            set = TownSet(centres: list, count: count, area: list.count >= count ? nil : try area(parent, db))
        }
        keep(db) { $0.towns[parent] = set }
        return set
    }

    /// Region `code`'s boundary area: as the stored rows give it when a batch has read them
    /// (`noteRowsBatch`), else from the boundary.
    private func area(_ code: Int64, _ db: Connection) throws -> Double? {
        switch rows(db)?.area(code) {
        case .noBoundary: nil
        case .area(let a): a
        case .unknown, nil: try boxedShape(code, db)?.area
        }
    }

    /// Reads every district's towns in one scan once a batch has `regionCellsAfter` points: such
    /// a batch places points in nearly every district, and two queries per district (a few
    /// thousand rows through the parent index) cost several times the scan. The lists are those
    /// `towns(under:)` queries one district at a time, in the same order (by code), so the
    /// towns named are the same. As with the cells, one thread loads, and a failure only leaves
    /// the per-district queries. The table is read in its own order (by code, its rowid), not
    /// through `region_parent`: each town's row is then the next one on its page instead of a
    /// seek of its own, a quarter of the work, and appending in code order keeps each list in
    /// code order. The columns read come before `boundary`, so no boundary's pages are read.
    /// When a batch has read the stored rows (`noteRowsBatch`), the lists are made from them
    /// instead (`RegionRows.townLists`), without a scan.
    package func noteTownBatch(_ count: Int, _ db: Connection) {
        let claimed = state.write { s -> Bool in
            guard count >= Self.regionCellsAfter, s.serves(db), s.townLists == nil, !s.townListsClaimed else { return false }
            s.townListsClaimed = true
            return true
        }
        guard claimed else { return }
        // From the stored rows when a batch has read them (`noteRowsBatch`): the same lists, no scan.
        if let rows = cached(db, { $0.pointee.rows }) {
            let lists = rows.townLists()
            keep(db) { $0.townLists = lists }
            return
        }
        var lists: [Int64: (centres: [TownCentre], count: Int)] = [:]
        let loaded: Void? = try? {
            let rows = try db.makeStatement("SELECT parent, code, lng, lat, lng IS NOT NULL FROM region NOT INDEXED WHERE level = 3 AND parent IS NOT NULL ORDER BY code")
            defer { rows.reset() }
            while try rows.step() {
                let parent = rows.int64(0)
                lists[parent, default: ([], 0)].count += 1
                if rows.int64(4) != 0 {
                    lists[parent, default: ([], 0)].centres.append(
                        TownCentre(code: rows.int64(1), center: Coordinate(longitude: rows.double(2), latitude: rows.double(3))))
                }
            }
        }()
        guard loaded != nil else { return }
        keep(db) { $0.townLists = lists }
    }
}

extension Address {
    /// Puts `r` at its level.
    package mutating func fill(_ r: Region) {
        switch r.level {
        case .province: province = r
        case .city: city = r
        case .district: district = r
        case .town: town = r
        }
    }
}
