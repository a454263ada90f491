import GazetteerSQLite

/// The region R*Tree's boxes, held in memory as a uniform grid. Reverse geocoding asks for
/// the boxes around one point on every map move; answering that from memory takes well
/// under a microsecond, where an SQLite R*Tree query costs about eight of a 20 µs budget.
/// Loaded from `region_rtree` itself, so both always hold the same boxes.
package struct RegionGrid: Sendable {
    package struct Entry: Sendable {
        package var code: Int64
        package var level: Int
        package var minLng, maxLng, minLat, maxLat: Double
    }

    package static let cellDegrees = 0.5

    private let entries: [Entry]
    /// Per cell, its entries' indices: `cellItems[cellStarts[i]..<cellStarts[i + 1]]`, in the
    /// order `candidates` gives (flat, so a point's look-up retains no array of its own).
    private let cellStarts: [Int32]
    private let cellItems: [Int32]
    private let originLng: Double, originLat: Double
    private let columns: Int, rows: Int

    package init(loading db: Connection) throws {
        entries = try db.cachedStatement("SELECT id, level, min_lng, max_lng, min_lat, max_lat FROM region_rtree").rows {
            Entry(code: $0.int64(0), level: $0.int(1), minLng: $0.double(2), maxLng: $0.double(3), minLat: $0.double(4), maxLat: $0.double(5))
        }
        let c = Self.cellDegrees
        originLng = ((entries.map(\.minLng).min() ?? 0) / c).rounded(.down) * c
        originLat = ((entries.map(\.minLat).min() ?? 0) / c).rounded(.down) * c
        columns = entries.isEmpty ? 0 : Int(((entries.map(\.maxLng).max()! - originLng) / c).rounded(.down)) + 1
        rows = entries.isEmpty ? 0 : Int(((entries.map(\.maxLat).max()! - originLat) / c).rounded(.down)) + 1
        var cells = [[Int32]](repeating: [], count: columns * rows)
        // In the order `candidates` gives, so that a box within one cell needs no sort: the
        // entries placed in that order once, rather than every cell's list sorted.
        let entries = entries
        let order = entries.indices.sorted { (entries[$0].level, entries[$0].code) > (entries[$1].level, entries[$1].code) }
        for i in order {
            let e = entries[i]
            let (x0, y0) = (Int((e.minLng - originLng) / c), Int((e.minLat - originLat) / c))
            let (x1, y1) = (min(columns - 1, Int((e.maxLng - originLng) / c)), min(rows - 1, Int((e.maxLat - originLat) / c)))
            for y in y0...y1 { for x in x0...x1 { cells[y * columns + x].append(Int32(i)) } }
        }
        var starts: [Int32] = [0]
        starts.reserveCapacity(cells.count + 1)
        for cell in cells { starts.append(starts.last! + Int32(cell.count)) }
        cellStarts = starts
        cellItems = cells.flatMap { $0 }
    }

    /// Every region searched, as its code.
    package var codes: [Int64] { entries.map(\.code) }

    /// The box around every region searched (empty when there is none).
    package var bounds: BoundingBox {
        entries.reduce(BoundingBox.empty) {
            $0.union(BoundingBox(minLongitude: $1.minLng, minLatitude: $1.minLat, maxLongitude: $1.maxLng, maxLatitude: $1.maxLat))
        }
    }

    /// Regions whose box meets `b`, deepest level first (then by code, descending), as the
    /// R*Tree query `min_lng <= maxLng AND max_lng >= minLng …` would give them.
    package func candidates(_ b: BoundingBox) -> [(code: Int64, level: Int)] {
        guard columns > 0 else { return [] }
        let c = Self.cellDegrees
        let x0 = max(0, Int(((b.minLongitude - originLng) / c).rounded(.down)))
        let y0 = max(0, Int(((b.minLatitude - originLat) / c).rounded(.down)))
        let x1 = min(columns - 1, Int(((b.maxLongitude - originLng) / c).rounded(.down)))
        let y1 = min(rows - 1, Int(((b.maxLatitude - originLat) / c).rounded(.down)))
        guard x0 <= x1, y0 <= y1 else { return [] }
        var found: [(code: Int64, level: Int)] = []
        var seen = Set<Int32>()
        let single = x0 == x1 && y0 == y1
        for y in y0...y1 {
            for x in x0...x1 {
                let cell = y * columns + x
                for i in cellItems[Int(cellStarts[cell])..<Int(cellStarts[cell + 1])] {
                    if !single && !seen.insert(i).inserted { continue }
                    let e = entries[Int(i)]
                    if e.minLng <= b.maxLongitude && e.maxLng >= b.minLongitude && e.minLat <= b.maxLatitude && e.maxLat >= b.minLatitude {
                        found.append((e.code, e.level))
                    }
                }
            }
        }
        if !single { found.sort { ($0.level, $0.code) > ($1.level, $1.code) } }
        return found
    }

    /// `candidates` of the box of point `p` alone, in the same order, without an array: calls
    /// `body(index, code, level)` (`index` numbers the region in this grid) until it returns false.
    package func forEachCandidate(at p: Coordinate, _ body: (Int, Int64, Int) throws -> Bool) rethrows {
        guard columns > 0 else { return }
        let c = Self.cellDegrees
        let x = Int(((p.longitude - originLng) / c).rounded(.down)), y = Int(((p.latitude - originLat) / c).rounded(.down))
        guard x >= 0, y >= 0, x < columns, y < rows else { return }
        let cell = y * columns + x
        try cellItems.withUnsafeBufferPointer { items in
            try entries.withUnsafeBufferPointer { entries in
                for k in Int(cellStarts[cell])..<Int(cellStarts[cell + 1]) {
                    let i = Int(items[k]), e = entries[i]
                    if e.minLng <= p.longitude && e.maxLng >= p.longitude && e.minLat <= p.latitude && e.maxLat >= p.latitude {
                        guard try body(i, e.code, e.level) else { return }
                    }
                }
            }
        }
    }

    /// How many regions the grid holds (the bound of `forEachCandidate`'s indices).
    package var count: Int { entries.count }
}
