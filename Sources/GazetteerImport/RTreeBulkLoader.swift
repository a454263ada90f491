import Foundation
import GazetteerCore
import GazetteerSQLite

/// Builds an SQLite R*Tree of points by writing its shadow tables
/// (`%_node`, `%_parent`, `%_rowid`) with a Sort-Tile-Recursive packing. SQLite's own insert
/// costs about 11 µs a row, most of a large import; a packed tree is also tighter than one
/// grown row by row. The layout written is SQLite's R*Tree format (rtree.c): a node is 2 bytes
/// of depth (root only), 2 bytes of cell count, then cells of an 8-byte id and 32-bit floats,
/// all big-endian, padded to the node size; the root is node 1. `rtreecheck()` verifies the
/// result in the tests.
///
/// Memory stays bounded: up to `inMemoryPoints` points are sorted in memory (`arrange`: the
/// points, 40 bytes each, and their leaves written out, about 24 bytes a point), read once from
/// the table or handed over by the importer, which kept them as it wrote the rows; more stream
/// in sorted by SQLite (spilling to disk), one vertical slice (about √(n·capacity) points) at a
/// time, with each point's leaf number kept (4 bytes a point when ids are dense) for a second
/// pass that writes the `%_rowid` rows in id order. Only the leaves' boxes (one per `capacity` points) are kept for the levels above.
struct RTreeBulkLoader {
    let db: Connection
    /// The R*Tree's name; its shadow tables are `<name>_node` and so on.
    let table: String

    /// Up to this many points are sorted in memory (about 64 bytes each, 160 MB at most); more
    /// stream through SQLite's sorter, which spills to disk.
    static let inMemoryPoints = 2_500_000

    /// One point: its id, coordinates and code (the auxiliary columns are x, y and code),
    /// and once written the leaf that holds it.
    struct Point {
        var id: Int64
        var x: Double
        var y: Double
        var code: Int64
        var leaf: UInt32 = 0
        var hasCode: Bool

        init(_ row: Statement) {
            id = row.int64(0)
            x = row.double(1)
            y = row.double(2)
            hasCode = !row.isNull(3)
            code = hasCode ? row.int64(3) : 0
        }

        init(id: Int64, x: Double, y: Double, code: Int64?) {
            self.id = id
            self.x = x
            self.y = y
            hasCode = code != nil
            self.code = code ?? 0
        }
    }

    /// A tree's leaves, written out, and its points in id order with their leaves: worked out
    /// without SQLite, so an import can do it on another thread while its connection builds
    /// other indexes (`arrange`), and then only the writes are left (`load(_:)`).
    struct Arrangement: Sendable {
        /// The leaves in node order (numbered from `firstLeaf`), each with its box and node.
        fileprivate var leaves: [Written]
        var leafNodes: [[UInt8]]
        /// The points in id order, each with its leaf, for the `%_rowid` rows.
        var byID: [Point]
        let nodeSize: Int
    }

    /// Each point's leaf: an array indexed by id when the ids are dense (rowids of a table
    /// filled in order), else (id, leaf) pairs, sorted once every leaf is written.
    private struct Leaves {
        let low: Int64
        var dense: [UInt32]
        var pairs: [(id: Int64, nodeno: UInt32)] = []
        var cursor = 0

        init(ids: ClosedRange<Int64>, count: Int) {
            low = ids.lowerBound
            let width = ids.upperBound - ids.lowerBound + 1
            dense = width <= Int64(count) * 4 + 4096 ? [UInt32](repeating: 0, count: Int(width)) : []
        }

        mutating func set(_ id: Int64, _ nodeno: Int64) {
            if dense.isEmpty { pairs.append((id, UInt32(nodeno))) } else { dense[Int(id - low)] = UInt32(nodeno) }
        }

        mutating func sorted() { pairs.sort { $0.id < $1.id } }

        /// The leaf of `id`, asked in ascending id order.
        mutating func nodeno(of id: Int64) -> UInt32? {
            if !dense.isEmpty {
                let i = id - low
                guard i >= 0, i < dense.count, dense[Int(i)] != 0 else { return nil }
                return dense[Int(i)]
            }
            while cursor < pairs.count, pairs[cursor].id < id { cursor += 1 }
            return cursor < pairs.count && pairs[cursor].id == id ? pairs[cursor].nodeno : nil
        }
    }

    fileprivate struct Box {
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
    fileprivate struct Written {
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

    /// The bytes of a node of this tree (its root's size).
    func nodeSize() throws -> Int {
        guard case .integer(let nodeSize) = try db.scalar("SELECT length(data) FROM \(table)_node WHERE nodeno = 1"), nodeSize > 4 else {
            throw SQLiteError(code: 1, message: "\(table) has no root node; is it an R*Tree?")
        }
        return Int(nodeSize)
    }

    /// Replaces the tree's contents with the rows of `select`, which must return id, x, y and
    /// an integer code or NULL (the auxiliary columns are x, y and code): `count` rows with
    /// ids in `ids`. The loader adds each `ORDER BY` itself.
    func load(select: String, count: Int, ids: ClosedRange<Int64>, inMemoryPoints: Int = Self.inMemoryPoints) throws {
        let nodeSize = try nodeSize()
        let capacity = (nodeSize - 4) / 24
        if count <= inMemoryPoints {
            // SQLite's sorter took about 2 µs a point at a million (its merge of linked lists
            // misses the cache), and a second pass for the `%_rowid` rows read the table again.
            var all: [Point] = []
            all.reserveCapacity(count)
            let scan = try db.makeStatement(select)
            try scan.bind([])
            while try scan.step() { all.append(Point(scan)) }
            scan.reset()
            try load(Self.arrange(&all, nodeSize: nodeSize))
            return
        }
        let writer = try start()
        let leafCount = (count + capacity - 1) / capacity
        let perSlice = Self.sliceWidth(leafCount: leafCount, capacity: capacity)
        var next = Self.firstLeaf(leafCount: leafCount)
        var leaves: [Written] = []
        leaves.reserveCapacity(leafCount)
        var leafOf = Leaves(ids: ids, count: count)
        var slice: [Point] = []
        slice.reserveCapacity(perSlice)
        /// Writes the leaves of one vertical slice, cut from it sorted by y, and notes each
        /// point's leaf.
        func flush() throws {
            slice.sort(by: Self.byY)
            var i = 0
            while i < slice.count {
                let end = min(i + capacity, slice.count)
                for k in i..<end { slice[k].leaf = UInt32(next) }
                let (leaf, node) = Self.leafNode(next, slice[i..<end], nodeSize: nodeSize)
                try writer.write(next, node)
                leaves.append(leaf)
                next += 1
                i = end
            }
            for p in slice { leafOf.set(p.id, Int64(p.leaf)) }
            slice.removeAll(keepingCapacity: true)
        }
        let sorted = try db.makeStatement("\(select) ORDER BY 2, 1")
        try sorted.bind([])
        while try sorted.step() {
            slice.append(Point(sorted))
            if slice.count == perSlice { try flush() }
        }
        sorted.reset()
        if !slice.isEmpty { try flush() }
        // Inserted in leaf order the `%_rowid` rows would land all over its B-tree, which
        // cost more than the sort: they go in id order, from a second pass.
        leafOf.sorted()
        let inOrder = try db.makeStatement("\(select) ORDER BY 1")
        try inOrder.bind([])
        while try inOrder.step() {
            var p = Point(inOrder)
            guard let nodeno = leafOf.nodeno(of: p.id) else {
                throw SQLiteError(code: 1, message: "\(table): row \(p.id) was not among the points")
            }
            p.leaf = nodeno
            try writer.rowid(p)
        }
        inOrder.reset()
        try writer.finishRowids()
        try writeLevels(above: leaves, next: next, capacity: capacity, writer: writer)
    }

    /// Replaces the tree's contents with `arrangement`'s points (made by `arrange` for this
    /// tree's node size).
    func load(_ arrangement: Arrangement) throws {
        let writer = try start()
        guard writer.nodeSize == arrangement.nodeSize else {
            throw SQLiteError(code: 1, message: "\(table): the points were arranged for another node size")
        }
        guard !arrangement.byID.isEmpty else {
            try writer.node(1, depth: 0, cells: [])
            return
        }
        for (leaf, node) in zip(arrangement.leaves, arrangement.leafNodes) { try writer.write(leaf.nodeno, node) }
        for p in arrangement.byID { try writer.rowid(p) }
        try writer.finishRowids()
        let next = Self.firstLeaf(leafCount: arrangement.leaves.count) + Int64(arrangement.leaves.count)
        try writeLevels(above: arrangement.leaves, next: next, capacity: (arrangement.nodeSize - 4) / 24, writer: writer)
    }

    /// Sorts `points` as the tree packs them (Sort-Tile-Recursive: by x, id into vertical
    /// slices, each slice by y, id, cut into leaves), numbers and writes out the leaves, and
    /// sorts the points back into id order. Pure: safe on any thread.
    static func arrange(_ points: inout [Point], nodeSize: Int) -> Arrangement {
        let capacity = (nodeSize - 4) / 24
        // The same order as SQL's ORDER BY x, id (no NaN: coordinates are checked).
        points.sort { ($0.x, $0.id) < ($1.x, $1.id) }
        let leafCount = (points.count + capacity - 1) / capacity
        let perSlice = sliceWidth(leafCount: leafCount, capacity: capacity)
        var nodeno = firstLeaf(leafCount: leafCount)
        var leaves: [Written] = []
        var leafNodes: [[UInt8]] = []
        leaves.reserveCapacity(leafCount)
        leafNodes.reserveCapacity(leafCount)
        var start = 0
        while start < points.count {
            let sliceEnd = min(start + perSlice, points.count)
            points[start..<sliceEnd].sort(by: byY)
            var i = start
            while i < sliceEnd {
                let end = min(i + capacity, sliceEnd)
                for k in i..<end { points[k].leaf = UInt32(nodeno) }
                let (leaf, node) = leafNode(nodeno, points[i..<end], nodeSize: nodeSize)
                leaves.append(leaf)
                leafNodes.append(node)
                nodeno += 1
                i = end
            }
            start = sliceEnd
        }
        // Inserted in leaf order the `%_rowid` rows would land all over its B-tree.
        points.sort { $0.id < $1.id }
        return Arrangement(leaves: leaves, leafNodes: leafNodes, byID: points, nodeSize: nodeSize)
    }

    /// A leaf of `points`, with its box, and its node's bytes.
    private static func leafNode(_ nodeno: Int64, _ points: ArraySlice<Point>, nodeSize: Int) -> (Written, [UInt8]) {
        let cells = points.map { (id: $0.id, box: Box.point($0.x, $0.y)) }
        let box = cells.dropFirst().reduce(cells[0].box) { $0.union($1.box) }
        return (Written(nodeno: nodeno, box: box), node(nodeno, depth: 0, cells: cells, nodeSize: nodeSize))
    }

    /// A node's bytes: 2 bytes of depth (root only), 2 bytes of cell count, then the cells.
    private static func node(_ nodeno: Int64, depth: Int, cells: [(id: Int64, box: Box)], nodeSize: Int) -> [UInt8] {
        var blob = [UInt8](repeating: 0, count: nodeSize)
        if nodeno == 1 { put(UInt64(depth), bytes: 2, into: &blob, at: 0) }
        put(UInt64(cells.count), bytes: 2, into: &blob, at: 2)
        var offset = 4
        for cell in cells {
            put(UInt64(bitPattern: cell.id), bytes: 8, into: &blob, at: offset)
            put(UInt64(cell.box.minX.bitPattern), bytes: 4, into: &blob, at: offset + 8)
            put(UInt64(cell.box.maxX.bitPattern), bytes: 4, into: &blob, at: offset + 12)
            put(UInt64(cell.box.minY.bitPattern), bytes: 4, into: &blob, at: offset + 16)
            put(UInt64(cell.box.maxY.bitPattern), bytes: 4, into: &blob, at: offset + 20)
            offset += 24
        }
        return blob
    }

    /// Big-endian, as the R*Tree format stores everything.
    private static func put(_ v: UInt64, bytes: Int, into blob: inout [UInt8], at o: Int) {
        for k in 0..<bytes { blob[o + k] = UInt8((v >> UInt64(8 * (bytes - 1 - k))) & 0xFF) }
    }

    private static func byY(_ a: Point, _ b: Point) -> Bool { (a.y, a.id) < (b.y, b.id) }

    /// Points in one vertical slice: √(leaves) slices of whole leaves.
    private static func sliceWidth(leafCount: Int, capacity: Int) -> Int {
        Int(Double(leafCount).squareRoot().rounded(.up)) * capacity
    }

    /// The first leaf's node number: with a single leaf, that leaf is the root and must be node 1.
    private static func firstLeaf(leafCount: Int) -> Int64 { leafCount == 1 ? 1 : 2 }

    /// Empties the shadow tables and returns their writer.
    private func start() throws -> NodeWriter {
        let nodeSize = try nodeSize()
        try db.execute("DELETE FROM \(table)_node; DELETE FROM \(table)_parent; DELETE FROM \(table)_rowid")
        return try NodeWriter(db: db, table: table, nodeSize: nodeSize)
    }

    /// The levels above the leaves, packed the same way from the children's boxes; the top is
    /// node 1, the others numbered from `next`.
    private func writeLevels(above leaves: [Written], next: Int64, capacity: Int, writer: NodeWriter) throws {
        var next = next
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
        /// `rowsPerInsert` `%_rowid` rows at once: a million rows inserted one by one spent
        /// about half their instructions on each statement's own start and end.
        let insertRowids: Statement
        static let rowsPerInsert = 64
        private var pending: [Point] = []

        init(db: Connection, table: String, nodeSize: Int) throws {
            self.nodeSize = nodeSize
            insertNode = try db.cachedStatement("INSERT INTO \(table)_node (nodeno, data) VALUES (?, ?)")
            insertParent = try db.cachedStatement("INSERT INTO \(table)_parent (nodeno, parentnode) VALUES (?, ?)")
            let into = "INTO \(table)_rowid (rowid, nodeno, a0, a1, a2) VALUES "
            let row = "(?, ?, ?, ?, ?)"
            insertRowid = try db.cachedStatement("INSERT " + into + row)
            // OR FAIL: no statement savepoint, at which FTS5 would write out its pending terms
            // (see `ImportRun.insertGroup`); a failure fails the whole import anyway.
            insertRowids = try db.cachedStatement("INSERT OR FAIL " + into + Array(repeating: row, count: Self.rowsPerInsert).joined(separator: ", "))
            pending.reserveCapacity(Self.rowsPerInsert)
        }

        func node(_ nodeno: Int64, depth: Int, cells: [(id: Int64, box: Box)]) throws {
            try write(nodeno, RTreeBulkLoader.node(nodeno, depth: depth, cells: cells, nodeSize: nodeSize))
        }

        func write(_ nodeno: Int64, _ node: [UInt8]) throws {
            try insertNode.run([.integer(nodeno), .blob(node)])
        }

        func parent(_ nodeno: Int64, of parent: Int64) throws {
            try insertParent.run([.integer(nodeno), .integer(parent)])
        }

        /// The `%_rowid` row of a point: its leaf, then x, y and code. Written in groups:
        /// `finishRowids` writes the last ones.
        func rowid(_ p: Point) throws {
            pending.append(p)
            guard pending.count == Self.rowsPerInsert else { return }
            try insertRowids.run { s throws(SQLiteError) in
                for k in pending.indices { try Self.bind(pending[k], to: s, after: Int32(5 * k)) }
            }
            pending.removeAll(keepingCapacity: true)
        }

        func finishRowids() throws {
            for p in pending {
                try insertRowid.run { s throws(SQLiteError) in try Self.bind(p, to: s, after: 0) }
            }
            pending.removeAll(keepingCapacity: true)
        }

        private static func bind(_ p: Point, to s: Statement, after o: Int32) throws(SQLiteError) {
            try s.bind(.integer(p.id), at: o + 1)
            try s.bind(.integer(Int64(p.leaf)), at: o + 2)
            try s.bind(.real(p.x), at: o + 3)
            try s.bind(.real(p.y), at: o + 4)
            try s.bind(p.hasCode ? .integer(p.code) : .null, at: o + 5)
        }
    }
}
