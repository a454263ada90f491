import Foundation

/// Builds an SQLite R*Tree of points in one pass by writing its shadow tables
/// (`%_node`, `%_parent`, `%_rowid`) with a Sort-Tile-Recursive packing. SQLite's own insert
/// costs about 11 µs a row, most of a large import; a packed tree is also tighter than one
/// grown row by row. The layout written is SQLite's documented R*Tree format (rtree.c): a
/// node is 2 bytes of depth (root only), 2 bytes of cell count, then cells of an 8-byte id
/// and 32-bit floats, all big-endian, padded to the node size; the root is node 1.
/// `rtreecheck()` verifies the result in the tests.
struct RTreeBulkLoader {
    let db: Connection
    /// The R*Tree's name; its shadow tables are `<name>_node` and so on.
    let table: String
    /// How many auxiliary columns the tree has (stored as `a0`, `a1`, … in `%_rowid`; up to 3 here).
    let auxiliaryCount: Int

    /// One point: its id, coordinates and auxiliary values.
    struct Point {
        var id: Int64
        var x: Double
        var y: Double
        var aux: (SQLiteValue, SQLiteValue, SQLiteValue)
    }

    private struct Box {
        var minX: Float, maxX: Float, minY: Float, maxY: Float
        var centreX: Double { (Double(minX) + Double(maxX)) / 2 }
        var centreY: Double { (Double(minY) + Double(maxY)) / 2 }
        func union(_ o: Box) -> Box {
            Box(minX: min(minX, o.minX), maxX: max(maxX, o.maxX), minY: min(minY, o.minY), maxY: max(maxY, o.maxY))
        }
    }

    private struct Cell {
        var id: Int64   // a point's id in leaves, a child's node number above
        var box: Box
    }

    /// Rounds as rtree.c does, so a stored box always contains the double it came from.
    static func down(_ d: Double) -> Float {
        var f = Float(d)
        if Double(f) > d { f = Float(d * (d < 0 ? 1.0 + 1.0 / 8388608.0 : 1.0 - 1.0 / 8388608.0)) }
        return f
    }

    static func up(_ d: Double) -> Float {
        var f = Float(d)
        if Double(f) < d { f = Float(d * (d < 0 ? 1.0 - 1.0 / 8388608.0 : 1.0 + 1.0 / 8388608.0)) }
        return f
    }

    /// Replaces the tree's contents with `points`.
    func load(_ points: [Point]) throws {
        guard case .integer(let nodeSize) = try db.scalar("SELECT length(data) FROM \(table)_node WHERE nodeno = 1"), nodeSize > 4 else {
            throw SQLiteError(code: 1, message: "\(table) has no root node; is it an R*Tree?")
        }
        let capacity = (Int(nodeSize) - 4) / 24
        try db.execute("DELETE FROM \(table)_node; DELETE FROM \(table)_parent; DELETE FROM \(table)_rowid")
        guard !points.isEmpty else {
            try db.prepare("INSERT INTO \(table)_node (nodeno, data) VALUES (1, zeroblob(?))").run([.integer(nodeSize)])
            return
        }

        // Leaves, then levels above, each packed with STR; nodes get final numbers later.
        var levels: [[[Cell]]] = []
        var cells = points.map { p in
            Cell(id: p.id, box: Box(minX: Self.down(p.x), maxX: Self.up(p.x), minY: Self.down(p.y), maxY: Self.up(p.y)))
        }
        repeat {
            let nodes = Self.pack(cells, capacity: capacity)
            levels.append(nodes)
            // Temporary ids of the next level's cells: index within this level.
            cells = nodes.enumerated().map { i, node in
                Cell(id: Int64(i), box: node.dropFirst().reduce(node[0].box) { $0.union($1.box) })
            }
        } while levels.last!.count > 1
        // Number the nodes: root 1, then level by level downwards.
        var numbers: [[Int64]] = Array(repeating: [], count: levels.count)
        var next: Int64 = 1
        for level in stride(from: levels.count - 1, through: 0, by: -1) {
            numbers[level] = levels[level].indices.map { _ in defer { next += 1 }; return next }
        }
        let depth = levels.count - 1
        let insertNode = try db.prepare("INSERT INTO \(table)_node (nodeno, data) VALUES (?, ?)")
        let insertParent = try db.prepare("INSERT INTO \(table)_parent (nodeno, parentnode) VALUES (?, ?)")
        let auxColumns = (0..<auxiliaryCount).map { ", a\($0)" }.joined()
        let marks = String(repeating: ", ?", count: auxiliaryCount)
        let insertRowid = try db.prepare("INSERT INTO \(table)_rowid (rowid, nodeno\(auxColumns)) VALUES (?, ?\(marks))")
        var auxByID: [Int64: (SQLiteValue, SQLiteValue, SQLiteValue)] = [:]
        if auxiliaryCount > 0 {
            auxByID.reserveCapacity(points.count)
            for p in points { auxByID[p.id] = p.aux }
        }
        for (level, nodes) in levels.enumerated() {
            for (i, node) in nodes.enumerated() {
                let nodeno = numbers[level][i]
                var blob = [UInt8](repeating: 0, count: Int(nodeSize))
                if nodeno == 1 { Self.put16(UInt16(depth), into: &blob, at: 0) }
                Self.put16(UInt16(node.count), into: &blob, at: 2)
                var offset = 4
                for cell in node {
                    let id = level == 0 ? cell.id : numbers[level - 1][Int(cell.id)]
                    Self.put64(UInt64(bitPattern: id), into: &blob, at: offset)
                    Self.putBox(cell.box, into: &blob, at: offset + 8)
                    offset += 24
                    if level == 0 {
                        var values: [SQLiteValue] = [.integer(id), .integer(nodeno)]
                        if auxiliaryCount > 0, let a = auxByID[id] { values += [a.0, a.1, a.2].prefix(auxiliaryCount) }
                        try insertRowid.run(values)
                    } else {
                        try insertParent.run([.integer(id), .integer(nodeno)])
                    }
                }
                try insertNode.run([.integer(nodeno), .blob(blob)])
            }
        }
    }

    /// Sort-Tile-Recursive: sort by x into vertical slices of whole nodes, each slice by y,
    /// then cut into nodes of `capacity` cells.
    private static func pack(_ cells: [Cell], capacity: Int) -> [[Cell]] {
        guard !cells.isEmpty else { return [[]] }
        let nodeCount = (cells.count + capacity - 1) / capacity
        let slices = Int(Double(nodeCount).squareRoot().rounded(.up))
        let perSlice = slices * capacity
        let byX = cells.sorted { ($0.box.centreX, $0.id) < ($1.box.centreX, $1.id) }
        var nodes: [[Cell]] = []
        nodes.reserveCapacity(nodeCount)
        var start = 0
        while start < byX.count {
            let slice = byX[start..<min(start + perSlice, byX.count)].sorted { ($0.box.centreY, $0.id) < ($1.box.centreY, $1.id) }
            var i = slice.startIndex
            while i < slice.endIndex {
                nodes.append(Array(slice[i..<min(i + capacity, slice.endIndex)]))
                i += capacity
            }
            start += perSlice
        }
        return nodes
    }

    private static func putBox(_ b: Box, into blob: inout [UInt8], at offset: Int) {
        put32(b.minX.bitPattern, into: &blob, at: offset)
        put32(b.maxX.bitPattern, into: &blob, at: offset + 4)
        put32(b.minY.bitPattern, into: &blob, at: offset + 8)
        put32(b.maxY.bitPattern, into: &blob, at: offset + 12)
    }

    private static func put16(_ v: UInt16, into blob: inout [UInt8], at o: Int) {
        blob[o] = UInt8(v >> 8)
        blob[o + 1] = UInt8(v & 0xFF)
    }

    private static func put32(_ v: UInt32, into blob: inout [UInt8], at o: Int) {
        for k in 0..<4 { blob[o + k] = UInt8((v >> (24 - 8 * UInt32(k))) & 0xFF) }
    }

    private static func put64(_ v: UInt64, into blob: inout [UInt8], at o: Int) {
        for k in 0..<8 { blob[o + k] = UInt8((v >> (56 - 8 * UInt64(k))) & 0xFF) }
    }
}
