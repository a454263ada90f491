import Dispatch
import GazetteerCore
import GazetteerSQLite

/// What one batch thread has learnt about the addresses it placed points in, for reverse
/// geocoding without POIs (`Repository.placeBatch`). Such an answer depends only on the
/// deepest region and the town named, so each (region, town) pair gets a small number, its
/// key, and a writer keeps the finished output per key. A point in a region cell clear of
/// every boundary then costs a few array reads: no dictionary, lock, allocation or string.
///
/// Used by one thread at a time; kept across blocks of a batch while the data stays the same.
package final class ReverseBatchPlaces {
    /// The coordinate system of the points and answers.
    package let system: CoordinateSystem
    /// Changes whenever everything learnt is dropped (the data changed), and keys with it.
    package private(set) var epoch = 0

    private var generation: Int64?
    fileprivate var memo: RegionLocator.Memo
    /// The region cells the label slots below belong to.
    private var hasCells = false
    /// Per region-cell label: the slot of its region (-1: not yet seen).
    private var slotOfLabel: [Int32] = []
    private var slotOfCode: [Int64: Int32] = [:]
    private var noRegionSlot: Int32 = -1

    // Per slot, a deepest region (or none).
    private var placed: [RegionCache.Placed] = []
    private var codes: [Int64] = []
    /// The towns that may be named (nil: none is named at this level).
    private var towns: [TownSet?] = []
    /// The key of the slot's answer without a town; town `i` has key `keyBase + 1 + i`.
    private var keyBase: [Int32] = []
    /// Whether the formatted address is empty (no landmark is then looked for).
    fileprivate var unplaced: [Bool] = []

    // Per key.
    private var resolved: [Bool] = []
    private var addresses: [(address: Address, formatted: String)] = []

    package init(system: CoordinateSystem) {
        self.system = system
        memo = RegionLocator.Memo(system: system)
    }

    /// Drops everything learnt when `db` sees other data than before, and adopts the region
    /// cells once they are built. Called at the start of each transaction.
    fileprivate func begin(_ locator: RegionLocator) {
        let seen = locator.cache.generation(seenBy: locator.db)
        if seen != generation {
            generation = seen
            epoch += 1
            memo = RegionLocator.Memo(system: system)
            hasCells = false
            slotOfLabel = []
            slotOfCode = [:]
            noRegionSlot = -1
            placed = []; codes = []; towns = []; keyBase = []; unplaced = []
            resolved = []; addresses = []
        }
        if !hasCells, let cells = locator.regionCells {
            hasCells = true
            slotOfLabel = [Int32](repeating: -1, count: cells.labelledAnswers.count + 1)
        }
    }

    /// The region cells the slots are kept for (nil: none yet, every point takes the exact test).
    fileprivate func cells(_ locator: RegionLocator) -> RegionCells? {
        hasCells ? locator.regionCells : nil
    }

    /// The key of `p`'s answer (`p` in GCJ-02), as `RegionLocator.address` would place it.
    /// - Parameter cells: the locator's region cells, as `begin` adopted them (passed in, so
    ///   that reading them retains nothing).
    fileprivate func key(_ p: Coordinate, cells: RegionCells?, _ locator: RegionLocator) throws -> (key: Int32, unplaced: Bool) {
        let slot: Int32
        let label = cells?.label(p) ?? 0
        if label > 0, slotOfLabel[label] >= 0 {
            slot = slotOfLabel[label]
        } else if label > 0 {
            slot = try self.slot(cells!.labelledAnswers[label - 1], locator)
            slotOfLabel[label] = slot
        } else {
            slot = try self.slot(try locator.exactDeepest(p), locator)
        }
        let s = Int(slot)
        var key = keyBase[s]
        if let town = towns[s]?.townIndex(at: p) { key += 1 + Int32(town) }
        if !resolved[Int(key)] { try resolve(key, slot: s, locator) }
        return (key, unplaced[s])
    }

    /// The slot of deepest region `code`, made on first sight.
    private func slot(_ code: Int64?, _ locator: RegionLocator) throws -> Int32 {
        if let code, let s = slotOfCode[code] { return s }
        if code == nil, noRegionSlot >= 0 { return noRegionSlot }
        let p = try code.map { try locator.placed($0, system: system) }
            ?? RegionCache.Placed(address: .empty, formatted: "", wantsTown: false)
        let t = try code.flatMap { p.wantsTown ? try locator.towns(under: $0) : nil }
        let s = Int32(placed.count)
        placed.append(p)
        codes.append(code ?? 0)
        towns.append(t)
        unplaced.append(p.formatted.isEmpty)
        keyBase.append(Int32(resolved.count))
        let keys = 1 + (t?.centres.count ?? 0)
        resolved.append(contentsOf: repeatElement(false, count: keys))
        addresses.append(contentsOf: repeatElement((address: Address.empty, formatted: ""), count: keys))
        if let code { slotOfCode[code] = s } else { noRegionSlot = s }
        return s
    }

    /// Fills in the address of `key`, as `RegionLocator.address` builds it.
    private func resolve(_ key: Int32, slot s: Int, _ locator: RegionLocator) throws {
        let p = placed[s]
        var answer = (address: p.address, formatted: p.formatted)
        let town = Int(key - keyBase[s]) - 1
        if town >= 0, let region = try locator.townRegion(towns[s]!.centres[town].code, system: system) {
            answer.address.town = region
            answer.address.townIsApproximate = true
            answer.formatted += region.name
        }
        addresses[Int(key)] = answer
        resolved[Int(key)] = true
    }

    /// The address and formatted address of every point given `key` (in the current epoch).
    package func address(_ key: Int32) -> (address: Address, formatted: String) {
        addresses[Int(key)]
    }

    /// A locator for one transaction on `db`, remembering what this batch thread asked.
    fileprivate func locator(_ cache: RegionCache, _ db: Connection) -> RegionLocator {
        RegionLocator(cache: cache, db: db, memo: memo)
    }
}

/// A point's answer in `Repository.placeBatch`.
package enum BatchPlace {
    /// The answer is the address of this key (`ReverseBatchPlaces.address`) at the point, with no POIs.
    case key(Int32)
    /// Anything else (a landmark may be near, an invalid point, an error): the whole answer.
    case answer(Result<ReverseGeocode, GazetteerError>)
}

extension Repository {
    /// `reverseGeocode(_:system:radius:poiLimit:_:)` for a batch that lists no POIs (radius or
    /// limit 0), with the same answers: most points come back as the key of an address seen
    /// before (see `ReverseBatchPlaces`), the rest (near a POI that may end the formatted
    /// address, invalid, failed) as the whole answer.
    package func placeBatch(
        _ locations: [Coordinate], radius: Double, poiLimit: Int, into places: ReverseBatchPlaces,
        _ body: (Int, BatchPlace) -> Void
    ) {
        precondition(radius == 0 || poiLimit == 0, "placeBatch answers batches without POIs")
        let system = places.system
        var done = 0
        do {
            try read { db in
                let locator = places.locator(regions, db)
                places.begin(locator)
                let cells = places.cells(locator)
                for (i, location) in locations.enumerated() {
                    done = i
                    guard location.isValid else {
                        body(i, .answer(.failure(.invalidArgument(name: "location", reason: location.invalidReason))))
                        continue
                    }
                    let p = location.converted(from: system, to: .gcj02)
                    do {
                        let (key, unplaced) = try places.key(p, cells: cells, locator)
                        if unplaced || !locator.mayHavePOIs(in: BoundingBox.around(p, radius: Self.landmarkReach + POIFinder.boxSlack)) {
                            body(i, .key(key))
                        } else {
                            body(i, .answer(.success(try answer(location, system: system, radius: radius, poiLimit: poiLimit, locator: locator, db: db))))
                        }
                    } catch {
                        body(i, .answer(.failure(mapped(error))))
                    }
                }
                done = locations.count
            }
        } catch {
            // As `reverseGeocode(_:system:radius:poiLimit:_:)`: every point not yet answered gets
            // the transaction's error, except an invalid one.
            for i in done..<locations.count {
                let location = locations[i]
                body(i, .answer(.failure(location.isValid ? mapped(error)
                                         : .invalidArgument(name: "location", reason: location.invalidReason))))
            }
        }
    }

    /// Readies a batch of about `count` points for `placeBatch`: builds the region cells and
    /// loads the POI cells now when that many points make them worth it (see
    /// `RegionCache.noteRegionBatch` and `notePOIBatch`), so that the first block does not
    /// pay the slow path. The two are made side by side, on connections of their own.
    package func prepareBatch(_ count: Int) {
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            _ = try? read { db in
                if task == 0 {
                    regions.notePOIBatch(count, db)
                } else {
                    regions.noteRegionBatch(count, db) { try RegionLocator(cache: regions, db: db).buildCells() }
                }
            }
        }
    }
}
