/// A grid of `UInt16` cell values kept as 8 × 8 tiles, a tile whose cells all hold one value
/// kept as that value alone. The region cells' grid over China and its neighbours is 7.7
/// million cells (15 MiB as a plain array), and a batch filled all of it before its first
/// point: the kernel's zeroing of those fresh pages alone was about 6 % of a 200,000-point
/// batch's CPU. Four tiles in five hold one value (sea, abroad, the inside of one district:
/// a tile that no boundary comes near is one connected patch), so the tiles take about 3 MiB,
/// and a cell's value is one read of the small top table (L2-sized) for most points, two reads
/// for the rest.
package struct CellTiles: Sendable, Equatable {
    package let columns: Int, rows: Int
    private let tileColumns: Int
    /// Per tile, row by row: its cells' one value (`tiled` clear), or `tiled` | the tile's
    /// index in `tiles`.
    private let top: [UInt32]
    /// The cells of the tiles that hold more than one value, 64 each, row by row.
    private let tiles: [UInt16]

    private static let tiled: UInt32 = 1 << 31
    static let side = 8

    /// The grid whose rows `fill` writes: called for each band of up to eight rows in order,
    /// with the band's first row, its row count and a buffer for that many rows of `columns`
    /// cells. Cells beyond the grid's edge in the last tiles copy the nearest cell within it,
    /// so that edge tiles are as uniform as the cells they hold; no read ever reaches them.
    package init(columns: Int, rows: Int, fill: (_ firstRow: Int, _ rowCount: Int, UnsafeMutableBufferPointer<UInt16>) -> Void) {
        precondition(columns > 0 && rows > 0)
        let side = Self.side
        let tileColumns = (columns + side - 1) / side, tileRows = (rows + side - 1) / side
        var top = [UInt32](repeating: 0, count: tileColumns * tileRows)
        var tiles: [UInt16] = []
        let band = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: side * columns)
        defer { band.deallocate() }
        var tile = [UInt16](repeating: 0, count: side * side)
        top.withUnsafeMutableBufferPointer { top in
            for ty in 0..<tileRows {
                let firstRow = ty * side, rowCount = Swift.min(side, rows - firstRow)
                fill(firstRow, rowCount, UnsafeMutableBufferPointer(rebasing: band[0..<(rowCount * columns)]))
                for tx in 0..<tileColumns {
                    let x0 = tx * side
                    let first = band[x0]
                    // A whole tile inside the grid: each row of 8 cells is two 8-byte words.
                    if rowCount == side && x0 + side <= columns {
                        let pattern = UInt64(first) &* 0x0001_0001_0001_0001
                        var same = true
                        for r in 0..<side where same {
                            let p = UnsafeRawPointer(band.baseAddress! + r * columns + x0)
                            same = p.loadUnaligned(as: UInt64.self) == pattern && p.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == pattern
                        }
                        if same { top[ty * tileColumns + tx] = UInt32(first); continue }
                        // Its rows copied whole, without a look at each cell.
                        tile.withUnsafeMutableBufferPointer { tile in
                            for r in 0..<side {
                                UnsafeMutableRawPointer(tile.baseAddress! + r * side)
                                    .copyMemory(from: band.baseAddress! + r * columns + x0, byteCount: side * 2)
                            }
                        }
                        top[ty * tileColumns + tx] = Self.tiled | UInt32(tiles.count / (side * side))
                        tiles.append(contentsOf: tile)
                        continue
                    }
                    // A tile at the grid's edge.
                    var uniform = true
                    tile.withUnsafeMutableBufferPointer { tile in
                        for r in 0..<side {
                            let row = Swift.min(r, rowCount - 1) * columns
                            for c in 0..<side {
                                let v = band[row + Swift.min(x0 + c, columns - 1)]
                                tile[r * side + c] = v
                                if v != first { uniform = false }
                            }
                        }
                    }
                    if uniform {
                        top[ty * tileColumns + tx] = UInt32(first)
                    } else {
                        top[ty * tileColumns + tx] = Self.tiled | UInt32(tiles.count / (side * side))
                        tiles.append(contentsOf: tile)
                    }
                }
            }
        }
        (self.columns, self.rows, self.tileColumns, self.top, self.tiles) = (columns, rows, tileColumns, top, tiles)
    }

    /// The tiles as kept: per tile its one value or `tiled` | its index, and the cells of the
    /// tiles that hold more than one (see `init(columns:rows:top:tiles:valid:)`).
    package var stored: (top: [UInt32], tiles: [UInt16]) { (top, tiles) }

    /// The tiles `stored` gave, as they were kept: read back with two copies, where expanding
    /// the grid's runs into tiles cost a batch some 40 million instructions before its first
    /// point. Nil when they do not fit a grid of that size, or a value is not `valid`.
    package init?(columns: Int, rows: Int, top: [UInt32], tiles: [UInt16], valid: (UInt16) -> Bool) {
        let side = Self.side
        guard columns > 0, rows > 0 else { return nil }
        let tileColumns = (columns + side - 1) / side, tileRows = (rows + side - 1) / side
        let tileCount = tiles.count / (side * side)
        guard top.count == tileColumns * tileRows, tiles.count % (side * side) == 0,
              top.allSatisfy({ $0 & Self.tiled != 0 ? Int($0 & ~Self.tiled) < tileCount : $0 <= UInt32(UInt16.max) && valid(UInt16($0)) }),
              tiles.allSatisfy(valid)
        else { return nil }
        (self.columns, self.rows, self.tileColumns, self.top, self.tiles) = (columns, rows, tileColumns, top, tiles)
    }

    /// The value of cell (`x`, `y`), both within the grid.
    @inline(__always)
    package func value(x: Int, y: Int) -> UInt16 {
        let t = top[(y >> 3) * tileColumns + (x >> 3)]
        if t & Self.tiled == 0 { return UInt16(truncatingIfNeeded: t) }
        return tiles[Int(t & ~Self.tiled) << 6 | (y & 7) << 3 | (x & 7)]
    }

    /// Calls `run` with each run of one value along the grid's rows, row after row (a run
    /// may go on into the next row), as a plain array of the cells would give them.
    package func forEachRun(_ run: (_ value: UInt16, _ length: Int) -> Void) {
        var current: UInt16 = 0, length = 0
        func add(_ v: UInt16, _ n: Int) {
            if length > 0 && v == current { length += n; return }
            if length > 0 { run(current, length) }
            (current, length) = (v, n)
        }
        for y in 0..<rows {
            for tx in 0..<tileColumns {
                let x0 = tx * Self.side, width = Swift.min(Self.side, columns - x0)
                let t = top[(y >> 3) * tileColumns + tx]
                if t & Self.tiled == 0 {
                    add(UInt16(truncatingIfNeeded: t), width)
                } else {
                    for x in x0..<(x0 + width) { add(value(x: x, y: y), 1) }
                }
            }
        }
        if length > 0 { run(current, length) }
    }
}
