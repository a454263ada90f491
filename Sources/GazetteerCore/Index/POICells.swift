import GazetteerSQLite

/// Which cells of a coarse grid hold at least one POI, from the POI R*Tree's boxes: one bit a
/// cell. Batch reverse geocoding asks the R*Tree for POIs within 100 m of every point (for the
/// landmark ending a formatted address), and most points of a batch spread over a country have
/// none: an empty cell answers that from memory (well under a microsecond, where the R*Tree
/// query costs several). Never says "empty" for a box some POI's R*Tree box meets.
package struct POICells: Sendable {
    private let originLng: Double, originLat: Double
    private let cellDegrees: Double
    private let columns: Int, rows: Int
    private let bits: [UInt64]

    /// Most cells: 2^26 bits, 8 MiB. Within China at the finest size (0.01°) it takes about 22 million.
    package static let maxCells = 1 << 26

    package init(loading db: Connection) throws {
        let boxes = try db.makeStatement("SELECT min_lng, max_lng, min_lat, max_lat FROM poi_rtree")
        var minLng = Double.infinity, maxLng = -Double.infinity, minLat = Double.infinity, maxLat = -Double.infinity
        _ = try boxes.rows { s in
            minLng = Swift.min(minLng, s.double(0)); maxLng = Swift.max(maxLng, s.double(1))
            minLat = Swift.min(minLat, s.double(2)); maxLat = Swift.max(maxLat, s.double(3))
        }
        guard minLng <= maxLng, minLat <= maxLat else {
            (originLng, originLat, cellDegrees, columns, rows, bits) = (0, 0, 1, 0, 0, [])
            return
        }
        // 0.01° (about a kilometre), coarser if the POIs spread so wide that the bits would not fit.
        var c = 0.01
        while ((maxLng - minLng) / c + 2) * ((maxLat - minLat) / c + 2) > Double(Self.maxCells) { c *= 2 }
        cellDegrees = c
        originLng = minLng
        originLat = minLat
        columns = Int((maxLng - minLng) / c) + 1
        rows = Int((maxLat - minLat) / c) + 1
        var bits = [UInt64](repeating: 0, count: (columns * rows + 63) / 64)
        let (oLng, oLat, cols, rws) = (originLng, originLat, columns, rows)
        func cell(_ v: Double, _ origin: Double, _ count: Int) -> Int { Swift.min(count - 1, Swift.max(0, Int((v - origin) / c))) }
        _ = try boxes.rows { s in
            let (x0, x1) = (cell(s.double(0), oLng, cols), cell(s.double(1), oLng, cols))
            let (y0, y1) = (cell(s.double(2), oLat, rws), cell(s.double(3), oLat, rws))
            for y in y0...y1 {
                for x in x0...x1 {
                    let i = y * cols + x
                    bits[i >> 6] |= 1 << UInt64(i & 63)
                }
            }
        }
        self.bits = bits
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
        for y in y0...y1 {
            for x in x0...x1 {
                let i = y * columns + x
                if bits[i >> 6] & (1 << UInt64(i & 63)) != 0 { return true }
            }
        }
        return false
    }
}
