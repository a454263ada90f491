import GazetteerSQLite

/// Which cells of a fine grid (about 100 m) hold at least one POI, from the POI R*Tree's
/// boxes. Batch reverse geocoding asks the R*Tree for POIs within 100 m of every point (for the
/// landmark ending a formatted address), and most points of a batch spread over a country have
/// none: an empty neighbourhood answers that from memory (well under a microsecond, where the
/// R*Tree query and the answer built around it cost tens). Never says "empty" for a box some
/// POI's R*Tree box meets.
///
/// Two levels, as the POIs of a country fill a small share of its cells: one bit per block of
/// 8 × 8 cells, and for each block with a POI one 64-bit word of its cells (found by counting
/// the set block bits before it). A box larger than a few dozen cells reads the block bits alone.
package struct POICells: Sendable {
    private let originLng: Double, originLat: Double
    private let cellDegrees: Double
    /// Cells across and down (a multiple of 8).
    private let columns: Int, rows: Int
    /// One bit per block, row by row: the block holds a POI.
    private let blockBits: [UInt64]
    /// Per word of `blockBits`: the set bits in the words before it.
    private let ranks: [UInt32]
    /// Per set block, in order: bit `8 · (y mod 8) + (x mod 8)` for cell (x, y).
    private let blocks: [UInt64]

    /// Most blocks: 2^28 bits, 32 MiB. China's POIs at the finest size (0.001°) take about 40 million.
    package static let maxBlocks = 1 << 28

    package init(loading db: Connection) throws {
        var boxes: [Float] = []
        let fromNodes = try RTreeLeaves.forEachBox(db, table: "poi_rtree") { x0, x1, y0, y1 in
            boxes.append(x0); boxes.append(x1); boxes.append(y0); boxes.append(y1)
        }
        if !fromNodes {
            boxes = []
            _ = try db.makeStatement("SELECT min_lng, max_lng, min_lat, max_lat FROM poi_rtree").rows { s in
                for i in Int32(0)..<4 { boxes.append(Float(s.double(i))) }
            }
        }
        var minLng = Double.infinity, maxLng = -Double.infinity, minLat = Double.infinity, maxLat = -Double.infinity
        for i in stride(from: 0, to: boxes.count, by: 4) {
            minLng = Swift.min(minLng, Double(boxes[i])); maxLng = Swift.max(maxLng, Double(boxes[i + 1]))
            minLat = Swift.min(minLat, Double(boxes[i + 2])); maxLat = Swift.max(maxLat, Double(boxes[i + 3]))
        }
        guard minLng <= maxLng, minLat <= maxLat else {
            (originLng, originLat, cellDegrees, columns, rows, blockBits, ranks, blocks) = (0, 0, 1, 0, 0, [], [], [])
            return
        }
        // 0.001° (about 100 m), coarser if the POIs spread so wide that the block bits would not fit.
        var c = 0.001
        while ((maxLng - minLng) / (8 * c) + 2) * ((maxLat - minLat) / (8 * c) + 2) > Double(Self.maxBlocks) { c *= 2 }
        let columns = (Int((maxLng - minLng) / c) + 1 + 7) / 8 * 8
        let rows = (Int((maxLat - minLat) / c) + 1 + 7) / 8 * 8
        let blockColumns = columns / 8
        func cell(_ v: Float, _ origin: Double, _ count: Int) -> Int { Swift.min(count - 1, Swift.max(0, Int((Double(v) - origin) / c))) }
        // Each POI's cells, as (block, bit); a point's box spans one cell, or two at an edge.
        var blockBits = [UInt64](repeating: 0, count: (blockColumns * (rows / 8) + 63) / 64)
        var marks: [(block: Int, bit: Int)] = []
        marks.reserveCapacity(boxes.count / 4)
        for i in stride(from: 0, to: boxes.count, by: 4) {
            let (x0, x1) = (cell(boxes[i], minLng, columns), cell(boxes[i + 1], minLng, columns))
            let (y0, y1) = (cell(boxes[i + 2], minLat, rows), cell(boxes[i + 3], minLat, rows))
            for y in y0...y1 {
                for x in x0...x1 {
                    let block = (y >> 3) * blockColumns + (x >> 3)
                    blockBits[block >> 6] |= 1 << UInt64(block & 63)
                    marks.append((block, (y & 7) << 3 | (x & 7)))
                }
            }
        }
        var ranks = [UInt32](repeating: 0, count: blockBits.count)
        var total = 0
        for (i, word) in blockBits.enumerated() {
            ranks[i] = UInt32(total)
            total += word.nonzeroBitCount
        }
        var blocks = [UInt64](repeating: 0, count: total)
        for m in marks {
            let word = m.block >> 6, below = blockBits[word] & ((1 << UInt64(m.block & 63)) - 1)
            blocks[Int(ranks[word]) + below.nonzeroBitCount] |= 1 << UInt64(m.bit)
        }
        (originLng, originLat, cellDegrees) = (minLng, minLat, c)
        (self.columns, self.rows, self.blockBits, self.ranks, self.blocks) = (columns, rows, blockBits, ranks, blocks)
    }

    /// False only when no POI's box meets `b`: every cell `b` touches, and one more all round
    /// (so that no rounding at a cell's edge can matter), holds none.
    package func mayHold(_ b: BoundingBox) -> Bool {
        guard columns > 0 else { return false }
        let c = cellDegrees
        let lx = (b.minLongitude - originLng) / c, hx = (b.maxLongitude - originLng) / c
        let ly = (b.minLatitude - originLat) / c, hy = (b.maxLatitude - originLat) / c
        // Anything odd (NaN, a box that does not fit an Int) asks the R*Tree.
        guard lx <= hx, ly <= hy, lx > -1e9, hx < 1e9, ly > -1e9, hy < 1e9 else { return true }
        let x0 = Swift.max(0, Int(lx.rounded(.down)) - 1), x1 = Swift.min(columns - 1, Int(hx.rounded(.down)) + 1)
        let y0 = Swift.max(0, Int(ly.rounded(.down)) - 1), y1 = Swift.min(rows - 1, Int(hy.rounded(.down)) + 1)
        guard x0 <= x1, y0 <= y1 else { return false }
        let blockColumns = columns >> 3
        // Block by block: the rows and columns of the box within each block make one mask.
        let large = x1 - x0 > 32 || y1 - y0 > 32
        for by in (y0 >> 3)...(y1 >> 3) {
            let rowFirst = Swift.max(y0, by << 3) & 7, rowLast = Swift.min(y1, by << 3 | 7) & 7
            // One bit at the start of each row of the box: 0x01 in each byte from rowFirst to rowLast.
            let rows = ((UInt64.max >> UInt64(8 * (7 - rowLast + rowFirst))) / 0xFF) << UInt64(8 * rowFirst)
            for bx in (x0 >> 3)...(x1 >> 3) {
                guard let i = blockIndex(by * blockColumns + bx) else { continue }
                if large { return true }
                let columnFirst = Swift.max(x0, bx << 3) & 7, columnLast = Swift.min(x1, bx << 3 | 7) & 7
                let columns: UInt64 = ((1 << UInt64(columnLast - columnFirst + 1)) - 1) << UInt64(columnFirst)
                if blocks[i] & (rows &* columns) != 0 { return true }
            }
        }
        return false
    }

    /// Where block `block`'s cells are in `blocks`, or nil when it holds no POI.
    @inline(__always)
    private func blockIndex(_ block: Int) -> Int? {
        let word = blockBits[block >> 6], bit: UInt64 = 1 << UInt64(block & 63)
        guard word & bit != 0 else { return nil }
        return Int(ranks[block >> 6]) + (word & (bit - 1)).nonzeroBitCount
    }
}
