import Foundation
import GazetteerCore
import GazetteerSQLite

/// Builds an SQLite R*Tree of points in one pass by writing its shadow tables
/// (`%_node`, `%_parent`, `%_rowid`) with a Sort-Tile-Recursive packing. SQLite's own insert
/// costs about 11 µs a row, most of a large import; a packed tree is also tighter than one
/// grown row by row. The layout written is SQLite's R*Tree format (rtree.c): a node is 2 bytes
/// of depth (root only), 2 bytes of cell count, then cells of an 8-byte id and 32-bit floats,
/// all big-endian, padded to the node size; the root is node 1. `rtreecheck()` verifies the
/// result in the tests.
///
/// Memory stays flat: the points stream in sorted by x (SQLite sorts, spilling to disk), one
/// vertical slice (about √(n·capacity) points) is held at a time, and only the leaves' boxes
/// (one per `capacity` points) are kept for the levels above.
struct RTreeBulkLoader {
    let db: Connection
    /// The R*Tree's name; its shadow tables are `<name>_node` and so on.
    let table: String

    /// One point: its id, coordinates and auxiliary column values.
    struct Point {
        var id: Int64
        var x: Double
        var y: Double
        var aux: [SQLiteValue]
    }

    private struct Box {
        var minX: Float, maxX: Float, minY: Float, maxY: Float
        var centreX: Double { (Double(minX) + Double(maxX)) / 2 }
        var centreY: Double { (Double(minY) + Double(maxY)) / 2 }
        func union(_ o: Box) -> Box {
            Box(minX: min(minX, o.minX), maxX: max(maxX, o.maxX), minY: min(minY, o.minY), maxY: max(maxY, o.maxY))
        }
        static func point(_ x: Double, _ y: Double) -> Box {
            Box(minX: RTreeBulkLoader.down(x), maxX: RTreeBulkLoader.up(x), minY: RTreeBulkLoader.down(y), maxY: RTreeBulkLoader.up(y))
        }
    }

    /// A node once written: its number and the box of everything under it.
    private struct Written {
        var nodeno: Int64
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

    /// Replaces the tree's contents with the rows of `select`, which must return id, x, y and
    /// then the auxiliary columns, in that order, and `count` rows. The loader adds the
    /// `ORDER BY` itself.
    func load(select: String, count: Int, auxiliaryCount: Int) throws {
        guard case .integer(let nodeSize) = try db.scalar("SELECT length(data) FROM \(table)_node WHERE nodeno = 1"), nodeSize > 4 else {
            throw SQLiteError(code: 1, message: "\(table) has no root node; is it an R*Tree?")
        }
        let capacity = (Int(nodeSize) - 4) / 24
        try db.execute("DELETE FROM \(table)_node; DELETE FROM \(table)_parent; DELETE FROM \(table)_rowid")
        let writer = try NodeWriter(db: db, table: table, nodeSize: Int(nodeSize), auxiliaryCount: auxiliaryCount)
        guard count > 0 else {
            try writer.node(1, depth: 0, cells: [])
            return
        }
        let leafCount = (count + capacity - 1) / capacity
        let slices = Int(Double(leafCount).squareRoot().rounded(.up))
        let perSlice = slices * capacity
        // With a single leaf, that leaf is the root and must be node 1.
        var next: Int64 = leafCount == 1 ? 1 : 2
        var leaves: [Written] = []
        leaves.reserveCapacity(leafCount)
        var slice: [Point] = []
        slice.reserveCapacity(perSlice)

        func flush() throws {
            slice.sort { ($0.y, $0.id) < ($1.y, $1.id) }
            var i = 0
            while i < slice.count {
                let chunk = slice[i..<min(i + capacity, slice.count)]
                let nodeno = next
                next += 1
                let cells = chunk.map { (id: $0.id, box: Box.point($0.x, $0.y)) }
                try writer.node(nodeno, depth: 0, cells: cells)
                for p in chunk { try writer.rowid(p.id, nodeno: nodeno, aux: p.aux) }
                leaves.append(Written(nodeno: nodeno, box: cells.dropFirst().reduce(cells[0].box) { $0.union($1.box) }))
                i += capacity
            }
            slice.removeAll(keepingCapacity: true)
        }

        let rows = try db.makeStatement("\(select) ORDER BY 2, 1")
        try rows.bind([])
        while try rows.step() {
            slice.append(Point(id: rows.int64(0), x: rows.double(1), y: rows.double(2),
                               aux: (0..<auxiliaryCount).map { rows.value(Int32(3 + $0)) }))
            if slice.count == perSlice { try flush() }
        }
        rows.reset()
        if !slice.isEmpty { try flush() }

        // The levels above, packed the same way from the children's boxes; the top is node 1.
        var level = leaves
        var depth = 0
        while level.count > 1 {
            depth += 1
            let groups = Self.pack(level, capacity: capacity)
            var above: [Written] = []
            for group in groups {
                let nodeno: Int64 = groups.count == 1 ? 1 : next
                if groups.count > 1 { next += 1 }
                try writer.node(nodeno, depth: depth, cells: group.map { (id: $0.nodeno, box: $0.box) })
                for child in group { try writer.parent(child.nodeno, of: nodeno) }
                above.append(Written(nodeno: nodeno, box: group.dropFirst().reduce(group[0].box) { $0.union($1.box) }))
            }
            level = above
        }
    }

    /// Sort-Tile-Recursive on nodes: sort by x into vertical slices, each slice by y, then cut.
    private static func pack(_ nodes: [Written], capacity: Int) -> [[Written]] {
        let groupCount = (nodes.count + capacity - 1) / capacity
        let slices = Int(Double(groupCount).squareRoot().rounded(.up))
        let perSlice = slices * capacity
        let byX = nodes.sorted { ($0.box.centreX, $0.nodeno) < ($1.box.centreX, $1.nodeno) }
        var groups: [[Written]] = []
        var start = 0
        while start < byX.count {
            let slice = byX[start..<min(start + perSlice, byX.count)].sorted { ($0.box.centreY, $0.nodeno) < ($1.box.centreY, $1.nodeno) }
            var i = slice.startIndex
            while i < slice.endIndex {
                groups.append(Array(slice[i..<min(i + capacity, slice.endIndex)]))
                i += capacity
            }
            start += perSlice
        }
        return groups
    }

    /// Writes nodes and their bookkeeping rows.
    private final class NodeWriter {
        let nodeSize: Int
        let insertNode: Statement
        let insertParent: Statement
        let insertRowid: Statement

        init(db: Connection, table: String, nodeSize: Int, auxiliaryCount: Int) throws {
            self.nodeSize = nodeSize
            insertNode = try db.cachedStatement("INSERT INTO \(table)_node (nodeno, data) VALUES (?, ?)")
            insertParent = try db.cachedStatement("INSERT INTO \(table)_parent (nodeno, parentnode) VALUES (?, ?)")
            let columns = (0..<auxiliaryCount).map { ", a\($0)" }.joined()
            let marks = String(repeating: ", ?", count: auxiliaryCount)
            insertRowid = try db.cachedStatement("INSERT INTO \(table)_rowid (rowid, nodeno\(columns)) VALUES (?, ?\(marks))")
        }

        func node(_ nodeno: Int64, depth: Int, cells: [(id: Int64, box: Box)]) throws {
            var blob = [UInt8](repeating: 0, count: nodeSize)
            if nodeno == 1 { put(UInt64(depth), bytes: 2, into: &blob, at: 0) }
            put(UInt64(cells.count), bytes: 2, into: &blob, at: 2)
            var offset = 4
            for cell in cells {
                put(UInt64(bitPattern: cell.id), bytes: 8, into: &blob, at: offset)
                for (k, f) in [cell.box.minX, cell.box.maxX, cell.box.minY, cell.box.maxY].enumerated() {
                    put(UInt64(f.bitPattern), bytes: 4, into: &blob, at: offset + 8 + 4 * k)
                }
                offset += 24
            }
            try insertNode.run([.integer(nodeno), .blob(blob)])
        }

        func parent(_ nodeno: Int64, of parent: Int64) throws {
            try insertParent.run([.integer(nodeno), .integer(parent)])
        }

        func rowid(_ id: Int64, nodeno: Int64, aux: [SQLiteValue]) throws {
            try insertRowid.run([.integer(id), .integer(nodeno)] + aux)
        }

        /// Big-endian, as the R*Tree format stores everything.
        private func put(_ v: UInt64, bytes: Int, into blob: inout [UInt8], at o: Int) {
            for k in 0..<bytes { blob[o + k] = UInt8((v >> UInt64(8 * (bytes - 1 - k))) & 0xFF) }
        }
    }
}
