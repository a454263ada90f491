import GazetteerSupport

/// The boxes of a 2-dimensional R*Tree, read from its `%_node` shadow table rather than
/// through the virtual table: a few dozen thousand blobs instead of a million rows, each
/// through the virtual table's cursor. SQLite's R*Tree format (rtree.c, and what
/// `RTreeBulkLoader` writes): a node is 2 bytes of depth (root only), 2 bytes of cell count,
/// then cells of an 8-byte id (a child's node number above the leaves) and 32-bit floats
/// (min x, max x, min y, max y), all big-endian; the root is node 1.
package enum RTreeLeaves {
    /// Every row of R*Tree `table`, leaf by leaf: ids, and per id its box as stored (the 32-bit
    /// box that contains the row's values) as four floats, min x, max x, min y, max y. Nil,
    /// having read nothing, when the nodes are not laid out as expected (then read the
    /// virtual table).
    ///
    /// The node blobs are copied into one buffer, each at its number's place (every node of a
    /// tree is the root's size; the numbers run from 1 with few gaps, as a bulk load or SQLite
    /// leaves them), and the rows into arrays of their final size: a million rows appended one
    /// by one cost more than reading them, and summing the blobs' lengths first read every
    /// node twice.
    /// - Parameter pieces: how many pieces the leaves decode in (nil: 8 from 65,536 rows, else
    ///   one). The rows are the same for any number.
    package static func entries(_ db: Connection, table: String, pieces: Int? = nil) throws -> (ids: [Int64], boxes: [Float])? {
        let nodeTable = "\"\(table)_node\""
        guard case .integer(let last) = try db.scalar("SELECT max(nodeno) FROM \(nodeTable)"), last >= 1,
              case .integer(let nodeSize) = try db.scalar("SELECT length(data) FROM \(nodeTable) WHERE nodeno = 1"), nodeSize >= 4 + 24,
              last <= Self.mostBytes / nodeSize else { return nil }
        let size = Int(nodeSize)
        // One buffer for every node number, on huge pages: tens of megabytes for a million
        // rows, where a page fault per 4 KiB cost more than the copy. A gap is never touched.
        let bytes = HugePages.allocate(byteCount: Int(last) * size)
        defer { bytes.deallocate() }
        var present = [Bool](repeating: false, count: Int(last) + 1)
        var stored = 0
        var unexpected = false
        _ = try db.makeStatement("SELECT nodeno, data FROM \(nodeTable)").rows { s in
            let nodeno = s.int64(0)
            s.withBlob(1) { blob in
                guard (1...last).contains(nodeno), blob.count == size, !present[Int(nodeno)] else { unexpected = true; return }
                let at = Int(nodeno - 1) * size
                UnsafeMutableRawBufferPointer(rebasing: bytes[at..<(at + size)]).copyMemory(from: blob)
                present[Int(nodeno)] = true
                stored += 1
            }
        }
        guard !unexpected else { return nil }
        func nodeBytes(_ nodeno: Int64) -> Range<Int>? {
            guard (1...last).contains(nodeno), present[Int(nodeno)] else { return nil }
            return Int(nodeno - 1) * size..<Int(nodeno) * size
        }
        let raw = UnsafeRawBufferPointer(bytes)
        func u16(_ at: Int) -> Int { Self.u16(raw, at) }
        func i64(_ at: Int) -> Int64 { Self.i64(raw, at) }
        let cell = 8 + 4 * 4
        // Check the whole tree first, so that a surprise reads nothing rather than half.
        guard let root = nodeBytes(1) else { return nil }
        var leaves: [Range<Int>] = []
        // Per leaf, where its rows start among all the rows.
        var firsts: [Int] = []
        var level: [(node: Range<Int>, depth: Int)] = [(root, u16(root.lowerBound))]
        var seen = 1, total = 0
        while let (node, depth) = level.popLast() {
            let count = u16(node.lowerBound + 2)
            guard 4 + count * cell <= node.count else { return nil }
            if depth == 0 {
                leaves.append(node)
                firsts.append(total)
                total += count
                continue
            }
            for i in 0..<count {
                guard let child = nodeBytes(i64(node.lowerBound + 4 + i * cell)) else { return nil }
                level.append((child, depth - 1))
                seen += 1
            }
        }
        guard seen == stored else { return nil }
        // The leaves in pieces, taken by whichever core is free (`WorkPieces`), each leaf into its
        // own stretch of the rows: at a million rows one core took some 15 ms, while the other
        // had finished the region cells and waited.
        let pieces = Swift.max(1, pieces ?? (total < 1 << 16 ? 1 : 8))
        var boxes: [Float] = []
        let ids: [Int64] = HugePages.array(total) { idBuffer in
            boxes = HugePages.array(4 * total) { boxBuffer in
                nonisolated(unsafe) let (idsOut, boxesOut, raw, leaves, firsts) = (idBuffer, boxBuffer, raw, leaves, firsts)
                WorkPieces.run(pieces) { piece in
                    for leaf in (leaves.count * piece / pieces)..<(leaves.count * (piece + 1) / pieces) {
                        let node = leaves[leaf].lowerBound
                        var n = firsts[leaf]
                        for i in 0..<Self.u16(raw, node + 2) {
                            let at = node + 4 + i * cell
                            idsOut[n] = Self.i64(raw, at)
                            for k in 0..<4 { boxesOut[4 * n + k] = Float(bitPattern: Self.u32(raw, at + 8 + 4 * k)) }
                            n += 1
                        }
                    }
                }
            }
        }
        return (ids, boxes)
    }

    // The node format's big-endian integers at byte `at` of `raw` (static, so that the pieces,
    // which may not capture the buffer's local functions, read them the same way).
    private static func u16(_ raw: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
    }
    private static func u32(_ raw: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    private static func i64(_ raw: UnsafeRawBufferPointer, _ at: Int) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
    }

    /// The largest node buffer read (4 GiB): a larger one means a damaged tree.
    private static let mostBytes: Int64 = 1 << 32

    /// Calls `body(minX, maxX, minY, maxY)` for every row of R*Tree `table` (see `entries`).
    /// False, having called nothing, when the nodes are not laid out as expected.
    package static func forEachBox(_ db: Connection, table: String, _ body: (Float, Float, Float, Float) -> Void) throws -> Bool {
        guard let (_, boxes) = try entries(db, table: table) else { return false }
        for i in stride(from: 0, to: boxes.count, by: 4) { body(boxes[i], boxes[i + 1], boxes[i + 2], boxes[i + 3]) }
        return true
    }
}
