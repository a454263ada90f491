import Foundation
import GazetteerCore
import GazetteerSQLite
import GazetteerSupport

/// The POI search index (`poi_fts`) of a big import, built on the reading thread while the
/// importer's thread writes the rows, the other indexes and the R*Tree: FTS5's work (about a
/// quarter of the writing thread's) moves to the second core. It is built through a second
/// connection in a private temporary database (SQLite's own: the file is unlinked as soon as it
/// is opened, so nothing is left behind by a failure, Ctrl-C or a crash), with the target's own
/// `poi_fts` DDL and settings, and then copied, shadow table by shadow table, into the target
/// inside the import's transaction.
///
/// It holds the existing POIs (re-tokenized from the poi table, by the same `SearchTokens.index`
/// as new rows) and the new ones under the rowids they will get, counted on from the table's
/// highest: that holds only while every row is new and none is rejected after it was tokenized.
/// The importer checks each row's rowid and, at the first that differs, abandons this index and
/// goes on row by row (`ImportRun.leaveSidePath`).
final class SideSearchIndex: @unchecked Sendable {
    /// Average bytes of a POI row in a CSV file (Scripts/generate_pois.py's: 150.7), to estimate
    /// from the files' size how many rows an import adds.
    static let bytesPerRow = 150

    /// Whether an import of `fileBytes` of POIs into a table of `existing` POIs should build its
    /// search index aside: when the existing POIs are at most a quarter of the new ones. Every
    /// existing row is tokenized and indexed again (work the row-by-row path never does), and a
    /// quarter bounds that extra work at a quarter of the FTS5 work the writing thread is spared.
    static func pays(existing: Int, fileBytes: Int) -> Bool {
        existing * 4 <= fileBytes / bytesPerRow
    }

    private static let table = "poi_fts"

    private let db: Connection
    private let ddl: String
    private var insert: Statement?
    private var existing: [(rowid: Int64, name: String)]
    private var nextRowid: Int64
    private let abandoned = Locked(false)
    /// The first error of the side connection; the index then takes no more rows. Written by
    /// the thread that adds rows, read by the importer's once that thread is done.
    private(set) var failure: Error?
    private var finishing: Thread?
    private let finished = NSCondition()
    private var finishResult: Result<Void, Error>?

    /// - Parameters:
    ///   - target: the import's connection, inside its transaction: the index's DDL and
    ///     settings are read from it.
    ///   - existing: the POIs already in the table, rowid and name, in rowid order.
    ///   - firstNewRowid: the rowid the import's first new POI will get.
    init(like target: Connection, existing: [(rowid: Int64, name: String)], firstNewRowid: Int64) throws {
        guard case .text(let ddl) = try target.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(Self.table)]) else {
            throw SQLiteError(code: 1, message: "the database has no \(Self.table) table")
        }
        let settings = try target.cachedStatement("SELECT k, v FROM \(Self.table)_config WHERE k <> 'version'").rows { ($0.value(0), $0.value(1)) }
        self.ddl = ddl
        self.existing = existing
        nextRowid = firstNewRowid
        // "": a private temporary database, deleted when closed (its file unlinked at once).
        db = try Connection(path: "", mode: .readWrite)
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768")
        try db.execute(ddl)
        try db.execute("BEGIN")
        let set = try db.makeStatement("INSERT INTO \(Self.table) (\(Self.table), rank) VALUES (?, ?)")
        for (key, value) in settings { try set.run([key, value]) }
        // As the row-by-row bulk path sets the target's (Importer.execute): big flushes, no
        // merging while rows stream in; the default merging again at the end.
        try set.run(["hashsize", .integer(67_108_864)])
        try set.run(["automerge", .integer(0)])
        insert = try db.makeStatement("INSERT INTO \(Self.table) (rowid, grams, chars) VALUES (?, ?, ?)")
    }

    /// Indexes the existing POIs, once; called by the reading thread before its first row.
    func indexExisting() {
        let rows = existing
        existing = []
        for row in rows where !write(rowid: row.rowid, SearchTokens.index(row.name)) { return }
    }

    /// Indexes a new POI's tokens under the next rowid and returns that rowid; nil once the
    /// index failed or was abandoned. Called by the reading thread.
    func add(_ tokens: (grams: String, chars: String)) -> Int64? {
        guard !abandoned.withLock({ $0 }), write(rowid: nextRowid, tokens) else { return nil }
        nextRowid += 1
        return nextRowid - 1
    }

    private func write(rowid: Int64, _ tokens: (grams: String, chars: String)) -> Bool {
        guard failure == nil else { return false }
        do {
            try insert!.run { s throws(SQLiteError) in
                try s.bind(.integer(rowid), at: 1)
                try s.bind(.text(tokens.grams), at: 2)
                try s.bind(.text(tokens.chars), at: 3)
            }
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// Tells the reading thread to stop adding rows: the importer goes on row by row.
    func abandon() { abandoned.withLock { $0 = true } }

    /// Starts writing the index's last segment (FTS5's pending terms) on a thread of its own,
    /// so it overlaps the importer's index builds. Call once no thread adds rows any more.
    func startFinishing() {
        let thread = Thread { [self] in
            let result = Result { () throws in
                if let failure { throw failure }
                try db.execute("INSERT INTO \(Self.table) (\(Self.table), rank) VALUES ('automerge', 4); COMMIT")
            }
            finished.lock()
            finishResult = result
            finished.broadcast()
            finished.unlock()
        }
        finishing = thread
        thread.start()
    }

    /// Waits for the finishing thread, if one was started, and closes the side database (its
    /// temporary file goes with it). Call once no thread adds rows any more.
    func close() {
        if finishing != nil { _ = waitFinished() }
        insert = nil
        db.close()
    }

    var isOpen: Bool { db.isOpen }

    private func waitFinished() -> Result<Void, Error> {
        finished.lock()
        defer { finished.unlock() }
        while finishResult == nil { finished.wait() }
        return finishResult!
    }

    /// Replaces the target's `poi_fts` with this index, inside the target's open transaction.
    /// The table is dropped and made again from its own DDL (so no FTS5 state cached by the
    /// target's connection outlives the swap), then each shadow table is copied row for row.
    func copy(into target: Connection) throws {
        if finishing == nil { startFinishing() }
        try waitFinished().get()

        let shadows = "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '\(Self.table)!_%' ESCAPE '!' ORDER BY name"
        let tables = try db.makeStatement(shadows).rows { $0.text(0) }
        try target.execute("DROP TABLE \(Self.table)")
        try target.execute(ddl)
        let targetTables = try target.makeStatement(shadows).rows { $0.text(0) }
        guard targetTables == tables else {
            throw SQLiteError(code: 1, message: "\(Self.table)'s shadow tables differ between the side index and the database")
        }
        for table in tables {
            let rows = try db.makeStatement("SELECT * FROM \"\(table)\"")
            let columns = rows.columnCount
            let marks = Array(repeating: "?", count: Int(columns)).joined(separator: ", ")
            try target.execute("DELETE FROM \"\(table)\"")
            let write = try target.makeStatement("INSERT INTO \"\(table)\" VALUES (\(marks))")
            while try rows.step() {
                try write.run { s throws(SQLiteError) in
                    for i in 0..<columns { try s.bind(rows.value(i), at: i + 1) }
                }
            }
        }
    }
}
