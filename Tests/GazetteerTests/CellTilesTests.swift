import Testing
@testable import GazetteerCore

/// The tiled grid the region cells keep (`CellTiles`) gives back every cell of the plain grid
/// it was made from, and the same runs, on grids whose sides are not whole tiles.
struct CellTilesTests {
    /// A grid of patches (uniform tiles), a line of another value through them (mixed tiles)
    /// and a few scattered cells, filled a band at a time as the region cells fill it.
    func check(columns: Int, rows: Int) {
        var dense = [UInt16](repeating: 0, count: columns * rows)
        for y in 0..<rows {
            for x in 0..<columns {
                var v = UInt16(1 + (x / 13) + 3 * (y / 11))
                if x == y || x == 2 * y + 1 { v = .max }
                if (x * 7 + y * 5) % 97 == 0 { v = 42 }
                dense[y * columns + x] = v
            }
        }
        var bands: [(Int, Int)] = []
        let tiles = CellTiles(columns: columns, rows: rows) { firstRow, rowCount, band in
            bands.append((firstRow, rowCount))
            #expect(band.count == rowCount * columns)
            _ = band.initialize(from: dense[(firstRow * columns)..<((firstRow + rowCount) * columns)])
        }
        #expect(bands.map(\.0) == Array(stride(from: 0, to: rows, by: 8)))
        var wrong = 0
        for y in 0..<rows {
            for x in 0..<columns where tiles.value(x: x, y: y) != dense[y * columns + x] { wrong += 1 }
        }
        #expect(wrong == 0, "\(columns) × \(rows)")

        var runs: [(UInt16, Int)] = []
        tiles.forEachRun { v, n in runs.append((v, n)) }
        var expected: [(UInt16, Int)] = []
        for v in dense {
            if let last = expected.last, last.0 == v { expected[expected.count - 1].1 += 1 } else { expected.append((v, 1)) }
        }
        #expect(runs.map(\.0) == expected.map(\.0))
        #expect(runs.map(\.1) == expected.map(\.1))
    }

    @Test func everyCellAndRunAsThePlainGrid() {
        for (columns, rows) in [(1, 1), (8, 8), (9, 7), (64, 40), (101, 77), (3, 130)] {
            check(columns: columns, rows: rows)
        }
    }

    @Test func aGridOfOneValueKeepsIt() {
        let tiles = CellTiles(columns: 50, rows: 21) { _, _, band in band.initialize(repeating: 7) }
        #expect(tiles.value(x: 0, y: 0) == 7 && tiles.value(x: 49, y: 20) == 7)
        var runs: [(UInt16, Int)] = []
        tiles.forEachRun { v, n in runs.append((v, n)) }
        #expect(runs.count == 1 && runs[0].0 == 7 && runs[0].1 == 50 * 21)
    }
}
