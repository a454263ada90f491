import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct SQLiteLayerTests {
    let file = TemporaryDatabase()

    func connection() throws -> Connection { try Connection(path: file.path, mode: .readWrite) }

    @Test func bindingRoundTrips() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t (v)")
        let values: [SQLiteValue] = [
            .integer(Int64.max), .integer(Int64.min), .integer(0), .integer(-1),
            .real(3.141592653589793), .real(-0.0), .real(1e-300), .real(Double.greatestFiniteMagnitude),
            .null, .blob([]), .blob([0, 1, 2, 255, 0]), .text(""), .text("北京市东城区"),
            .text("emoji 🇨🇳👩‍👩‍👧 and NUL-free 𠀀 ext-B"), .text("quote ' \" ; DROP TABLE t; --"),
            .text("a\u{0}b"), .text("\u{0}"),
        ]
        let insert = try db.cachedStatement("INSERT INTO t (rowid, v) VALUES (?, ?)")
        for (i, v) in values.enumerated() { try insert.run([.integer(Int64(i)), v]) }
        let read = try db.cachedStatement("SELECT v FROM t ORDER BY rowid").rows { $0.value(0) }
        #expect(read == values)
        #expect(try db.scalar("SELECT typeof(v) FROM t WHERE rowid = 9") == .text("blob"))
        // Text is bound whole, a NUL inside it too, and empty text is text, not NULL.
        #expect(try db.scalar("SELECT length(CAST(v AS BLOB)) FROM t WHERE rowid = 15") == .integer(3))
        #expect(try db.scalar("SELECT typeof(v) FROM t WHERE rowid = 11") == .text("text"))
    }

    /// Text bound without SQLite's copy reads back as bound: past the first block (so a
    /// row's earlier text must stay where it was), empty, NULL, with a NUL inside; and the
    /// statement then runs with ordinary bindings as before.
    @Test func textKeptOutsideSQLiteRoundTrips() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t (a, b, c, d)")
        let insert = try db.cachedStatement("INSERT INTO t (rowid, a, b, c, d) VALUES (?, ?, ?, ?, ?)")
        let text = BoundText(capacity: 16)
        let long = String(repeating: "浙江省杭州市西湖区", count: 40)
        let rows: [[String?]] = [
            ["甲", "", nil, "a\u{0}b"],
            ["short", long, "after the block grew", "🇨🇳"],
            [long, long + "!", "x", nil],
        ]
        for (i, row) in rows.enumerated() {
            try insert.run(text) { s throws(SQLiteError) in
                try s.bind(.integer(Int64(i)), at: 1)
                for (k, v) in row.enumerated() { try s.bind(v, at: Int32(k + 2), keptIn: text) }
            }
        }
        try insert.run([.integer(3), .text("plain"), .null, .integer(7), .real(0.5)])
        let read = try db.cachedStatement("SELECT a, b, c, d FROM t ORDER BY rowid").rows { $0.values(4) }
        let expected: [[SQLiteValue]] = rows.map { $0.map { $0.map(SQLiteValue.text) ?? .null } }
            + [[.text("plain"), .null, .integer(7), .real(0.5)]]
        #expect(read == expected)
        #expect(try db.scalar("SELECT typeof(b) FROM t WHERE rowid = 0") == .text("text"))
    }

    @Test func bindByName() throws {
        let db = try connection()
        let s = try db.cachedStatement("SELECT :a || '-' || @b, $c + 1")
        try s.bind(named: [":a": "甲", "@b": .text("乙"), "$c": .integer(41)])
        #expect(try s.step())
        #expect(s.text(0) == "甲-乙")
        #expect(s.int(1) == 42)
        #expect(throws: SQLiteError.self) { try s.bind(named: [":missing": 1]) }
    }

    @Test func statementsAreCachedAndReusable() throws {
        let db = try connection()
        let a = try db.cachedStatement("SELECT ? * 2")
        let b = try db.cachedStatement("SELECT ? * 2")
        #expect(a === b)
        for i in 0..<100 {
            #expect(try a.first([.integer(Int64(i))]) { $0.int(0) } == i * 2)
        }
        // A statement left mid-iteration is reset by the next bind.
        try db.execute("CREATE TABLE n (x); INSERT INTO n VALUES (1), (2), (3)")
        let s = try db.cachedStatement("SELECT x FROM n ORDER BY x")
        try s.bind([])
        #expect(try s.step())
        #expect(try s.rows { $0.int(0) } == [1, 2, 3])
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let db = try connection()
        try db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)")
        try db.cachedStatement("INSERT INTO u VALUES (?)").run(["x"])
        let duplicate = #expect(throws: SQLiteError.self) {
            try db.cachedStatement("INSERT INTO u VALUES (?)").run(["x"])
        }
        #expect(duplicate?.code == SQLiteError.Code(rawValue: 1555)) // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(duplicate?.code.primary == .constraint)
        #expect(duplicate.map { SQLiteError.Code.constraint ~= $0.code } == true)
        #expect(duplicate.map { SQLiteError.Code.busy ~= $0.code } == false)
        #expect(duplicate?.message.contains("UNIQUE constraint failed") == true)
        #expect(duplicate?.sql == "INSERT INTO u VALUES (?)")

        let syntax = #expect(throws: SQLiteError.self) { _ = try db.cachedStatement("SELEC nonsense") }
        #expect(syntax?.code == .error)
        #expect(syntax?.sql == "SELEC nonsense")
        #expect(syntax?.description.contains("syntax error") == true)
    }

    @Test func transactionCommitsAndRollsBack() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t (x)")
        try db.savepoint { try db.execute("INSERT INTO t VALUES (1)") }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.savepoint {
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT group_concat(x) FROM t") == .text("1"))
        // Nested: an inner failure rolls back only the savepoint.
        try db.savepoint {
            try db.execute("INSERT INTO t VALUES (3)")
            _ = try? db.savepoint {
                try db.execute("INSERT INTO t VALUES (4)")
                throw Boom()
            }
            try db.execute("INSERT INTO t VALUES (5)")
        }
        #expect(try db.scalar("SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)") == .text("1,3,5"))
    }

    @Test func connectionSettings() throws {
        let db = try connection()
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try db.scalar("PRAGMA foreign_keys") == .integer(1))
        try Connection.checkFeatures()
        let readOnly = try Connection(path: file.path, mode: .readOnly)
        let error = #expect(throws: SQLiteError.self) { try readOnly.execute("CREATE TABLE nope (x)") }
        #expect(error?.code.primary == .readOnly)
    }
}
