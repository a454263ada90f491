import Foundation
import Testing
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// The contracts the SQLite layer holds instead of leaving them to its callers' care.
@Suite(.tags(.fast)) struct SQLiteContractTests {
    let file = TemporaryDatabase()

    func connection() throws -> Connection {
        let db = try Connection(path: file.path, mode: .readWrite)
        try db.execute("CREATE TABLE IF NOT EXISTS t (a, b)")
        return db
    }

    @Test func multiStatementSQLIsRefused() throws {
        let db = try connection()
        #expect(throws: SQLiteError.self) { try db.makeStatement("INSERT INTO t VALUES (1, 2); DROP TABLE t") }
        #expect(throws: SQLiteError.self) { try db.cachedStatement("SELECT 1; SELECT 2") }
        // Trailing blanks, semicolons and comments are not a second statement.
        _ = try db.makeStatement("SELECT 1; -- done\n  /* really */ ;")
        #expect(try db.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 't'") == .integer(1))
    }

    @Test func argumentCountIsChecked() throws {
        let db = try connection()
        let insert = try db.cachedStatement("INSERT INTO t VALUES (?, ?)")
        #expect(insert.parameterCount == 2)
        let tooFew = #expect(throws: SQLiteError.self) { try insert.run([1]) }
        #expect(tooFew?.code == .range)
        #expect(throws: SQLiteError.self) { try insert.run([1, 2, 3]) }
        #expect(throws: SQLiteError.self) { try insert.bind(named: [":x": 1]) }
        try insert.run([1, 2])
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
    }

    @Test func cachedStatementsAreReusedAndAFailedOneIsEvicted() throws {
        let db = try connection()
        let sql = "INSERT INTO u VALUES (?)"
        try db.execute("CREATE TABLE u (v UNIQUE)")
        let first = try db.cachedStatement(sql)
        #expect(try db.cachedStatement(sql) === first)
        #expect(try db.makeStatement(sql) !== first)
        try first.run([1])
        #expect(throws: SQLiteError.self) { try first.run([1]) } // UNIQUE fails
        #expect(try db.cachedStatement(sql) !== first)
    }

    @Test func readJoinsAnOpenTransactionAndEndsItsOwn() throws {
        let db = try connection()
        #expect(!db.isInTransaction)
        let inside = try db.read { db.isInTransaction }
        #expect(inside && !db.isInTransaction)
        // A throwing body still ends the transaction.
        struct Boom: Error {}
        #expect(throws: Boom.self) { try db.read { throw Boom() } }
        #expect(!db.isInTransaction)
        try db.savepoint {
            try db.execute("INSERT INTO t VALUES (1, 1)")
            try db.read { #expect(db.isInTransaction) }
            #expect(db.isInTransaction) // read did not end the write transaction it joined
        }
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
    }

    @Test func innerSavepointRollsBackAloneAndOuterCommits() throws {
        let db = try connection()
        struct Boom: Error {}
        try db.savepoint {
            try db.execute("INSERT INTO t VALUES ('outer', 0)")
            #expect(throws: Boom.self) {
                try db.savepoint {
                    try db.execute("INSERT INTO t VALUES ('inner', 0)")
                    throw Boom()
                }
            }
        }
        #expect(try db.cachedStatement("SELECT a FROM t").rows { $0.text(0) } == ["outer"])
        #expect(throws: Boom.self) {
            try db.savepoint {
                try db.execute("INSERT INTO t VALUES ('lost', 0)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
        #expect(!db.isInTransaction)
    }

    @Test func poolIsBoundedAndNeverLendsAConnectionInsideATransaction() throws {
        _ = try connection()
        let path = file.path
        let opened = Locked(0)
        let pool = try ConnectionPool(capacity: 2) {
            opened.withLock { $0 += 1 }
            return try Connection(path: path, mode: .readOnly)
        }
        // A body that leaves its transaction open (as a failed COMMIT would) does not pass it on.
        try pool.withConnection { db in try db.execute("BEGIN; SELECT count(*) FROM t") }
        try pool.withConnection { db in #expect(!db.isInTransaction) }
        // Many callers at once never hold more than `capacity` connections.
        let most = Locked((now: 0, max: 0))
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            try? pool.withConnection { db in
                most.withLock { $0.now += 1; $0.max = max($0.max, $0.now) }
                _ = try db.scalar("SELECT count(*) FROM t")
                usleep(2_000)
                most.withLock { $0.now -= 1 }
            }
        }
        #expect(most.withLock { $0.max } <= 2)
        #expect(pool.openCount <= 2)
        #expect(opened.withLock { $0 } <= 3) // the first, and at most one reopened after the leak
    }
}
