import Foundation
import GazetteerSQLite
import GazetteerSupport

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
/// Above them, one bit per group of 8 × 8 blocks (about 6 km): the block bits of a country are
/// megabytes, read at random, one cache miss or more per point, while the group bits fit the
/// processor's cache, and most points of a batch have no POI within a group's reach.
///
/// The POIs' ids and boxes are kept too, block by block (`forEachPOI`): the few points with a
/// POI near then find the landmark from memory, where the R*Tree query reads its nodes through
/// the page cache (tens of microseconds each, a fifth of a whole batch).
package struct POICells: Sendable, Equatable {
    private let originLng: Double, originLat: Double
    private let cellDegrees: Double
    /// Cells across and down (a multiple of 8).
    private let columns: Int, rows: Int
    /// One bit per block, row by row: the block holds a POI.
    private let blockBits: [UInt64]
    /// One bit per group of 8 × 8 blocks, row by row: some block of the group holds a POI.
    private let groupBits: [UInt64]
    /// Groups across (the block columns over 8, rounded up).
    private let groupColumns: Int
    /// One bit per group: it or one of the eight around it holds a POI (`nothingNear`).
    private let nearBits: [UInt64]
    /// Per word of `blockBits`: the set bits in the words before it.
    private let ranks: [UInt32]
    /// Per set block, in order: bit `8 · (y mod 8) + (x mod 8)` for cell (x, y).
    private let blocks: [UInt64]
    /// Per set block and one more: where its POIs start in `ids`, `boxes` and `cellOf`. A POI
    /// is listed in the block of its box's minimum corner.
    private let starts: [UInt32]
    /// Per POI: its R*Tree id, its box (min x, max x, min y, max y) as stored, and the bit of
    /// its minimum corner's cell in the block's word.
    private let ids: [Int64]
    private let boxes: [Float]
    private let cellOf: [UInt8]
    /// POIs whose box spans more than two cells either way (none, for points): read by every
    /// `forEachPOI`, as their minimum corner may be far from the box asked about.
    private let wideIDs: [Int64]
    private let wideBoxes: [Float]

    /// Most blocks: 2^28 bits, 32 MiB. China's POIs at the finest size (0.001°) take about 40 million.
    package static let maxBlocks = 1 << 28

    /// - Parameter pieces: how many pieces the POIs are taken in (nil: one per core, for a
    ///   million POIs; one for fewer than 65,536). The cells are the same for any number.
    package init(loading db: Connection, pieces: Int? = nil) throws {
        var boxes: [Float] = [], ids: [Int64] = []
        if let entries = try RTreeLeaves.entries(db, table: "poi_rtree") {
            (ids, boxes) = entries
        } else {
            _ = try db.makeStatement("SELECT id, min_lng, max_lng, min_lat, max_lat FROM poi_rtree").rows { s in
                ids.append(s.int64(0))
                for i in Int32(1)...4 { boxes.append(Float(s.double(i))) }
            }
        }
        var minLng = Double.infinity, maxLng = -Double.infinity, minLat = Double.infinity, maxLat = -Double.infinity
        boxes.withUnsafeBufferPointer { boxes in
            for i in stride(from: 0, to: boxes.count, by: 4) {
                minLng = Swift.min(minLng, Double(boxes[i])); maxLng = Swift.max(maxLng, Double(boxes[i + 1]))
                minLat = Swift.min(minLat, Double(boxes[i + 2])); maxLat = Swift.max(maxLat, Double(boxes[i + 3]))
            }
        }
        guard minLng <= maxLng, minLat <= maxLat else {
            (originLng, originLat, cellDegrees, columns, rows, blockBits, ranks, blocks) = (0, 0, 1, 0, 0, [], [], [])
            (groupBits, groupColumns, nearBits) = ([], 0, [])
            (starts, self.ids, self.boxes, cellOf, wideIDs, wideBoxes) = ([0], [], [], [], [], [])
            return
        }
        // 0.001° (about 100 m), coarser if the POIs spread so wide that the block bits would not fit.
        var c = 0.001
        while ((maxLng - minLng) / (8 * c) + 2) * ((maxLat - minLat) / (8 * c) + 2) > Double(Self.maxBlocks) { c *= 2 }
        let columns = (Int((maxLng - minLng) / c) + 1 + 7) / 8 * 8
        let rows = (Int((maxLat - minLat) / c) + 1 + 7) / 8 * 8
        let blockColumns = columns / 8
        let count = ids.count
        let (lng0, lat0, size) = (minLng, minLat, c)
        // The POIs in pieces, on every core (`WorkPieces`): each piece marks block bits of its
        // own, merged after, and is placed after the pieces before it, so the lists come out
        // as one pass in order would make them.
        let pieces = Swift.max(1, pieces ?? (count < 1 << 16 ? 1 : Swift.min(8, ProcessInfo.processInfo.activeProcessorCount)))
        let pieceOf = { @Sendable (piece: Int) in (count * piece / pieces)..<(count * (piece + 1) / pieces) }
        // Per POI, the block and bit of its box's minimum corner (block -1: a wide box); the
        // other cells of a box (a point's spans one, or two at an edge) as extra marks.
        // Plain buffers throughout: a million POIs, several passes each.
        let blockWords = (blockColumns * (rows / 8) + 63) / 64
        var blockBits = HugePages.zeroed(UInt64.self, count: blockWords)
        nonisolated(unsafe) let pieceBits = HugePages.zeroedBuffer(UInt64.self, count: (pieces - 1) * blockWords)
        nonisolated(unsafe) let cornerBlock = HugePages.zeroedBuffer(Int32.self, count: count)
        nonisolated(unsafe) let cornerBit = HugePages.zeroedBuffer(UInt8.self, count: count)
        nonisolated(unsafe) let lists = UnsafeMutableBufferPointer<PieceLists>.allocate(capacity: pieces)
        lists.initialize(repeating: PieceLists())
        defer {
            pieceBits.deallocate(); cornerBlock.deallocate(); cornerBit.deallocate()
            _ = lists.deinitialize(); lists.deallocate()
        }
        blockBits.withUnsafeMutableBufferPointer { firstBits in
            ids.withUnsafeBufferPointer { ids in
                boxes.withUnsafeBufferPointer { boxes in
                    nonisolated(unsafe) let (firstBits, ids, boxes) = (firstBits, ids, boxes)
                    WorkPieces.run(pieces) { piece in
                        let blockBits = piece == 0 ? firstBits : UnsafeMutableBufferPointer(rebasing: pieceBits[((piece - 1) * blockWords)...].prefix(blockWords))
                        var list = PieceLists()
                        func cell(_ v: Float, _ origin: Double, _ count: Int) -> Int { Swift.min(count - 1, Swift.max(0, Int((Double(v) - origin) / size))) }
                        for n in pieceOf(piece) {
                            let i = 4 * n
                            let (x0, x1) = (cell(boxes[i], lng0, columns), cell(boxes[i + 1], lng0, columns))
                            let (y0, y1) = (cell(boxes[i + 2], lat0, rows), cell(boxes[i + 3], lat0, rows))
                            let block = (y0 >> 3) * blockColumns + (x0 >> 3)
                            blockBits[block >> 6] |= 1 << UInt64(block & 63)
                            if x1 - x0 > 1 || y1 - y0 > 1 {
                                cornerBlock[n] = -1
                                list.wideIDs.append(ids[n])
                                list.wideBoxes.append(contentsOf: boxes[i..<(i + 4)])
                                list.marks.append((block, (y0 & 7) << 3 | (x0 & 7)))
                            } else {
                                cornerBlock[n] = Int32(block)
                                cornerBit[n] = UInt8((y0 & 7) << 3 | (x0 & 7))
                            }
                            guard x0 != x1 || y0 != y1 else { continue }
                            for y in y0...y1 {
                                for x in x0...x1 where x != x0 || y != y0 {
                                    let block = (y >> 3) * blockColumns + (x >> 3)
                                    blockBits[block >> 6] |= 1 << UInt64(block & 63)
                                    list.marks.append((block, (y & 7) << 3 | (x & 7)))
                                }
                            }
                        }
                        lists[piece] = list
                    }
                    Self.merge(pieceBits, into: firstBits)
                }
            }
        }
        let marks = lists.flatMap(\.marks), wideIDs = lists.flatMap(\.wideIDs), wideBoxes = lists.flatMap(\.wideBoxes)
        var ranks = HugePages.zeroed(UInt32.self, count: blockBits.count)
        let groupColumns = (blockColumns + 7) / 8, groupRows = (rows / 8 + 7) / 8
        var groupBits = [UInt64](repeating: 0, count: (groupColumns * groupRows + 63) / 64)
        var counted = 0
        for (i, word) in blockBits.enumerated() {
            ranks[i] = UInt32(counted)
            counted += word.nonzeroBitCount
            var rest = word
            while rest != 0 {
                let block = i << 6 | rest.trailingZeroBitCount
                rest &= rest - 1
                groupBits.setBit((block / blockColumns) / 8 * groupColumns + (block % blockColumns) / 8)
            }
        }
        // Each group with a POI marks itself and the eight around it.
        var nearBits = [UInt64](repeating: 0, count: groupBits.count)
        for (w, word) in groupBits.enumerated() {
            var rest = word
            while rest != 0 {
                let group = w << 6 | rest.trailingZeroBitCount
                rest &= rest - 1
                let gx = group % groupColumns, gy = group / groupColumns
                for y in Swift.max(0, gy - 1)...Swift.min(groupRows - 1, gy + 1) {
                    for x in Swift.max(0, gx - 1)...Swift.min(groupColumns - 1, gx + 1) { nearBits.setBit(y * groupColumns + x) }
                }
            }
        }
        let total = counted
        var blocks = HugePages.zeroed(UInt64.self, count: total)
        var starts = [UInt32](repeating: 0, count: total + 1)
        // Per piece, its POIs' cell bits (the first piece's straight into `blocks`), then its
        // count per block, made into where its next POI in that block goes.
        nonisolated(unsafe) let pieceBlocks = HugePages.zeroedBuffer(UInt64.self, count: (pieces - 1) * total)
        nonisolated(unsafe) let next = HugePages.zeroedBuffer(UInt32.self, count: pieces * total)
        defer { pieceBlocks.deallocate(); next.deallocate() }
        var placedIDs = [Int64](), placedBoxes = [Float](), cellOf = [UInt8]()
        blockBits.withUnsafeBufferPointer { blockBits in
            ranks.withUnsafeBufferPointer { ranks in
                blocks.withUnsafeMutableBufferPointer { blocks in
                    nonisolated(unsafe) let (blockBits, ranks, firstBlocks) = (blockBits, ranks, blocks)
                    @Sendable func index(_ block: Int) -> Int {
                        let word = block >> 6, below = blockBits[word] & ((1 << UInt64(block & 63)) - 1)
                        return Int(ranks[word]) + below.nonzeroBitCount
                    }
                    for m in marks { blocks[index(m.block)] |= 1 << UInt64(m.bit) }
                    // Count (each corner's block replaced by its index), then place.
                    WorkPieces.run(pieces) { piece in
                        let words = piece == 0 ? firstBlocks : UnsafeMutableBufferPointer(rebasing: pieceBlocks[((piece - 1) * total)...].prefix(total))
                        let counts = UnsafeMutableBufferPointer(rebasing: next[(piece * total)...].prefix(total))
                        for n in pieceOf(piece) where cornerBlock[n] >= 0 {
                            let b = index(Int(cornerBlock[n]))
                            cornerBlock[n] = Int32(b)
                            words[b] |= 1 << UInt64(cornerBit[n])
                            counts[b] += 1
                        }
                    }
                    Self.merge(pieceBlocks, into: blocks)
                    starts.withUnsafeMutableBufferPointer { starts in
                        for b in 0..<total {
                            var at = starts[b]
                            for piece in 0..<pieces {
                                let n = next[piece * total + b]
                                next[piece * total + b] = at
                                at += n
                            }
                            starts[b + 1] = at
                        }
                    }
                    let listed = Int(starts[total])
                    // On huge pages, as the tables above: some 25 MB at a million POIs, faulted in 4 KiB at a time otherwise.
                    placedIDs = HugePages.array(listed) { placedIDs in
                        placedBoxes = HugePages.array(4 * listed) { placedBoxes in
                            cellOf = HugePages.array(listed) { cellOf in
                                ids.withUnsafeBufferPointer { ids in
                                    boxes.withUnsafeBufferPointer { boxes in
                                        nonisolated(unsafe) let (placedIDs, placedBoxes, cellOf, ids, boxes) = (placedIDs, placedBoxes, cellOf, ids, boxes)
                                        WorkPieces.run(pieces) { piece in
                                            let next = UnsafeMutableBufferPointer(rebasing: next[(piece * total)...].prefix(total))
                                            for n in pieceOf(piece) where cornerBlock[n] >= 0 {
                                                let b = Int(cornerBlock[n]), at = Int(next[b])
                                                next[b] += 1
                                                placedIDs[at] = ids[n]
                                                placedBoxes[4 * at] = boxes[4 * n]; placedBoxes[4 * at + 1] = boxes[4 * n + 1]
                                                placedBoxes[4 * at + 2] = boxes[4 * n + 2]; placedBoxes[4 * at + 3] = boxes[4 * n + 3]
                                                cellOf[at] = cornerBit[n]
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        (self.starts, self.ids, self.boxes, self.cellOf, self.wideIDs, self.wideBoxes) = (starts, placedIDs, placedBoxes, cellOf, wideIDs, wideBoxes)
        (originLng, originLat, cellDegrees) = (minLng, minLat, c)
        (self.columns, self.rows, self.blockBits, self.ranks, self.blocks) = (columns, rows, blockBits, ranks, blocks)
        (self.groupBits, self.groupColumns, self.nearBits) = (groupBits, groupColumns, nearBits)
    }

    /// ORs the words of the pieces after the first (`later`, one piece after another, each as
    /// long as `first`) into the first piece's.
    private static func merge(_ later: UnsafeMutableBufferPointer<UInt64>, into first: UnsafeMutableBufferPointer<UInt64>) {
        for start in stride(from: 0, to: later.count, by: Swift.max(1, first.count)) {
            for w in first.indices { first[w] |= later[start + w] }
        }
    }

    /// What one piece of the POIs adds besides its block bits.
    private struct PieceLists {
        var marks: [(block: Int, bit: Int)] = []
        var wideIDs: [Int64] = []
        var wideBoxes: [Float] = []
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
        // The groups first: most boxes meet one, and none of its blocks holds a POI.
        guard groupsHoldAny(x0...x1, y0...y1) else { return false }
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

    /// True only when `mayHold(BoundingBox.around(p, radius: metres))` is false, read from one
    /// bit: `p`'s group and the eight around it hold no POI, and they hold that box and the cell
    /// beyond it all round while `metres` is at most a kilometre, below 80° of latitude and a
    /// degree from the antimeridian (where the box would wrap). False when it cannot tell. A
    /// batch asks this of every point: most are answered without the box's trigonometry or the
    /// block bits.
    package func nothingNear(_ p: Coordinate, metres: Double) -> Bool {
        guard columns > 0 else { return true }
        guard metres <= 1_000, abs(p.latitude) < 80, abs(p.longitude) < 179 else { return false }
        let fx = (p.longitude - originLng) / cellDegrees, fy = (p.latitude - originLat) / cellDegrees
        guard fx >= 0, fy >= 0, fx < Double(columns), fy < Double(rows) else { return false }
        return !nearBits.bit((Int(fy) >> 6) * groupColumns + (Int(fx) >> 6))
    }

    /// `mayHold(BoundingBox.around(p, radius: metres))`, answered by `nothingNear` where it can.
    package func mayHold(near p: Coordinate, metres: Double) -> Bool {
        !nothingNear(p, metres: metres) && mayHold(BoundingBox.around(p, radius: metres))
    }

    /// Whether a group of the cells' columns `x` and rows `y` holds a POI.
    private func groupsHoldAny(_ x: ClosedRange<Int>, _ y: ClosedRange<Int>) -> Bool {
        for gy in (y.lowerBound >> 6)...(y.upperBound >> 6) {
            for gx in (x.lowerBound >> 6)...(x.upperBound >> 6) where groupBits.bit(gy * groupColumns + gx) { return true }
        }
        return false
    }

    /// Calls `body(id, minX, minY)` for every POI whose R*Tree box meets `b`: the rows the
    /// R*Tree query `min_lng <= maxX AND max_lng >= minX AND min_lat <= maxY AND max_lat >= minY`
    /// gives, with the same values, in another order. False, having called nothing, for a box
    /// it does not read (NaN, huge): then ask the R*Tree.
    ///
    /// A POI whose box meets `b` has its minimum corner's cell at most one cell before `b`'s
    /// first (its box spans at most two cells), so the cells of `b` widened by one hold them all.
    package func forEachPOI(meeting b: BoundingBox, _ body: (Int64, Double, Double) throws -> Void) rethrows -> Bool {
        let c = cellDegrees
        let lx = (b.minLongitude - originLng) / c, hx = (b.maxLongitude - originLng) / c
        let ly = (b.minLatitude - originLat) / c, hy = (b.maxLatitude - originLat) / c
        guard lx <= hx, ly <= hy, lx > -1e9, hx < 1e9, ly > -1e9, hy < 1e9 else { return false }
        @inline(__always) func meets(_ box: UnsafeBufferPointer<Float>, _ at: Int) -> Bool {
            Double(box[at]) <= b.maxLongitude && Double(box[at + 1]) >= b.minLongitude
                && Double(box[at + 2]) <= b.maxLatitude && Double(box[at + 3]) >= b.minLatitude
        }
        try wideBoxes.withUnsafeBufferPointer { box in
            for i in wideIDs.indices where meets(box, 4 * i) { try body(wideIDs[i], Double(box[4 * i]), Double(box[4 * i + 2])) }
        }
        guard columns > 0 else { return true }
        let x0 = Swift.max(0, Int(lx.rounded(.down)) - 1), x1 = Swift.min(columns - 1, Int(hx.rounded(.down)) + 1)
        let y0 = Swift.max(0, Int(ly.rounded(.down)) - 1), y1 = Swift.min(rows - 1, Int(hy.rounded(.down)) + 1)
        guard x0 <= x1, y0 <= y1 else { return true }
        let blockColumns = columns >> 3
        try boxes.withUnsafeBufferPointer { box in
            for by in (y0 >> 3)...(y1 >> 3) {
                let rowFirst = Swift.max(y0, by << 3) & 7, rowLast = Swift.min(y1, by << 3 | 7) & 7
                let rows = ((UInt64.max >> UInt64(8 * (7 - rowLast + rowFirst))) / 0xFF) << UInt64(8 * rowFirst)
                for bx in (x0 >> 3)...(x1 >> 3) {
                    guard let i = blockIndex(by * blockColumns + bx) else { continue }
                    let columnFirst = Swift.max(x0, bx << 3) & 7, columnLast = Swift.min(x1, bx << 3 | 7) & 7
                    let columns: UInt64 = ((1 << UInt64(columnLast - columnFirst + 1)) - 1) << UInt64(columnFirst)
                    let mask = rows &* columns
                    for k in Int(starts[i])..<Int(starts[i + 1]) where mask >> UInt64(cellOf[k]) & 1 != 0 && meets(box, 4 * k) {
                        try body(ids[k], Double(box[4 * k]), Double(box[4 * k + 2]))
                    }
                }
            }
        }
        return true
    }

    /// Where block `block`'s cells are in `blocks`, or nil when it holds no POI.
    @inline(__always)
    private func blockIndex(_ block: Int) -> Int? {
        let word = blockBits[block >> 6], bit: UInt64 = 1 << UInt64(block & 63)
        guard word & bit != 0 else { return nil }
        return Int(ranks[block >> 6]) + (word & (bit - 1)).nonzeroBitCount
    }
}

extension [UInt64] {
    /// Bit `i` of the words, word `i / 64` holding bits 64 (i / 64) up.
    @inline(__always)
    fileprivate func bit(_ i: Int) -> Bool { self[i >> 6] >> UInt64(i & 63) & 1 != 0 }

    @inline(__always)
    fileprivate mutating func setBit(_ i: Int) { self[i >> 6] |= 1 << UInt64(i & 63) }
}
