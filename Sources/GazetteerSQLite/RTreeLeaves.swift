/// The boxes of a 2-dimensional R*Tree, read from its `%_node` shadow table rather than
/// through the virtual table: a few dozen thousand blobs instead of a million rows, each
/// through the virtual table's cursor. SQLite's R*Tree format (rtree.c, and what
/// `RTreeBulkLoader` writes): a node is 2 bytes of depth (root only), 2 bytes of cell count,
/// then cells of an 8-byte id (a child's node number above the leaves) and 32-bit floats
/// (min x, max x, min y, max y), all big-endian; the root is node 1.
package enum RTreeLeaves {
    /// Calls `body(minX, maxX, minY, maxY)` for every row of R*Tree `table` (as stored, the
    /// 32-bit box that contains the row's values). False, having called nothing, when the
    /// nodes are not laid out as expected (then read the virtual table).
    package static func forEachBox(_ db: Connection, table: String, _ body: (Float, Float, Float, Float) -> Void) throws -> Bool {
        try forEachEntry(db, table: table) { _, x0, x1, y0, y1 in body(x0, x1, y0, y1) }
    }

    /// `forEachBox`, with each row's id first: `body(id, minX, maxX, minY, maxY)`.
    package static func forEachEntry(_ db: Connection, table: String, _ body: (Int64, Float, Float, Float, Float) -> Void) throws -> Bool {
        var nodes: [Int64: [UInt8]] = [:]
        _ = try db.makeStatement("SELECT nodeno, data FROM \"\(table)_node\"").rows { s in nodes[s.int64(0)] = s.blob(1) }
        func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
        func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
            UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        }
        func i64(_ b: [UInt8], _ at: Int) -> Int64 { Int64(bitPattern: UInt64(u32(b, at)) << 32 | UInt64(u32(b, at + 4))) }
        let cell = 8 + 4 * 4
        // Check the whole tree first, so that a surprise reads nothing rather than half.
        guard let root = nodes[1], root.count >= 4 else { return false }
        var leaves: [[UInt8]] = []
        var level: [(node: [UInt8], depth: Int)] = [(root, u16(root, 0))]
        var seen = 1
        while let (node, depth) = level.popLast() {
            let count = u16(node, 2)
            guard 4 + count * cell <= node.count else { return false }
            if depth == 0 { leaves.append(node); continue }
            for i in 0..<count {
                guard let child = nodes[i64(node, 4 + i * cell)], child.count >= 4 else { return false }
                level.append((child, depth - 1))
                seen += 1
            }
        }
        guard seen == nodes.count else { return false }
        for node in leaves {
            for i in 0..<u16(node, 2) {
                let at = 4 + i * cell + 8
                body(i64(node, at - 8), Float(bitPattern: u32(node, at)), Float(bitPattern: u32(node, at + 4)),
                     Float(bitPattern: u32(node, at + 8)), Float(bitPattern: u32(node, at + 12)))
            }
        }
        return true
    }
}
