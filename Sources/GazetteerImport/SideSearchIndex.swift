import Foundation
import GazetteerCore
import GazetteerSQLite

/// The POI search index (`poi_fts`) of a big import, built on a thread of its own while the
/// importer's thread writes the rows, the other indexes and the R*Tree: FTS5's work (about a
/// third of the writing thread's) moves off the critical path. The reading thread hands each
/// POI's name over in batches (one buffer each), and the index thread tokenizes them; it may lag
/// behind the rows (up to `capacity` batches) and catch up while the importer builds the other
/// indexes. A row whose tokens FTS5's tokenizer would give back unchanged (nearly every Chinese
/// name) does not go through FTS5: its postings are sorted in `SearchPostings` and written as
/// segments of FTS5's own format (`FTS5SegmentWriter`), which skips FTS5's pending hash, where
/// most of its time went; the others are inserted into the table, their tokens bound as they
/// are, and both kinds of segment end up in one structure record. It is built through a
/// second connection in a private temporary database (SQLite's own: the file is unlinked as soon
/// as it is opened, so nothing is left behind by a failure, Ctrl-C or a crash), with the target's
/// own `poi_fts` DDL and settings, and then copied, shadow table by shadow table, into the target
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
    /// The existing rows' names are held in memory while the index is built, so there are never
    /// more than `maxExisting` of them, however big the file (about 70 MB).
    static func pays(existing: Int, fileBytes: Int) -> Bool {
        existing <= maxExisting && existing * 4 <= fileBytes / bytesPerRow
    }

    static let maxExisting = 1_000_000

    private static let table = "poi_fts"
    private static let batchSize = 256
    /// Batches the index thread may lag behind (262,144 names, about 8 MB)...
    private static let capacity = 1_024
    /// ...and bytes of names: a name's length has no bound, and a batch is handed over early
    /// once its names pass a MiB.
    private static let capacityBytes = 64 << 20
    private static let batchBytes = 1 << 20

    /// The names of a run of new POIs, whose rowids follow on from `firstRowid`: one buffer, not
    /// a string each (made on the reading thread, freed on the index thread).
    private struct Names {
        var firstRowid: Int64 = 0
        var bytes: [UInt8] = []
        /// Where each name ends in `bytes`.
        var ends: [Int] = []

        var count: Int { ends.count }

        init() {
            bytes.reserveCapacity(SideSearchIndex.batchSize * 32)
            ends.reserveCapacity(SideSearchIndex.batchSize)
        }

        /// The bytes of the `k`th name.
        func name(_ k: Int, in all: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: all[(k == 0 ? 0 : ends[k - 1])..<ends[k]])
        }
    }

    private let db: Connection
    private let ddl: String
    private var insert: Statement?
    // Used by the reading thread only (by the importer's once no reading thread runs).
    private var nextRowid: Int64
    private var pending = Names()
    /// Set once a batch was refused (the index abandoned): no more rows are taken.
    private var refused = false

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var batches: [Names] = []
    private var queuedBytes = 0
    private var inputDone = false
    private var abandoned = false
    private var stopped = false
    private var workerDone = false
    // Used by the index thread only.
    /// The tokens of the name being indexed (`write`).
    private var grams: [UInt8] = []
    private var chars: [UInt8] = []
    /// How the index thread ended: committed, or the first error of the side connection.
    private var result: Result<Void, Error>?
    /// The rows whose tokens FTS5 would index unchanged, sorted here into segments of our own
    /// (`SearchPostings`); nil when this table's settings are not the ones that path writes.
    private var postings: SearchPostings?
    private let postingsAllowed: Bool
    private let pageSize: Int
    /// Bytes of postings held before they are written as a segment (FTS5's `hashsize` too).
    private let pendingBytes: Int
    /// The segments `postings` wrote, added to the structure record at the end. Their ids
    /// start here, far above those FTS5 gives its own segments in the meantime (the lowest free).
    private var ownSegments: [(id: Int, lastPage: Int)] = []
    private static let firstOwnSegment = 1_000

    /// - Parameters:
    ///   - target: the import's connection, inside its transaction: the index's DDL and
    ///     settings are read from it.
    ///   - existing: the POIs already in the table, rowid and name, in rowid order.
    ///   - firstNewRowid: the rowid the import's first new POI will get.
    ///   - pendingBytes: postings held before a segment is written (`ImportOptions`).
    init(like target: Connection, existing: [(rowid: Int64, name: String)], firstNewRowid: Int64, pendingBytes: Int = 64 << 20) throws {
        guard case .text(let ddl) = try target.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(Self.table)]) else {
            throw SQLiteError(code: 1, message: "the database has no \(Self.table) table")
        }
        let settings = try target.cachedStatement("SELECT k, v FROM \(Self.table)_config WHERE k <> 'version'").rows { ($0.value(0), $0.value(1)) }
        self.ddl = ddl
        self.pendingBytes = pendingBytes
        nextRowid = firstNewRowid
        // "": a private temporary database, deleted when closed (its file unlinked at once).
        db = try Connection(path: "", mode: .readWrite)
        // A small cache and no mapping: FTS5 writes each leaf page once, and the pages wait in the
        // file (the system's page cache) for the copy rather than in this process's memory.
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -4096; PRAGMA mmap_size = 0")
        try db.execute(ddl)
        try db.execute("BEGIN")
        let set = try db.makeStatement("INSERT INTO \(Self.table) (\(Self.table), rank) VALUES (?, ?)")
        for (key, value) in settings { try set.run([key, value]) }
        // As the row-by-row bulk path sets the target's (Importer.execute): big flushes, no
        // merging while rows stream in; the default merging again at the end.
        try set.run(["hashsize", .integer(Int64(pendingBytes))])
        try set.run(["automerge", .integer(0)])
        insert = try db.makeStatement("INSERT INTO \(Self.table) (rowid, grams, chars) VALUES (?, ?, ?)")
        postingsAllowed = try Self.segmentsCanBeOurs(db, ddl: ddl)
        if case .integer(let size) = try db.scalar("SELECT v FROM \(Self.table)_config WHERE k = 'pgsz'") { pageSize = Int(size) } else { pageSize = 4050 }
        Thread.detachNewThread { [self] in work(existing: existing) }
    }

    /// The tokenizer option `SearchPostings` writes for, exactly as schema.sql gives it.
    static let tokenize = "unicode61 remove_diacritics 0"

    /// What the linked SQLite's tokenizer keeps whole, asked once a process (a few tens of
    /// milliseconds), on a private temporary database of its own; nil if it cannot be asked.
    private static let probe: SearchTokenProbe? = {
        guard let db = try? Connection(path: "", mode: .readWrite) else { return nil }
        defer { db.close() }
        return try? SearchTokenProbe(connection: db, tokenize: tokenize)
    }()

    /// Whether segments written by `SearchPostings` are what FTS5 would write for this table:
    /// schema.sql's columns and options (detail=full, no prefix indexes), format version 4, and
    /// a structure record this code reads.
    private static func segmentsCanBeOurs(_ db: Connection, ddl: String) throws -> Bool {
        let options = ["content = ''", "columnsize = 0", "tokenize = '\(tokenize)'"]
        guard options.allSatisfy(ddl.contains), !["prefix", "detail", "contentless_delete"].contains(where: ddl.contains) else { return false }
        let columns = try db.makeStatement("SELECT name FROM pragma_table_info('\(table)')").rows { $0.text(0) }
        guard columns == ["grams", "chars"] else { return false }
        guard try db.scalar("SELECT v FROM \(table)_config WHERE k = 'version'") == .integer(4) else { return false }
        guard case .blob(let structure) = try db.scalar("SELECT block FROM \(table)_data WHERE id = ?", [.integer(FTS5Structure.recordID)]) else { return false }
        return FTS5Structure(structure) != nil
    }

    /// Takes a new POI's name for the next rowid and returns that rowid; nil once the index
    /// was abandoned. Called by the reading thread.
    func add(name: String) -> Int64? {
        if refused { return nil }
        let rowid = nextRowid
        if pending.count == 0 { pending.firstRowid = rowid }
        pending.bytes.append(contentsOf: name.utf8)
        pending.ends.append(pending.bytes.count)
        if pending.count == Self.batchSize || pending.bytes.count >= Self.batchBytes {
            guard hand(pending) else {
                refused = true
                pending = Names()
                return nil
            }
            pending = Names()
        }
        // Past Int64.max SQLite picks rowids at random: the count wraps, no rowid is the one
        // counted on, and the importer leaves this path (a rowid near the top crashed here).
        nextRowid &+= 1
        return rowid
    }

    /// Queues a batch for the index thread, waiting while it lags `capacity` batches behind;
    /// false once abandoned.
    private func hand(_ batch: Names) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while (batches.count >= Self.capacity || queuedBytes >= Self.capacityBytes) && !abandoned && !stopped { condition.wait() }
        if abandoned || stopped { return false }
        batches.append(batch)
        queuedBytes += batch.bytes.count
        condition.broadcast()
        return true
    }

    /// Tells the reading and index threads to stop: the importer goes on row by row.
    func abandon() {
        signal {
            abandoned = true
            batches.removeAll()
            queuedBytes = 0
        }
    }

    /// Changes the shared state under the lock and wakes every waiting thread.
    private func signal(_ change: () -> Void) {
        condition.lock()
        change()
        condition.broadcast()
        condition.unlock()
    }

    /// Says no more rows come: the index thread writes what is queued and then the index's last
    /// segment (FTS5's pending terms), overlapping the importer's index builds. Call once no
    /// reading thread runs.
    func finishInput() {
        if pending.count > 0 { _ = hand(pending) }
        pending = Names()
        signal { inputDone = true }
    }

    /// The index thread: the existing POIs first, then each batch as it comes; at the end of
    /// input, the commit. After an error it only drains the queue (the importer then sees the
    /// failure in `succeeded`).
    private func work(existing: [(rowid: Int64, name: String)]) {
        var failure: Error?
        if postingsAllowed, let probe = Self.probe {
            // Blocks of a sixteenth of the pending bytes (262,144 records, 4 MiB, by default): the runs
            // reach them in steps, and a block's sort stays within the cache.
            postings = SearchPostings(accepted: probe, blockRecords: min(1 << 20, max(1_024, pendingBytes / 16 / 16)))
        }
        do {
            for row in existing {
                var name = row.name
                try name.withUTF8 { name in try write(row.rowid, name: name) }
            }
        } catch { failure = error }
        while true {
            condition.lock()
            while batches.isEmpty && !inputDone && !abandoned && !stopped { condition.wait() }
            if abandoned || stopped || batches.isEmpty {
                let finish = !abandoned && !stopped
                condition.unlock()
                var outcome: Result<Void, Error> = failure.map { .failure($0) } ?? .success(())
                if finish, failure == nil {
                    outcome = Result {
                        if let postings, !postings.isEmpty { try writeOwnSegment(postings) }
                        try db.execute("INSERT INTO \(Self.table) (\(Self.table), rank) VALUES ('automerge', 4); COMMIT")
                        try addOwnSegments()
                    }
                }
                // Its buffers (tens of MB) need not live as long as this object.
                postings = nil
                signal {
                    result = outcome
                    workerDone = true
                }
                return
            }
            let batch = batches.removeFirst()
            queuedBytes -= batch.bytes.count
            condition.broadcast()
            condition.unlock()
            guard failure == nil else { continue }
            do {
                try batch.bytes.withUnsafeBufferPointer { all in
                    for k in 0..<batch.count { try write(batch.firstRowid &+ Int64(k), name: batch.name(k, in: all)) }
                }
            } catch { failure = error }
        }
    }

    /// Tokenizes a name and indexes it under `rowid`, its tokens bound from the index thread's
    /// two buffers as they are.
    private func write(_ rowid: Int64, name: UnsafeBufferPointer<UInt8>) throws {
        SearchTokens.index(utf8: name, grams: &grams, chars: &chars)
        if let postings, ownSegments.count < Self.firstOwnSegment - 1 {
            let taken = grams.withUnsafeBufferPointer { g in
                chars.withUnsafeBufferPointer { c in postings.add(rowid: rowid, grams: g, chars: c) }
            }
            if taken {
                if postings.runBytes >= pendingBytes { try writeOwnSegment(postings) }
                return
            }
        }
        let insert = insert!
        try grams.withUnsafeBufferPointer { grams in
            try chars.withUnsafeBufferPointer { chars in
                try insert.run { s throws(SQLiteError) in
                    try s.bind(.integer(rowid), at: 1)
                    try s.bind(uncopied: grams, at: 2)
                    try s.bind(uncopied: chars, at: 3)
                }
            }
        }
    }

    /// Writes what `postings` holds as a segment of the side table (not yet in its structure).
    private func writeOwnSegment(_ postings: SearchPostings) throws {
        let id = Self.firstOwnSegment + ownSegments.count
        let sink = try SideSegmentSink(db, table: Self.table)
        var writer = FTS5SegmentWriter(segid: id, pageSize: pageSize, sink: sink)
        try postings.writeSegment(&writer)
        let last = try writer.finish()
        if last > 0 { ownSegments.append((id, last)) }
    }

    /// After FTS5's commit: our segments into the structure record, our rows and tokens into
    /// the averages record. The side connection's FTS5 keeps the structure it read before, so
    /// nothing may go through its `poi_fts` after this (the copy reads the shadow tables).
    private func addOwnSegments() throws {
        guard let postings, postings.rows > 0 else { return }
        try db.execute("BEGIN")
        try Self.add(segments: ownSegments, rows: postings.rows, tokens: [postings.tokens.grams, postings.tokens.chars], to: db, table: Self.table)
        try db.execute("COMMIT")
    }

    /// Adds segments written outside FTS5 to `table`'s structure record, and their rows and
    /// tokens per column to its averages record, as FTS5 does when it flushes.
    static func add(segments: [(id: Int, lastPage: Int)], rows: Int64, tokens: [Int64], to db: Connection, table: String) throws {
        guard case .blob(let record) = try db.scalar("SELECT block FROM \(table)_data WHERE id = ?", [.integer(FTS5Structure.recordID)]),
              var structure = FTS5Structure(record), structure.ids.isDisjoint(with: segments.map(\.id)) else {
            throw SQLiteError(code: 1, message: "\(table): its structure record could not take the segments written aside")
        }
        // FTS5's default unless the table sets its own.
        var crisisMerge = 16
        if case .integer(let n) = try db.scalar("SELECT v FROM \(table)_config WHERE k = 'crisismerge'"), n > 1 { crisisMerge = Int(n) }
        for s in segments { structure.add(segment: s.id, lastPage: s.lastPage, crisisMerge: crisisMerge) }
        var stored: [UInt8]?
        if case .blob(let b) = try db.scalar("SELECT block FROM \(table)_data WHERE id = ?", [.integer(FTS5Averages.recordID)]) { stored = b }
        var averages = FTS5Averages(stored, columns: tokens.count)
        averages.rows += rows
        for i in tokens.indices { averages.tokens[i] += tokens[i] }
        let write = try db.makeStatement("REPLACE INTO \(table)_data (id, block) VALUES (?, ?)")
        try write.run([.integer(FTS5Structure.recordID), .blob(structure.record)])
        try write.run([.integer(FTS5Averages.recordID), .blob(averages.record)])
    }

    /// Whether the index thread has ended (`succeeded` would not wait).
    var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return workerDone
    }

    /// Waits for the index thread after `finishInput`: true when the index is complete.
    func succeeded() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !workerDone { condition.wait() }
        if case .success = result { return true }
        return false
    }

    /// Stops the index thread (after its commit, if it is finishing) and closes the side
    /// database; its temporary file goes with it. Call once no reading thread runs.
    func close() {
        signal { stopped = true }
        _ = succeeded()  // waits for the index thread to end
        insert = nil
        db.close()
    }

    var isOpen: Bool { db.isOpen }

    /// Replaces the target's `poi_fts` with this index, inside the target's open transaction.
    /// The table is dropped and made again from its own DDL (so no FTS5 state cached by the
    /// target's connection outlives the swap), then each shadow table is copied row for row.
    func copy(into target: Connection) throws {
        guard succeeded() else { throw SQLiteError(code: 1, message: "the side index is not complete") }

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

/// The side table's `%_data` and `%_idx`, written as FTS5 writes them.
struct SideSegmentSink: FTS5SegmentSink {
    let data: Statement
    let index: Statement

    init(_ db: Connection, table: String) throws {
        data = try db.cachedStatement("INSERT INTO \(table)_data (id, block) VALUES (?, ?)")
        index = try db.cachedStatement("INSERT INTO \(table)_idx (segid, term, pgno) VALUES (?, ?, ?)")
    }

    func writeData(id: Int64, block: UnsafeBufferPointer<UInt8>) throws {
        try data.run { s throws(SQLiteError) in
            try s.bind(.integer(id), at: 1)
            try s.bind(uncopiedBlob: block, at: 2)
        }
    }

    func writeIndex(segid: Int, term: UnsafeBufferPointer<UInt8>, page: Int64) throws {
        try index.run { s throws(SQLiteError) in
            try s.bind(.integer(Int64(segid)), at: 1)
            try s.bind(uncopiedBlob: term, at: 2)
            try s.bind(.integer(page), at: 3)
        }
    }
}
