import Dispatch
import Foundation
import GazetteerSQLite

/// A grid over the region boundaries that answers `RegionLocator.deepest` from memory for a
/// point in a cell no boundary comes near. Batch reverse geocoding spends most of a point on
/// finding its region (candidate boxes, several point-in-polygon tests, and for a point at sea
/// or abroad a search of every border within the sliver slack); most points lie well inside
/// one district, or far from any, where that answer is the same over a whole cell.
///
/// A cell is "pure" when no edge of any boundary comes within `margin` (more than the sliver
/// slack) of it: there every boundary holds all of the cell or none of it, and none is near
/// enough for the sliver search, so the answer is the same everywhere in it. Pure cells that
/// share a side are joined, as the segment between their centres crosses no boundary, so
/// `deepest` runs once per connected patch of pure cells, at one cell's centre, and the answer
/// is shared. Cells near a boundary ("mixed") keep the exact test.
///
/// Built from the regions the locator searches (`RegionGrid`'s boxes and their shapes), so a
/// region left out of the locator is left out here too.
package struct RegionCells: Sendable, Equatable {
    package static let cellDegrees = 0.02
    /// The version of how cells are built and labelled, part of the stored cells' kind
    /// (`StoredBatchCells.region`): bump it with any such change, or databases would keep
    /// serving cells an older binary built.
    package static let builder = 1
    /// Most cells: 2^24 (32 MiB of UInt16); coarser cells beyond that.
    package static let maxCells = 1 << 24
    private static let mixed = UInt16.max

    private let originLng: Double, originLat: Double
    private let cellDegrees: Double
    private let columns: Int, rows: Int
    /// Per cell: `mixed`, or 1 + the index in `answers` of its region; in tiles, so that a
    /// batch fills 3 MiB rather than 15 before its first point (see `CellTiles`).
    private let cells: CellTiles
    /// The distinct answers of pure cells (nil: no region).
    private let answers: [Int64?]

    package enum Answer: Equatable {
        /// The region `deepest` gives anywhere in the cell (nil: none).
        case known(Int64?)
        /// A boundary is near: ask the exact test.
        case mixed
    }

    /// - Parameters:
    ///   - bounds: the box of every region searched (the grid covers it; outside it no region
    ///     is found, and `answer` says `mixed` so the exact test decides).
    ///   - shapes: the boundary of every region searched.
    ///   - slack: metres within which `deepest` looks for a region beyond the point.
    ///   - deepest: the exact answer at a point.
    /// - Returns: nil when the grid cannot be made (empty or polar bounds, or more than
    ///   `UInt16` distinct answers).
    package static func build(
        bounds: BoundingBox, shapes: [PolygonIndex], slack: Double, deepest: (Coordinate) throws -> Int64?
    ) rethrows -> RegionCells? {
        guard bounds.minLongitude <= bounds.maxLongitude, bounds.minLatitude <= bounds.maxLatitude,
              bounds.maxLatitude < 80, bounds.minLatitude > -80 else { return nil }
        // How far, in degrees, an edge must stay from a cell for the sliver search to ignore it
        // anywhere in the cell: the slack at the box's widest latitude, and half as much again.
        let metresPerDegree = Coordinate.earthRadius * Double.pi / 180
        let widest = max(abs(bounds.minLatitude), abs(bounds.maxLatitude)) + 1
        let marginLng = 1.5 * slack / (metresPerDegree * cos(widest * Double.pi / 180))
        let marginLat = 1.5 * slack / metresPerDegree
        var cell = cellDegrees
        func size(_ c: Double) -> (Int, Int) {
            (Int(((bounds.maxLongitude - bounds.minLongitude) / c).rounded(.down)) + 3,
             Int(((bounds.maxLatitude - bounds.minLatitude) / c).rounded(.down)) + 3)
        }
        while size(cell).0 * size(cell).1 > maxCells { cell *= 2 }
        let c = cell
        let (columns, rows) = size(c)
        let originLng = bounds.minLongitude - c, originLat = bounds.minLatitude - c

        // Every cell some edge comes near, marked on all cores: each piece of the shapes in a
        // bit set of its own (no two threads write one word), then merged.
        let count = columns * rows, words = (count + 63) / 64
        let pieces = Swift.max(1, Swift.min(shapes.count, ProcessInfo.processInfo.activeProcessorCount))
        nonisolated(unsafe) let near = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: pieces * words)
        near.initialize(repeating: 0)
        defer { near.deallocate() }
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            let bits = UnsafeMutableBufferPointer(rebasing: near[(piece * words)..<((piece + 1) * words)])
            // Marks every cell meeting the box, widened by the margin.
            // Int(_:) truncates, which is the floor for the cells inside the grid; a box reaching
            // below it marks cell 0 as well, which only costs that cell its shortcut.
            func mark(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
                let cx0 = max(0, Int((min(x0, x1) - marginLng - originLng) / c))
                let cx1 = min(columns - 1, Int((max(x0, x1) + marginLng - originLng) / c))
                let cy0 = max(0, Int((min(y0, y1) - marginLat - originLat) / c))
                let cy1 = min(rows - 1, Int((max(y0, y1) + marginLat - originLat) / c))
                guard cx0 <= cx1, cy0 <= cy1 else { return }
                for y in cy0...cy1 {
                    for x in cx0...cx1 { let j = y * columns + x; bits[j >> 6] |= 1 << UInt64(j & 63) }
                }
            }
            for i in stride(from: piece, to: shapes.count, by: pieces) {
                shapes[i].forEachEdge { x0, y0, x1, y1 in
                    // A long edge in pieces of at most a cell, so only cells along it are marked.
                    let pieces = Int(max(abs(x1 - x0), abs(y1 - y0)) / c) + 1
                    if pieces == 1 { mark(x0, y0, x1, y1); return }
                    for i in 0..<pieces {
                        let t0 = Double(i) / Double(pieces), t1 = Double(i + 1) / Double(pieces)
                        mark(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0, x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)
                    }
                }
            }
        }
        var cells = [UInt16](unsafeUninitializedCapacity: count) { cells, done in
            for w in 0..<words {
                var word: UInt64 = 0
                for piece in 0..<pieces { word |= near[piece * words + w] }
                let base = w << 6
                for k in 0..<Swift.min(64, count - base) { cells[base + k] = word >> UInt64(k) & 1 != 0 ? mixed : 0 }
            }
            done = count
        }

        // Label each side-connected patch of pure cells with the answer at one of its centres.
        // The outermost cells are left to the exact test (they hold no region), so the fill
        // never has to check for the grid's edge.
        var answers: [Int64?] = []
        var index: [Int64?: UInt16] = [:]
        let done = try cells.withUnsafeMutableBufferPointer { cells -> Bool in
            for x in 0..<columns { cells[x] = mixed; cells[(rows - 1) * columns + x] = mixed }
            for y in 0..<rows { cells[y * columns] = mixed; cells[y * columns + columns - 1] = mixed }
            // A ring buffer: a breadth-first fill holds only its front, a few grid widths.
            let capacity = 1 << 20, wrap = capacity - 1
            let queue = UnsafeMutableBufferPointer<Int32>.allocate(capacity: capacity)
            defer { queue.deallocate() }
            for y in 1..<(rows - 1) {
                for x in 1..<(columns - 1) where cells[y * columns + x] == 0 {
                    let centre = Coordinate(longitude: originLng + (Double(x) + 0.5) * c, latitude: originLat + (Double(y) + 0.5) * c)
                    let code = try deepest(centre)
                    let label: UInt16
                    if let known = index[code] {
                        label = known
                    } else {
                        guard answers.count < Int(mixed) - 1 else { return false }
                        answers.append(code)
                        label = UInt16(answers.count)
                        index[code] = label
                    }
                    let start = y * columns + x
                    cells[start] = label
                    queue[0] = Int32(start)
                    var head = 0, tail = 1
                    var overflow = false
                    @inline(__always) func visit(_ j: Int) {
                        guard cells[j] == 0 else { return }
                        cells[j] = label
                        queue[tail & wrap] = Int32(j)
                        tail += 1
                        if tail - head > capacity { overflow = true }
                    }
                    while head < tail {
                        let i = Int(queue[head & wrap]); head += 1
                        visit(i - 1); visit(i + 1); visit(i - columns); visit(i + columns)
                    }
                    if overflow { return false }
                }
            }
            return true
        }
        guard done else { return nil }
        let tiles = cells.withUnsafeBufferPointer { cells in
            CellTiles(columns: columns, rows: rows) { firstRow, rowCount, band in
                _ = band.initialize(from: cells[(firstRow * columns)..<((firstRow + rowCount) * columns)])
            }
        }
        return RegionCells(originLng: originLng, originLat: originLat, cellDegrees: c, columns: columns, rows: rows,
                           cells: tiles, answers: answers)
    }

    private init(originLng: Double, originLat: Double, cellDegrees: Double, columns: Int, rows: Int,
                 cells: CellTiles, answers: [Int64?]) {
        (self.originLng, self.originLat, self.cellDegrees) = (originLng, originLat, cellDegrees)
        (self.columns, self.rows, self.cells, self.answers) = (columns, rows, cells, answers)
    }

    /// What the cell of `p` knows about `deepest(p)`.
    @inline(__always)
    package func answer(_ p: Coordinate) -> Answer {
        let l = label(p)
        return l == 0 ? .mixed : .known(answers[l - 1])
    }

    /// The label of `p`'s cell: 0 when a boundary is near (or `p` is off the grid), else
    /// 1 + the index of its answer in `labelledAnswers`. A batch keeps what it knows per label.
    @inline(__always)
    package func label(_ p: Coordinate) -> Int {
        let fx = (p.longitude - originLng) / cellDegrees, fy = (p.latitude - originLat) / cellDegrees
        // Outside the grid (or NaN): let the exact test decide.
        guard fx >= 0, fy >= 0, fx < Double(columns), fy < Double(rows) else { return 0 }
        let v = cells.value(x: Int(fx), y: Int(fy))
        return v == Self.mixed ? 0 : Int(v)
    }

    /// The answer of each label, label 1 first (`label(_:)`).
    package var labelledAnswers: [Int64?] { answers }

    /// Calls `run` with each run of one cell value along the grid's rows, row after row, as
    /// a plain array of the cells would give them (the layout an earlier importer stored).
    package func forEachCellRun(_ run: (_ value: UInt16, _ length: Int) -> Void) {
        cells.forEachRun(run)
    }

    /// How many cells are pure, of all: how much of the grid answers from memory.
    package var pureShare: Double {
        var pure = 0
        forEachCellRun { v, n in if v != Self.mixed { pure += n } }
        return Double(pure) / Double(columns * rows)
    }
}

extension RegionCells {
    /// The layout `encoded` writes: the tiles as kept.
    private static let blobFormat: UInt32 = 0x5243_4C32
    /// The layout an earlier importer wrote (the cells as runs along the rows), still read.
    private static let runsFormat: UInt32 = 0x5243_4C31

    /// The cells for `batch_cells` (`StoredBatchCells`): the grid's place and size, the
    /// answers, and the tiles as a batch keeps them (`CellTiles`), about 3 MiB, read back with
    /// a copy each.
    package var encoded: [UInt8] {
        var w = CellsBlobWriter(format: Self.blobFormat)
        w.put(StoredGrid(originLng: originLng, originLat: originLat, cellDegrees: cellDegrees, columns: columns, rows: rows))
        w.put(answers.map { $0 ?? Int64.min })
        let (top, tiles) = cells.stored
        w.put(top); w.put(tiles)
        return w.bytes
    }

    /// The cells `encoded` wrote, or an earlier importer's runs; nil for a blob of another
    /// layout or one that does not add up.
    package init?(encoded blob: BlobReader) {
        if let tiled = Self(tiles: blob) {
            self = tiled
            return
        }
        guard var r = CellsBlobReader(blob, format: Self.runsFormat), let g = r.grid(maxCells: Self.maxCells),
              let answers = r.array(Int64.self), let values = r.array(UInt16.self), let lengths = r.array(UInt32.self), r.isAtEnd,
              g.columns > 0, g.rows > 0, values.count == lengths.count,
              answers.count < Int(Self.mixed), values.allSatisfy({ $0 == Self.mixed || Int($0) <= answers.count })
        else { return nil }
        let count = g.columns * g.rows
        guard lengths.reduce(0, { $0 + Int($1) }) == count else { return nil }
        // The runs expanded a band of rows at a time, straight into the tiles.
        var run = 0, left = lengths.first.map(Int.init) ?? 0
        let cells = CellTiles(columns: g.columns, rows: g.rows) { _, _, band in
            var at = 0
            while at < band.count {
                while left == 0 { run += 1; left = Int(lengths[run]) }
                let n = Swift.min(left, band.count - at)
                band.baseAddress!.advanced(by: at).initialize(repeating: values[run], count: n)
                at += n
                left -= n
            }
        }
        self.init(g, cells: cells, stored: answers)
    }

    /// The cells of a blob `encoded` wrote.
    private init?(tiles blob: BlobReader) {
        guard var r = CellsBlobReader(blob, format: Self.blobFormat), let g = r.grid(maxCells: Self.maxCells),
              let answers = r.array(Int64.self), let top = r.array(UInt32.self), let tiles = r.array(UInt16.self), r.isAtEnd,
              answers.count < Int(Self.mixed),
              let cells = CellTiles(columns: g.columns, rows: g.rows, top: top, tiles: tiles,
                                    valid: { $0 == Self.mixed || Int($0) <= answers.count })
        else { return nil }
        self.init(g, cells: cells, stored: answers)
    }

    /// Cells read back: the stored grid, and the answers as `encoded` wrote them (`Int64.min`: none).
    private init(_ g: StoredGrid, cells: CellTiles, stored answers: [Int64]) {
        self.init(originLng: g.originLng, originLat: g.originLat, cellDegrees: g.cellDegrees, columns: g.columns, rows: g.rows,
                  cells: cells, answers: answers.map { $0 == Int64.min ? nil : $0 })
    }
}
