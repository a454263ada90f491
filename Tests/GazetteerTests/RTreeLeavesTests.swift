import Foundation
import Testing
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// `RTreeLeaves`: an R*Tree's rows read from its node blobs, as the virtual table gives them.
@Suite(.tags(.fast)) struct RTreeLeavesTests {
    let file = TemporaryDatabase()

    /// An R*Tree SQLite grew and shrank row by row (node numbers with gaps, in no order) reads
    /// the same rows from its nodes as through the virtual table; a node of another size is
    /// refused rather than half read.
    @Test(arguments: [1, 3, 8])
    func aTreeWithGapsReadsItsRowsAndAnOddNodeIsRefused(pieces: Int) throws {
        let db = try Connection(path: file.path, mode: .readWrite)
        try db.execute("CREATE VIRTUAL TABLE boxes USING rtree(id, min_x, max_x, min_y, max_y)")
        let insert = try db.cachedStatement("INSERT INTO boxes VALUES (?, ?, ?, ?, ?)")
        var state: UInt64 = 7
        try db.execute("BEGIN")
        for id in 1...6_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let x = Double(state >> 40) / 1e4, y = Double(state >> 44 & 0xFFFF) / 1e3
            try insert.run([.integer(Int64(id)), .real(x), .real(x + 0.01), .real(y), .real(y + 0.01)])
        }
        try db.execute("DELETE FROM boxes WHERE id % 3 = 0 OR id BETWEEN 1000 AND 3000")
        try db.execute("COMMIT")
        #expect(try db.scalar("SELECT max(nodeno) > count(*) FROM boxes_node") == .integer(1))
        let rows = try db.makeStatement("SELECT id, min_x, max_x, min_y, max_y FROM boxes").rows { s in
            [Float(s.int64(0))] + (1...4).map { Float(s.double(Int32($0))) }
        }
        let read = try #require(try RTreeLeaves.entries(db, table: "boxes", pieces: pieces))
        let fromNodes = read.ids.indices.map { [Float(read.ids[$0])] + read.boxes[(4 * $0)..<(4 * $0 + 4)] }
        func order(_ a: [Float], _ b: [Float]) -> Bool { a.lexicographicallyPrecedes(b) }
        #expect(rows.count == (1...6_000).filter { $0 % 3 != 0 && !(1_000...3_000).contains($0) }.count)
        #expect(fromNodes.sorted(by: order) == rows.sorted(by: order))
        try db.execute("UPDATE boxes_node SET data = data || x'00' WHERE nodeno = (SELECT max(nodeno) FROM boxes_node)")
        #expect(try RTreeLeaves.entries(db, table: "boxes", pieces: pieces) == nil)
    }
}
