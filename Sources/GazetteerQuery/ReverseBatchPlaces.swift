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
    /// Read for every point's line (`RegeoLines`): kept behind a constant pointer, as reading a
    /// class's `var` from another module checks exclusivity at run time (some 120 instructions),
    /// and inlinable, so that reading it is one load rather than a call into this module.
    @inlinable package var epoch: Int { epochStorage.pointee }
    @usableFromInline let epochStorage = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    private var generation: Int64?
    fileprivate var memo: RegionLocator.Memo
    /// The region cells the label slots belong to.
    private var hasCells = false
    private var slots = Slots()
    /// The address of each key resolved but not yet taken (`takeAddress`): a key's line is
    /// written once, so its address (some 700 bytes) is not kept for every key of every slot.
    private var addresses: [Int32: (address: Address, formatted: String, id: AddressID?)] = [:]

    /// What a key's answer is made of, the same on every thread of a batch (a key is one
    /// thread's own number): the data seen, the deepest region and the town named. Batch
    /// threads that share their lines (`RegeoLines`) make each line once by it.
    package struct AddressID: Hashable, Sendable {
        var generation: Int64
        var system: CoordinateSystem
        /// `Int64.min`: none.
        var region: Int64
        /// `Int64.min`: none.
        var town: Int64
    }

    /// What a point reads, in one struct so that a transaction's points borrow it once
    /// (`withSlots`): each read of a class's array would check exclusivity and retain.
    fileprivate struct Slots {
        /// Per region-cell label: the slot of its region (-1: not yet seen).
        var slotOfLabel: [Int32] = []
        var slotOfCode: [Int64: Int32] = [:]
        var noRegionSlot: Int32 = -1
        // Per slot, a deepest region (or none).
        var placed: [RegionCache.Placed] = []
        /// The towns that may be named, every slot's centres in one flat table read at every
        /// point (`TownSet.townIndex(at:centres:reach:complete:)`; reading a `TownSet` out of an
        /// array retained and released its centres), and per slot where its own are.
        var townCentres: [RegionCache.TownCentre] = []
        var towns: [Towns] = []

        /// A slot's towns in `townCentres` (plain values, read without a retain).
        struct Towns {
            var start: Int32
            /// -1: none is named at this level.
            var count: Int32
            var reach: Double
            var complete: Bool
        }
        /// The key of the slot's answer without a town; town `i` has key `keyBase + 1 + i`.
        var keyBase: [Int32] = []
        /// Whether the formatted address is empty (no landmark is then looked for).
        var unplaced: [Bool] = []
        /// Per key: its address is known.
        var resolved: [Bool] = []
        /// Per slot, its deepest region's code (`Int64.min`: none).
        var codes: [Int64] = []

        /// The key of `p`'s answer (`p` in GCJ-02), as `RegionLocator.address` would place it,
        /// and the key's address when it is new.
        /// `label` is `p`'s region cell label (`RegionCells.label`, 0 without cells).
        mutating func key(_ p: Coordinate, label: Int, cells: RegionCells?, _ locator: RegionLocator, _ system: CoordinateSystem) throws
            -> (key: Int32, unplaced: Bool, new: NewAddress?) {
            let slot: Int32
            if label > 0, slotOfLabel[label] >= 0 {
                slot = slotOfLabel[label]
            } else if label > 0 {
                slot = try self.slot(cells!.labelledAnswers[label - 1], locator, system)
                slotOfLabel[label] = slot
            } else {
                slot = try self.slot(try locator.exactDeepest(p), locator, system)
            }
            let s = Int(slot)
            var key = keyBase[s]
            let t = towns[s]
            if t.count >= 0, let town = townCentres.withUnsafeBufferPointer({ centres in
                TownSet.townIndex(at: p, centres: UnsafeBufferPointer(rebasing: centres[Int(t.start)..<Int(t.start + t.count)]),
                                  reach: t.reach, complete: t.complete)
            }) {
                key += 1 + Int32(town)
            }
            guard !resolved[Int(key)] else { return (key, unplaced[s], nil) }
            // As `RegionLocator.address` builds it.
            let answer = NewAddress(address: placed[s].address, formatted: placed[s].formatted, region: codes[s])
            let town = Int(key - keyBase[s]) - 1
            if town >= 0 {
                answer.town = townCentres[Int(t.start) + town].code
                if let region = try locator.townRegion(answer.town, system: system) {
                    answer.address.town = region
                    answer.address.townIsApproximate = true
                    answer.formatted += region.name
                }
            }
            resolved[Int(key)] = true
            return (key, unplaced[s], answer)
        }

        /// The slot of deepest region `code`, made on first sight.
        private mutating func slot(_ code: Int64?, _ locator: RegionLocator, _ system: CoordinateSystem) throws -> Int32 {
            if let code, let s = slotOfCode[code] { return s }
            if code == nil, noRegionSlot >= 0 { return noRegionSlot }
            let p = try code.map { try locator.placed($0, system: system) }
                ?? RegionCache.Placed(address: .empty, formatted: "", wantsTown: false)
            let t = try code.flatMap { p.wantsTown ? try locator.towns(under: $0) : nil }
            let s = Int32(placed.count)
            placed.append(p)
            towns.append(Towns(start: Int32(townCentres.count), count: t.map { Int32($0.centres.count) } ?? -1,
                               reach: t?.reach ?? 0, complete: t?.complete ?? false))
            townCentres.append(contentsOf: t?.centres ?? [])
            unplaced.append(p.formatted.isEmpty)
            keyBase.append(Int32(resolved.count))
            codes.append(code ?? .min)
            resolved.append(contentsOf: repeatElement(false, count: 1 + (t?.centres.count ?? 0)))
            if let code { slotOfCode[code] = s } else { noRegionSlot = s }
            return s
        }
    }

    package init(system: CoordinateSystem) {
        self.system = system
        epochStorage.initialize(to: 0)
        memo = RegionLocator.Memo(system: system)
    }

    deinit {
        epochStorage.deallocate()
    }

    /// Drops everything learnt when `db` sees other data than before, and adopts the region
    /// cells once they are built. Called at the start of each transaction.
    fileprivate func begin(_ locator: RegionLocator) {
        let seen = locator.cache.generation(seenBy: locator.db)
        if seen != generation {
            generation = seen
            epochStorage.pointee += 1
            memo = RegionLocator.Memo(system: system)
            hasCells = false
            slots = Slots()
            addresses = [:]
        }
        if !hasCells, let cells = locator.regionCells {
            hasCells = true
            slots.slotOfLabel = [Int32](repeating: -1, count: cells.labelledAnswers.count + 1)
        }
    }

    /// The region cells the slots are kept for (nil: none yet, every point takes the exact test).
    fileprivate func cells(_ locator: RegionLocator) -> RegionCells? {
        hasCells ? locator.regionCells : nil
    }

    fileprivate func withSlots<T>(_ body: (inout Slots) throws -> T) rethrows -> T {
        try body(&slots)
    }

    /// Per point of a transaction: the point in GCJ-02, its region cell label (0 without
    /// cells), and whether a POI may be within a landmark's reach (`RegionLocator.mayHavePOIs`:
    /// 2 yes, 1 no, 0 not looked up, as for a point whose cell is known to have no address).
    fileprivate struct LookUps {
        var points: [Coordinate]
        var labels: [Int32]
        var poisNear: [UInt8]
    }

    /// The cell look-ups of `locations`, in two loops of independent reads (see `placeBatch`).
    fileprivate func lookUps(_ locations: [Coordinate], system: CoordinateSystem, cells: RegionCells?,
                             slots: borrowing Slots, locator: RegionLocator) -> LookUps {
        let n = locations.count
        var look = LookUps(points: [Coordinate](repeating: Coordinate(longitude: 0, latitude: 0), count: n),
                           labels: [Int32](repeating: 0, count: n), poisNear: [UInt8](repeating: 0, count: n))
        look.points.withUnsafeMutableBufferPointer { points in
            look.labels.withUnsafeMutableBufferPointer { labels in
                for i in 0..<n where locations[i].isValid {
                    let p = locations[i].converted(from: system, to: .gcj02)
                    points[i] = p
                    if let cells { labels[i] = Int32(truncatingIfNeeded: cells.label(p)) }
                }
            }
        }
        guard let poiCells = locator.poiCells else { return look }
        let reach = Repository.landmarkReach + POIFinder.boxSlack
        look.poisNear.withUnsafeMutableBufferPointer { near in
            for i in 0..<n where locations[i].isValid {
                // A cell whose address is known to be empty never asks.
                let label = Int(look.labels[i])
                if label > 0, slots.slotOfLabel.count > label {
                    let slot = slots.slotOfLabel[label]
                    if slot >= 0, slots.unplaced[Int(slot)] { continue }
                }
                near[i] = poiCells.mayHold(near: look.points[i], metres: reach) ? 2 : 1
            }
        }
        return look
    }

    /// A new key's address, made for deepest region `region` with `town`'s centre named. A
    /// class: returned by value, its few hundred bytes were copied for every point, new or not.
    fileprivate final class NewAddress {
        var address: Address
        var formatted: String
        let region: Int64
        /// `Int64.min`: none.
        var town = Int64.min
        init(address: Address, formatted: String, region: Int64) {
            (self.address, self.formatted, self.region) = (address, formatted, region)
        }
    }

    /// Keeps the address of a new key.
    fileprivate func keep(_ key: Int32, _ new: NewAddress) {
        // Without a generation seen (a connection that never validated) no other thread is known to see the same data.
        let id = generation.map { AddressID(generation: $0, system: system, region: new.region, town: new.town) }
        addresses[key] = (new.address, new.formatted, id)
    }

    /// The address and formatted address of every point given `key` (in the current epoch),
    /// handed over once: the caller keeps what it makes of it (`RegeoLines`), and `id` says
    /// which other threads' keys have the same (nil: none is known to).
    package func takeAddress(_ key: Int32) -> (address: Address, formatted: String, id: AddressID?) {
        guard let a = addresses.removeValue(forKey: key) else { preconditionFailure("key \(key) taken twice or never resolved") }
        return a
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
    /// Boxed: an answer is hundreds of bytes, and unboxed every point's `.key` was copied at that size.
    indirect case answer(Result<ReverseGeocode, GazetteerError>)
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
                // The slots are borrowed once for all the points (see `Slots`).
                places.withSlots { slots in
                    // First every point's cell look-ups, then the answers: each look-up is likely a
                    // cache miss in tables of megabytes, and a loop of look-ups alone lets the
                    // processor wait for several at once, where one point at a time waited for each.
                    let look = places.lookUps(locations, system: system, cells: cells, slots: slots, locator: locator)
                    for (i, location) in locations.enumerated() {
                        done = i
                        guard location.isValid else {
                            body(i, .answer(.failure(.invalidArgument(name: "location", reason: location.invalidReason))))
                            continue
                        }
                        let p = look.points[i]
                        do {
                            let (key, unplaced, new) = try slots.key(p, label: Int(look.labels[i]), cells: cells, locator, system)
                            if let new { places.keep(key, new) }
                            // Asked only of a point with an address: half of a batch over land and sea has none.
                            if unplaced || !(look.poisNear[i] == 0
                                ? locator.mayHavePOIs(in: BoundingBox.around(p, radius: Self.landmarkReach + POIFinder.boxSlack))
                                : look.poisNear[i] == 2) {
                                body(i, .key(key))
                            } else {
                                body(i, .answer(.success(try answer(location, system: system, radius: radius, poiLimit: poiLimit, locator: locator, db: db))))
                            }
                        } catch {
                            body(i, .answer(.failure(mapped(error))))
                        }
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

    /// Readies a batch of about `count` points for `placeBatch`: reads (or builds) the region
    /// cells and builds the POI cells now when that many points make them worth it (see
    /// `RegionCache.noteRegionBatch` and `notePOIBatch`), so that the first block does not
    /// pay the slow path. Three pieces, each on a connection of its own, taken by whichever
    /// core is free: the POI cells; the region cells as the importer stored them (or, with none
    /// current, built from the boundaries decoded on all cores, `RegionCache.loadShapes`), then
    /// every region's row as stored (`RegionCache.noteRowsBatch`) and the towns (from those
    /// rows, else a scan); the region boxes (`RegionCache.grid`, which the first point in a
    /// border cell would otherwise load inside the first block). The POI cells come first and
    /// alone: at a million POIs they are the longest piece (some 70 ms), and behind the stored
    /// region cells they started 30 ms later while the other core had little left to do.
    package func prepareBatch(_ count: Int) {
        DispatchQueue.concurrentPerform(iterations: 3) { task in
            _ = try? read { db in
                switch task {
                case 0:
                    regions.notePOIBatch(count, db)
                case 1:
                    regions.noteRegionBatch(count, db) { try RegionLocator(cache: regions, db: db).buildCells() }
                    regions.noteRowsBatch(count, db)
                    regions.noteTownBatch(count, db)
                default:
                    _ = try regions.grid(db)
                }
            }
        }
    }
}
