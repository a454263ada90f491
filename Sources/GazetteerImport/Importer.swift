import Foundation
import GazetteerCore
import GazetteerSQLite

/// Loads CSV files (docs/csv-formats.md) into a gazetteer database: regions first, then
/// boundaries, then POIs, whatever order they are named in. Everything happens in one
/// transaction with the R*Tree and FTS5 indexes, so an import either lands whole or leaves
/// the database exactly as it was (unless `skipInvalid` asks to set bad rows aside).
public final class Importer {
    public let path: String
    /// Opened anew after an import by copy (`ImportCopy`) replaced the file.
    private(set) var db: Connection
    /// How the last `importFiles` call built the POI search index, and its side index if it
    /// made one (for tests).
    private(set) var lastSearchIndexPath = SearchIndexPath.rowByRow
    private(set) var lastSideIndex: SideSearchIndex?
    /// Whether the last `importFiles` call wrote into a copy renamed over the database (for tests).
    private(set) var lastImportedByCopy = false
    /// How many POIs the last `importFiles` call inserted many to a statement (for tests).
    private(set) var lastRowsInsertedTogether = 0

    /// Opens (creating if needed) the database at `path` for writing.
    public init(path: String) throws(GazetteerError) {
        self.path = path
        db = try Schema.open(path: path, mode: .readWrite)
    }

    /// The CSV files named by `paths`: files as given, folders by their `*.csv` files (sorted).
    public static func expand(_ paths: [String]) throws(ImportError) -> [String] {
        var files: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead("no such file or folder"))
            }
            if isDirectory.boolValue {
                let names = (try? fm.contentsOfDirectory(atPath: path)) ?? []
                let csvs = names.filter { $0.lowercased().hasSuffix(".csv") }.sorted()
                if csvs.isEmpty {
                    throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead("the folder holds no .csv files"))
                }
                files += csvs.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Imports `paths` (files or folders).
    ///
    /// - Throws: `ImportFailure` listing the bad rows (nothing changed), `ImportError` for a
    ///   file that cannot be read at all, or `GazetteerError` for a database problem.
    public func importFiles(
        _ paths: [String], options: ImportOptions = ImportOptions(),
        progress: ((ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        let started = Date()
        let files = try Importer.expand(paths)
        var tables = try Self.tables(files, options: options)
        lastImportedByCopy = false
        if wantsCopy(options: options, tables: tables) {
            // Each connection on the file holds a shared lock, this one's too.
            db.close()
            let copy = ImportCopy.begin(path: path, waitMilliseconds: options.exclusiveWaitMilliseconds / 3)
            if let copy {
                var summary: ImportSummary
                let installed: Bool
                do {
                    summary = try run(into: copy.db, files: files, tables: tables, options: options, progress: progress, started: started)
                    installed = try copy.install(waitMilliseconds: options.exclusiveWaitMilliseconds, beforeLock: options.beforeExclusiveLock)
                } catch {
                    copy.discard()
                    db = try Schema.open(path: path, mode: .readWrite)
                    throw error
                }
                db = try Schema.open(path: path, mode: .readWrite)
                if installed {
                    lastImportedByCopy = true
                    summary.seconds = Date().timeIntervalSince(started)
                    return summary
                }
                // Someone kept the file open or wrote to it meanwhile: the copy is gone, and
                // the import runs again, the usual way (the files read anew).
                tables = try Self.tables(files, options: options)
            } else {
                db = try Schema.open(path: path, mode: .readWrite)
            }
        }
        var summary = try run(into: db, files: files, tables: tables, options: options, progress: progress, started: started)
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// The files' tables, every header read before anything is written (a wrong file fails at
    /// once), in the order they are imported.
    private static func tables(_ files: [String], options: ImportOptions) throws -> [CSVTable] {
        var tables: [CSVTable] = []
        for file in files { tables.append(try CSVTable(path: file, encoding: options.encoding)) }
        tables.sort { ($0.format, $0.path) < ($1.format, $1.path) }
        return tables
    }

    /// Imports `tables` into `target` in one transaction.
    private func run(
        into target: Connection, files: [String], tables: [CSVTable], options: ImportOptions,
        progress: ((ImportProgress) -> Void)?, started: Date
    ) throws -> ImportSummary {
        let run = ImportRun(db: target, options: options, tables: tables, progress: progress, started: started)
        defer { (lastSearchIndexPath, lastSideIndex, lastRowsInsertedTogether) = (run.searchIndexPath, run.side, run.insertedTogether) }
        do {
            try target.execute("PRAGMA cache_size = \(ImportRun.pageCache)")
            let summary = try target.savepoint { () throws -> ImportSummary in
                try run.execute()
                try run.finish(sources: options.datasetSources ?? files.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))
                return run.summary
            }
            try? target.execute("PRAGMA optimize")
            return summary
        } catch let error as SQLiteError {
            run.discardRejects()
            throw Schema.map(error, path: path)
        } catch {
            run.discardRejects()
            throw error
        }
    }

    /// Whether to import into a copy of the database (`ImportCopy`), when that pays; else the
    /// usual way, in the database's own WAL transaction.
    private func wantsCopy(options: ImportOptions, tables: [CSVTable]) -> Bool {
        switch options.importByCopy {
        case .never: return false
        case .always: return true
        case .whenItPays:
            let poiBytes = tables.filter { $0.format == .pois }.reduce(0) { $0 + $1.reader.fileSize }
            return ImportCopy.pays(path: path, poiBytes: poiBytes, bulkBytes: options.bulkIndexBytes)
        }
    }
}

/// How an import wrote the POI search index.
enum SearchIndexPath: Equatable {
    /// Row by row through the import's connection.
    case rowByRow
    /// Built aside on the reading thread and copied in (`SideSearchIndex`).
    case aside
    /// Begun aside, then row by row from a row on whose rowid the side index could not count.
    case abandoned
}

/// The state of one import while it runs.
private final class ImportRun {
    let db: Connection
    let options: ImportOptions
    let tables: [CSVTable]
    let progress: ((ImportProgress) -> Void)?
    let started: Date
    var summary = ImportSummary()
    var errors: [ImportError] = []
    var omittedErrors = 0
    var rejects: RejectWriter?
    var rowsRead = 0
    var bytesBefore = 0
    let bytesTotal: Int
    var lastReport = Date.distantPast
    /// Every region code with its level, for checking references from POIs.
    var regionLevels: [Int64: RegionLevel] = [:]
    /// POI rows with a rowid above this were inserted by this import.
    var poiMark: Int64 = 0
    /// The poi table's highest rowid, which the next row inserted gets plus one.
    var highestRowid: Int64 = 0
    /// POIs inserted many to a statement (`insertGroup`).
    var insertedTogether = 0
    /// Whether the POI indexes are built after the rows (see `ImportOptions.bulkIndexBytes`).
    /// The index definitions recreated then must match schema.sql.
    var bulk = false
    /// The search index built aside, if this import made one; in use while `searchIndexPath`
    /// is `.aside`.
    var side: SideSearchIndex?
    var searchIndexPath = SearchIndexPath.rowByRow
    var buildsAside: Bool { searchIndexPath == .aside }
    /// The R*Tree points of the poi table in a bulk import: the rows before it and those it
    /// inserted, as written (nil once a row was updated, or when there are more than can be
    /// sorted in memory).
    var keptPoints: [RTreeBulkLoader.Point]?
    /// Whether poi_fts got the bulk settings (big flushes, no merging) in this import.
    var ftsInBulk = false

    /// Category codes already offered to the category table by this import.
    /// (By number: a code is six digits, so the number stands for the text and hashes faster.)
    var categoriesOffered: Set<Int64> = []

    /// Places POIs that come without district or town; made once the regions are in.
    var locator: RegionLocator?

    /// The text of the row being written, bound without SQLite's copy of each field.
    let boundText = BoundText()

    init(db: Connection, options: ImportOptions, tables: [CSVTable], progress: ((ImportProgress) -> Void)?, started: Date) {
        self.db = db
        self.options = options
        self.tables = tables
        self.progress = progress
        self.started = started
        bytesTotal = tables.reduce(0) { $0 + $1.reader.fileSize }
    }

    func execute() throws {
        if options.replace { try clear() }
        try importRegions(tables.filter { $0.format == .regions })
        for table in tables where table.format == .boundaries { try importBoundaries(table) }
        let poiTables = tables.filter { $0.format == .pois }
        if !poiTables.isEmpty {
            if case .integer(let m) = try db.scalar("SELECT coalesce(max(rowid), 0) FROM poi") { (poiMark, highestRowid) = (m, m) }
            try db.execute("CREATE TEMP TABLE IF NOT EXISTS import_touched (rowid INTEGER PRIMARY KEY); DELETE FROM import_touched")
            regionLevels = Dictionary(uniqueKeysWithValues: try db.cachedStatement("SELECT code, level FROM region").rows {
                ($0.int64(0), RegionLevel(rawValue: $0.int(1)) ?? .town)
            })
            // A big file is cheaper to index after the fact than row by row. (Small ones change
            // nothing they need not: re-importing an unchanged file writes no byte.)
            let poiBytes = poiTables.reduce(0) { $0 + $1.reader.fileSize }
            bulk = poiBytes > options.bulkIndexBytes
            if bulk {
                try db.execute("DROP INDEX IF EXISTS poi_name; DROP INDEX IF EXISTS poi_adcode")
                try keepPoints(poiBytes: poiBytes)
                side = try makeSideIndex(poiBytes: poiBytes)
                if side == nil { try bulkFTSSettings() }
            }
            // Every reading thread has stopped by then (`importPOIs`).
            defer { side?.close() }
            defer { if ftsInBulk { try? db.execute("INSERT INTO poi_fts (poi_fts, rank) VALUES ('automerge', 4)") } }
            for table in poiTables { try importPOIs(table) }
            if bulk {
                if buildsAside { side?.finishInput() }
                let arranging = try arrangePOITree()
                try createPOIIndexes()
                try rebuildPOITree(arranged: arranging?.wait())
                if buildsAside, let side {
                    // Rather than wait idle for the search index, the pages the commit would
                    // write now (the index thread has the other core).
                    if !side.hasEnded { try db.writeChangedPages() }
                    // A side index that failed (its temporary file could not grow) is made up here.
                    if side.succeeded() { try side.copy(into: db) } else { try leaveSidePath() }
                }
            }
        }
        try failIfErrors()
        report(file: tables.last?.path ?? "", finished: true)
    }

    func finish(sources: String) throws {
        let set = try db.cachedStatement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        if let version = options.datasetVersion {
            try set.run(["dataset_version", .text(version)])
        } else if try db.scalar("SELECT value FROM meta WHERE key = 'dataset_version'") == .text("") {
            try set.run(["dataset_version", "custom"])
        }
        try set.run(["dataset_sources", .text(sources)])
        try set.run(["imported_at", .text(ISO8601DateFormatter().string(from: Date()))])
        // Readers holding cached regions compare this to know the data changed under them.
        let regionsChanged = [summary.regions, summary.boundaries].contains { $0.inserted + $0.updated > 0 } || options.replace
        let poisChanged = summary.pois.inserted + summary.pois.updated > 0 || options.replace
        if regionsChanged || poisChanged {
            let before = try RegionCache.dataGeneration(db)
            try db.execute("INSERT INTO meta (key, value) VALUES ('data_generation', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
            // In this transaction, so a failed import leaves them as they were.
            let after = try RegionCache.dataGeneration(db)
            // One cache for both: the boundaries the cells decode give the rows their areas.
            let regions = RegionCache()
            try StoredBatchCells.refresh(db, from: before, to: after, regionsChanged: regionsChanged, regions: regions)
            try StoredNameTable.refresh(db, from: before, to: after, regionsChanged: regionsChanged, regions: regions)
        }
        summary.rejectsPath = rejects?.path
        try rejects?.close()
    }

    func discardRejects() { try? rejects?.close() }

    private func clear() throws {
        try db.execute("""
            DELETE FROM poi; DELETE FROM poi_rtree; DELETE FROM category; INSERT INTO poi_fts (poi_fts) VALUES ('delete-all');
            UPDATE region SET parent = NULL; DELETE FROM region; DELETE FROM region_rtree;
            INSERT INTO region_fts (region_fts) VALUES ('delete-all');
            """)
    }

    // MARK: Errors and progress

    /// Records a row-level problem: with `skipInvalid` the row is set aside, otherwise the
    /// import fails once enough errors are collected (at the end of the phase at the latest).
    func reject(_ error: ImportError, fields: [String]?) throws {
        if options.skipInvalid {
            if rejects == nil { rejects = try RejectWriter(path: options.rejectsPath ?? "gazetteer-rejects.csv") }
            try rejects!.write(error, fields: fields ?? [])
            summary.rejected += 1
            return
        }
        if errors.count < options.maxErrors { errors.append(error) } else { omittedErrors += 1 }
        if errors.count >= options.maxErrors { throw ImportFailure(errors: errors, omitted: omittedErrors) }
    }

    func failIfErrors() throws {
        if !errors.isEmpty { throw ImportFailure(errors: errors, omitted: omittedErrors) }
    }

    func rowDone(_ table: CSVTable, bytes: Int? = nil) {
        rowsRead += 1
        if rowsRead & 1023 == 0 { report(file: table.path, bytes: bytes ?? table.reader.bytesRead) }
    }

    func report(file: String, bytes: Int = 0, finished: Bool = false) {
        guard let progress else { return }
        let now = Date()
        guard finished || now.timeIntervalSince(lastReport) >= 0.1 else { return }
        lastReport = now
        progress(ImportProgress(
            file: file, rows: rowsRead, bytesDone: finished ? bytesTotal : min(bytesTotal, bytesBefore + bytes),
            bytesTotal: bytesTotal, elapsedSeconds: now.timeIntervalSince(started), finished: finished))
    }

    // MARK: Regions

    /// Regions are few (tens of thousands), so they are read whole: parents can then be
    /// checked against the file and the database together, in any row order.
    private func importRegions(_ regionTables: [CSVTable]) throws {
        guard !regionTables.isEmpty else { return }
        struct Pending { var record: RegionRow; var file: String; var line: Int; var fields: [String] }
        var pending: [Pending] = []
        var seen: [Int64: (file: String, line: Int)] = [:]
        for table in regionTables {
            while let row = try table.next() {
                rowDone(table)
                do {
                    let record = try RegionRow(csv: row, coordinateSystem: options.coordinateSystem)
                    if let first = seen[record.code] {
                        throw row.error("code", .duplicateKey(String(record.code), firstLine: first.line, firstFile: first.file))
                    }
                    seen[record.code] = (table.path, row.line)
                    pending.append(Pending(record: record, file: table.path, line: row.line, fields: row.record.fields))
                } catch let error as ImportError {
                    try reject(error, fields: row.record.fields)
                }
            }
            bytesBefore += table.reader.fileSize
        }
        // Parents before children; a rejected parent takes its children with it.
        pending.sort { ($0.record.level, $0.record.code) < ($1.record.level, $1.record.code) }
        var accepted: [Int64: RegionLevel] = [:]
        let lookup = try db.cachedStatement("SELECT level FROM region WHERE code = ?")
        var valid: [Pending] = []
        for item in pending {
            let r = item.record
            if let parent = r.parent {
                var parentLevel = accepted[parent]
                if parentLevel == nil, seen[parent] == nil {
                    parentLevel = try lookup.first([.integer(parent)]) { RegionLevel(rawValue: $0.int(0)) } ?? nil
                }
                let problem: ImportError.Problem?
                if let parentLevel {
                    if let complaint = r.parentProblem(parentLevel: parentLevel) {
                        problem = .levelMismatch(complaint)
                    } else if !AdminCode(r.code).isWithin(AdminCode(parent), level: parentLevel) {
                        problem = .levelMismatch("code \(r.code) does not start with the digits of its parent \(parent)")
                    } else {
                        problem = nil
                    }
                } else if seen[parent] != nil {
                    problem = .unknownParent("parent \(parent) was rejected, so this region cannot be placed")
                } else {
                    problem = .unknownParent("parent \(parent) is neither in the imported files nor in the database")
                }
                if let problem {
                    try reject(ImportError(file: item.file, line: item.line, column: "parent", problem: problem), fields: item.fields)
                    continue
                }
            }
            accepted[r.code] = r.level
            valid.append(item)
        }
        try failIfErrors()
        for item in valid { try upsertRegion(item.record) }
    }

    private func upsertRegion(_ r: RegionRow) throws {
        let stored = try db.cachedStatement("SELECT \(RegionRow.columns) FROM region WHERE code = ?")
            .first([.integer(r.code)]) { RegionRow($0) }
        if let stored {
            // Compared as the row would stand once written (see `RegionRow.written(over:)`).
            if r.written(over: stored) == stored { summary.regions.unchanged += 1; return }
            try deleteRegionTokens(code: r.code)
            summary.regions.updated += 1
        } else {
            summary.regions.inserted += 1
        }
        try db.cachedStatement("""
            INSERT INTO region (\(RegionRow.writtenColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (code) DO UPDATE SET
                parent = excluded.parent, level = excluded.level, name = excluded.name,
                short_name = coalesce(excluded.short_name, region.short_name),
                pinyin = coalesce(excluded.pinyin, region.pinyin),
                citycode = coalesce(excluded.citycode, region.citycode),
                lng = coalesce(excluded.lng, region.lng), lat = coalesce(excluded.lat, region.lat),
                center_approx = CASE WHEN excluded.lng IS NULL THEN region.center_approx ELSE excluded.center_approx END,
                min_lng = coalesce(excluded.min_lng, region.min_lng), min_lat = coalesce(excluded.min_lat, region.min_lat),
                max_lng = coalesce(excluded.max_lng, region.max_lng), max_lat = coalesce(excluded.max_lat, region.max_lat)
            """).run(r.values)
        try insertRegionTokens(code: r.code)
        try syncRegionBox(code: r.code)
    }

    /// The tokens of a region as stored: written from, and deleted by, the same row, so the
    /// contentless index never drifts from the table.
    private func storedRegionTokens(code: Int64) throws -> [SQLiteValue]? {
        try db.cachedStatement("SELECT name, short_name, pinyin FROM region WHERE code = ?")
            .first([.integer(code)], { SearchTokens.regionRow(name: $0.text(0), shortName: $0.optionalText(1), pinyin: $0.optionalText(2)) })
    }

    private func insertRegionTokens(code: Int64) throws {
        guard let tokens = try storedRegionTokens(code: code) else { return }
        try db.cachedStatement("INSERT INTO region_fts (rowid, grams, chars, pinyin) VALUES (?, ?, ?, ?)").run([.integer(code)] + tokens)
    }

    /// Contentless FTS5 forgets text, so deleting means re-deriving the tokens once written.
    private func deleteRegionTokens(code: Int64) throws {
        guard let tokens = try storedRegionTokens(code: code) else { return }
        try db.cachedStatement("INSERT INTO region_fts (region_fts, rowid, grams, chars, pinyin) VALUES ('delete', ?, ?, ?, ?)")
            .run([.integer(code)] + tokens)
    }

    private func syncRegionBox(code: Int64) throws {
        try db.cachedStatement("DELETE FROM region_rtree WHERE id = ?").run([.integer(code)])
        try db.cachedStatement("""
            INSERT INTO region_rtree (id, min_lng, max_lng, min_lat, max_lat, level)
            SELECT code, min_lng, max_lng, min_lat, max_lat, level FROM region WHERE code = ? AND min_lng IS NOT NULL
            """).run([.integer(code)])
    }

    // MARK: Boundaries

    private func importBoundaries(_ table: CSVTable) throws {
        var seen: [Int64: Int] = [:]
        let current = try db.cachedStatement("SELECT boundary FROM region WHERE code = ?")
        while let row = try table.next() {
            rowDone(table)
            do {
                let record = try BoundaryRecord(row: row, coordinateSystem: options.coordinateSystem)
                if let first = seen[record.code] {
                    throw row.error("code", .duplicateKey(String(record.code), firstLine: first, firstFile: nil))
                }
                seen[record.code] = row.line
                guard let old = try current.first([.integer(record.code)], { $0.optionalBlob(0) }) else {
                    throw row.error("code", .unknownRegion("no region has code \(record.code); import its row in a regions file first"))
                }
                let blob = record.geometry.encoded()
                if old == blob { summary.boundaries.unchanged += 1; continue }
                if old == nil { summary.boundaries.inserted += 1 } else { summary.boundaries.updated += 1 }
                let b = record.geometry.boundingBox
                try db.cachedStatement("UPDATE region SET boundary = ?, min_lng = ?, min_lat = ?, max_lng = ?, max_lat = ? WHERE code = ?")
                    .run([.blob(blob), .real(b.minLongitude), .real(b.minLatitude), .real(b.maxLongitude), .real(b.maxLatitude), .integer(record.code)])
                try syncRegionBox(code: record.code)
            } catch let error as ImportError {
                try reject(error, fields: row.record.fields)
            }
        }
        bytesBefore += table.reader.fileSize
        try failIfErrors()
    }

    // MARK: POIs

    /// The statements that write POI rows.
    private struct POIStatements {
        /// A new id is inserted at once (one look-up of the id, in the insert); only an id
        /// already there goes on to be compared and updated.
        let insert: Statement
        /// `rowsPerInsert` rows at once, stopping at an id already there (see `insertGroup`).
        let insertGroup: Statement?
        let find: Statement
        let touch: Statement

        init(_ db: Connection, rowsPerInsert: Int) throws {
            let values = "(" + Array(repeating: "?", count: Int(POIRow.columnCount)).joined(separator: ", ") + ")"
            insert = try db.cachedStatement("INSERT INTO poi (\(POIRow.columns)) VALUES \(values) ON CONFLICT (id) DO NOTHING")
            insertGroup = rowsPerInsert < 2 ? nil : try db.cachedStatement("""
                INSERT OR FAIL INTO poi (\(POIRow.columns)) VALUES \(Array(repeating: values, count: rowsPerInsert).joined(separator: ", "))
                """)
            find = try db.cachedStatement("SELECT rowid, \(POIRow.columns) FROM poi WHERE id = ?")
            touch = try db.cachedStatement("INSERT OR IGNORE INTO import_touched (rowid) VALUES (?)")
        }
    }

    /// Rows waiting to be inserted together: their places in the batch and their records.
    private typealias Group = [(index: Int, record: POIRow)]

    private func importPOIs(_ table: CSVTable) throws {
        let perInsert = options.rowsPerInsert
        let statements = try POIStatements(db, rowsPerInsert: perInsert)
        // Read, parsed and tokenized on another thread; written here in file order.
        let parsed = ParsedPOIQueue(table: table, coordinateSystem: options.coordinateSystem, side: buildsAside ? side : nil)
        defer { parsed.stop() }
        var batch: [ParsedPOIQueue.Item] = []
        // A bulk import's rows, in groups (`writeGroup`); a small file's, one by one.
        var group: Group = []
        group.reserveCapacity(perInsert)
        while try parsed.next(into: &batch) {
            // By index: a copy of each item would retain and release all its strings.
            for i in batch.indices {
                rowDone(table, bytes: batch[i].bytesRead)
                let record: POIRow
                do {
                    var r = try batch[i].record.get()
                    try checkRegions(&r, row: batch[i].row)
                    try locate(&r)
                    record = r
                } catch let error as ImportError {
                    // The rows before it first: rowids, rejects and errors stay in file order.
                    try writeGroup(&group, batch, statements)
                    try rejectRow(error, batch, i)
                    continue
                }
                if bulk && perInsert > 1 {
                    group.append((i, record))
                    if group.count == perInsert { try writeGroup(&group, batch, statements) }
                } else {
                    try writeRow(record, batch, i, statements)
                }
            }
            // Before `next` hands the batch back.
            try writeGroup(&group, batch, statements)
        }
        bytesBefore += table.reader.fileSize
        try failIfErrors()
    }

    /// Writes the rows of `group` and empties it: with one statement when it is whole, as far
    /// as the first id already there; from there (or a group cut short) row by row.
    private func writeGroup(_ group: inout Group, _ batch: [ParsedPOIQueue.Item], _ statements: POIStatements) throws {
        guard !group.isEmpty else { return }
        defer { group.removeAll(keepingCapacity: true) }
        var together = 0
        if let insert = statements.insertGroup, group.count == options.rowsPerInsert {
            let first = highestRowid &+ 1  // unused when the rowids could run out (`insertGroup` inserts none)
            together = try insertGroup(group, insert)
            let aside = buildsAside
            // Indexed aside already, or (a rowid not the one counted on) by the catch-up, which
            // indexes every row written so far, these too.
            if aside, (0..<together).contains(where: { batch[group[$0].index].sideRowid != first + Int64($0) }) {
                try leaveSidePath()
            }
            for k in 0..<together {
                try inserted(group[k].record, rowid: first + Int64(k), tokens: aside ? nil : batch[group[k].index].tokens(of: group[k].record))
            }
        }
        for k in together..<group.count { try writeRow(group[k].record, batch, group[k].index, statements) }
    }

    /// Inserts the rows of `group` with one statement and returns how many went in: all, or
    /// those before the first whose id is there already, which `OR FAIL` keeps (none when the
    /// rowids could run out). Their rowids follow on from the table's highest. Not `OR ABORT`,
    /// which undoes the whole statement: that takes a statement savepoint, and FTS5 writes its
    /// pending terms out at every savepoint, so a search index written on this connection came
    /// out in a segment per group (a review measured imports into a big database 27 % slower).
    private func insertGroup(_ group: Group, _ insert: Statement) throws -> Int {
        // Each row gets the table's highest rowid plus one, while there is one.
        guard highestRowid <= Int64.max - Int64(group.count) else { return 0 }
        let text = boundText
        var failed = false
        do throws(SQLiteError) {
            try insert.run(text) { s throws(SQLiteError) in
                for k in group.indices { try group[k].record.bind(to: s, after: Int32(k) * POIRow.columnCount, keeping: text) }
            }
        } catch {
            guard .constraint ~= error.code else { throw error }
            failed = true
        }
        guard case .integer(let highest) = try db.scalar("SELECT coalesce(max(rowid), 0) FROM poi"),
              highest >= highestRowid, highest - highestRowid <= Int64(group.count), failed || highest - highestRowid == Int64(group.count) else {
            throw SQLiteError(code: 1, message: "poi: rows inserted together did not get the rowids that follow on from the highest")
        }
        let count = Int(highest - highestRowid)
        insertedTogether += count
        return count
    }

    /// Writes one row: inserted if its id is new, else compared with the stored row and
    /// updated if it changed.
    private func writeRow(_ record: POIRow, _ batch: [ParsedPOIQueue.Item], _ i: Int, _ statements: POIStatements) throws {
        do {
            try statements.insert.run(boundText) { s throws(SQLiteError) in try record.bind(to: s, keeping: boundText) }
            if db.changes > 0 {
                let rowid = db.lastInsertRowID
                var indexed = false
                if buildsAside {
                    // Indexed aside already, or (rowid not the one counted on) by the catch-up,
                    // which indexes the rows above the mark: not a rowid SQLite picked at random
                    // once the highest possible was taken.
                    if batch[i].sideRowid != rowid {
                        try leaveSidePath()
                        indexed = rowid > poiMark
                    } else {
                        indexed = true
                    }
                }
                try inserted(record, rowid: rowid, tokens: indexed ? nil : batch[i].tokens(of: record))
                return
            }
            // An id already there: from here on rowids are no longer the ones counted on.
            if buildsAside { try leaveSidePath() }
            let row = batch[i].row
            if let (rowid, stored) = try statements.find.first([.text(record.id)], { s in (s.int64(0), POIRow(s, offset: 1)) }) {
                if rowid > poiMark {
                    throw row.error("id", .duplicateKey(record.id, firstLine: nil, firstFile: nil))
                }
                try statements.touch.run([.integer(rowid)])
                if db.changes == 0 { throw row.error("id", .duplicateKey(record.id, firstLine: nil, firstFile: nil)) }
                if stored == record { summary.pois.unchanged += 1; return }
                summary.pois.updated += 1
                // Its point moves: the tree is read from the table instead.
                keptPoints = nil
                try db.cachedStatement("INSERT INTO poi_fts (poi_fts, rowid, grams, chars) VALUES ('delete', ?, ?, ?)")
                    .run([.integer(rowid)] + SearchTokens.poiRow(name: stored.name))
                try db.cachedStatement("""
                    UPDATE poi SET name = ?2, type = ?3, typecode = ?4, address = ?5, phone = ?6, lng = ?7, lat = ?8,
                                   adcode = ?9, towncode = ?10 WHERE rowid = ?11 AND id = ?1
                    """).run(record.values + [.integer(rowid)])
                if !bulk { try db.cachedStatement("DELETE FROM poi_rtree WHERE id = ?").run([.integer(rowid)]) }
                try insertPOIIndexes(rowid: rowid, record, tokens: batch[i].tokens(of: record))
            }
        } catch let error as ImportError {
            try rejectRow(error, batch, i)
        }
    }

    /// A new row's bookkeeping and indexes. `tokens`: nil when it is in the search index already.
    private func inserted(_ record: POIRow, rowid: Int64, tokens: (grams: String, chars: String)?) throws {
        summary.pois.inserted += 1
        highestRowid = max(highestRowid, rowid)
        keepPoint(rowid: rowid, record)
        try insertPOIIndexes(rowid: rowid, record, tokens: tokens)
    }

    private func rejectRow(_ error: ImportError, _ batch: [ParsedPOIQueue.Item], _ i: Int) throws {
        // A row indexed aside but not written shifts every later rowid.
        if buildsAside, batch[i].sideRowid != nil { try leaveSidePath() }
        try reject(error, fields: batch[i].row.record.fields)
    }

    /// Builds the poi table's two indexes (dropped for a bulk import), their sorting on
    /// SQLite's helper threads. SQLite's sorter hands a run of rows to a helper thread only
    /// when it passes the page cache's size (128 MiB here, where both sorts fit whole and
    /// were sorted on this thread): with a 2 MiB cache for the builds, runs of 2 MiB are sorted
    /// on the other core while this thread reads on, and then merged (with 8 MiB more of the
    /// sort stayed on this thread: 1.49–1.56 s for the two builds of 1M rows, against 1.30–1.40 s).
    private func createPOIIndexes() throws {
        try db.execute("PRAGMA threads = 2; PRAGMA cache_size = -2048")
        defer { try? db.execute("PRAGMA threads = 0; PRAGMA cache_size = \(Self.pageCache)") }
        try db.execute("CREATE INDEX poi_name ON poi (name); CREATE INDEX poi_adcode ON poi (adcode)")
    }

    /// The import's page cache (PRAGMA cache_size: 128 MiB).
    static let pageCache = -131_072

    /// The R*Tree's point columns of the poi table.
    private static let treePoints = "SELECT rowid, lng, lat, CAST(typecode AS INTEGER) FROM poi"

    /// Rebuilds the POI R*Tree from the poi table, packed (see `RTreeBulkLoader`); from the
    /// points `arrangePOITree` sorted when there are any, which are then all the table's: the
    /// rows there before and every row inserted since (an update drops them). Counting the
    /// table to make sure read all of it again, a tenth of this thread's work after the rows.
    private func rebuildPOITree(arranged: RTreeBulkLoader.Arrangement?) throws {
        let tree = RTreeBulkLoader(db: db, table: "poi_rtree")
        if let arranged { return try tree.load(arranged) }
        let (count, low, high) = try db.cachedStatement("SELECT count(*), coalesce(min(rowid), 0), coalesce(max(rowid), 0) FROM poi")
            .first([]) { ($0.int64(0), $0.int64(1), $0.int64(2)) } ?? (0, 0, 0)
        try tree.load(select: Self.treePoints, count: Int(count), ids: low...max(low, high), inMemoryPoints: options.rtreeInMemoryPoints)
    }

    /// Starts sorting the R*Tree's points on another thread, to overlap the index builds.
    /// Nil when they were not kept (a row updated, or too many to sort in memory).
    private func arrangePOITree() throws -> OnOtherThread<RTreeBulkLoader.Arrangement>? {
        guard let points = keptPoints.take() else { return nil }
        let nodeSize = try RTreeBulkLoader(db: db, table: "poi_rtree").nodeSize()
        return OnOtherThread(handing: points) { RTreeBulkLoader.arrange(&$0, nodeSize: nodeSize) }
    }

    /// Starts keeping the R*Tree's points for `arrangePOITree`: those of the rows already
    /// there, read now, then each new row's as it is written (all in rowid order).
    private func keepPoints(poiBytes: Int) throws {
        var points: [RTreeBulkLoader.Point] = []
        points.reserveCapacity(min(poiBytes / SideSearchIndex.bytesPerRow + 4_096, options.rtreeInMemoryPoints))
        let before = try db.makeStatement("\(Self.treePoints) ORDER BY rowid")
        try before.bind([])
        defer { before.reset() }
        while try before.step() {
            guard points.count < options.rtreeInMemoryPoints else { return }
            points.append(RTreeBulkLoader.Point(before))
        }
        keptPoints = points
    }

    /// Keeps a new row's R*Tree point for `arrangePOITree`, while they stay few enough to sort
    /// in memory.
    private func keepPoint(rowid: Int64, _ poi: POIRow) {
        guard keptPoints != nil else { return }
        guard keptPoints!.count < options.rtreeInMemoryPoints else { keptPoints = nil; return }
        keptPoints!.append(RTreeBulkLoader.Point(id: rowid, x: poi.location.longitude, y: poi.location.latitude, code: poi.typecodeNumber))
    }

    /// - Parameter tokens: `SearchTokens.index(poi.name)`; nil when the row is in the search
    ///   index already.
    private func insertPOIIndexes(rowid: Int64, _ poi: POIRow, tokens: (grams: String, chars: String)?) throws {
        if let tokens { try insertPOITokens(rowid: rowid, tokens) }
        let typecode = poi.typecodeNumber
        // The first type given for a code stays (INSERT OR IGNORE): a code met before in this
        // import need not be offered again.
        if let number = typecode, let type = poi.type, let code = poi.typecode, categoriesOffered.insert(number).inserted {
            try db.cachedStatement("INSERT OR IGNORE INTO category (typecode, type) VALUES (?, ?)").run([.text(code), .text(type)])
        }
        if bulk { return }
        try db.cachedStatement("INSERT INTO poi_rtree (id, min_lng, max_lng, min_lat, max_lat, lng, lat, typecode) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            .run([.integer(rowid), .real(poi.location.longitude), .real(poi.location.longitude), .real(poi.location.latitude),
                  .real(poi.location.latitude), .real(poi.location.longitude), .real(poi.location.latitude), .int(typecode)])
    }

    private func insertPOITokens(rowid: Int64, _ tokens: (grams: String, chars: String)) throws {
        try db.cachedStatement("INSERT INTO poi_fts (rowid, grams, chars) VALUES (?, ?, ?)").run(boundText) { s throws(SQLiteError) in
            try s.bind(.integer(rowid), at: 1)
            try s.bind(tokens.grams, at: 2, keptIn: boundText)
            try s.bind(tokens.chars, at: 3, keptIn: boundText)
        }
    }

    /// FTS5 flushes a segment each time its pending terms pass `hashsize`: bigger flushes, and
    /// no merging while rows stream in (the default again at the end, in `execute`).
    private func bulkFTSSettings() throws {
        try db.execute("INSERT INTO poi_fts (poi_fts, rank) VALUES ('hashsize', 67108864)")
        try db.execute("INSERT INTO poi_fts (poi_fts, rank) VALUES ('automerge', 0)")
        ftsInBulk = true
    }

    /// The side index for this import's POIs when it pays (`SideSearchIndex.pays`), else nil.
    private func makeSideIndex(poiBytes: Int) throws -> SideSearchIndex? {
        let existing = try db.scalar("SELECT count(*) FROM poi")
        guard case .integer(let count) = existing else { return nil }
        switch options.searchIndexAside {
        case .never: return nil
        case .always: break
        case .whenItPays: guard SideSearchIndex.pays(existing: Int(count), fileBytes: poiBytes) else { return nil }
        }
        let rows = try db.cachedStatement("SELECT rowid, name FROM poi ORDER BY rowid").rows { ($0.int64(0), $0.text(1)) }
        // A side database that cannot be made (no temporary folder) leaves the row-by-row path.
        guard let side = try? SideSearchIndex(like: db, existing: rows, firstNewRowid: poiMark + 1, pendingBytes: options.searchIndexPendingBytes) else { return nil }
        searchIndexPath = .aside
        return side
    }

    /// Goes on row by row: the side index is dropped, and the rows this import has written so
    /// far get their tokens here, made from the poi table as a deletion re-derives them.
    private func leaveSidePath() throws {
        guard buildsAside else { return }
        side?.abandon()
        searchIndexPath = .abandoned
        try bulkFTSSettings()
        let rows = try db.makeStatement("SELECT rowid, name FROM poi WHERE rowid > ? ORDER BY rowid")
        try rows.bind([.integer(poiMark)])
        while try rows.step() { try insertPOITokens(rowid: rows.int64(0), SearchTokens.index(rows.text(1))) }
    }

    /// Fills a POI's district and town when the file leaves them empty: the district from
    /// the boundaries, the town from the nearest town centre (as reverse geocoding does).
    private func locate(_ record: inout POIRow) throws {
        guard record.adcode == nil || record.towncode == nil else { return }
        // One thread, one transaction, regions already written: a memo spares each POI the
        // shared cache's lock.
        if locator == nil {
            let cache = RegionCache()
            // A bulk import's POIs lie in most districts: their towns in one scan, not two
            // queries per district.
            if bulk { cache.noteTownBatch(RegionCache.regionCellsAfter, db) }
            locator = RegionLocator(cache: cache, db: db, memo: RegionLocator.Memo(system: .gcj02))
        }
        let before = (record.adcode, record.towncode)
        if record.adcode == nil {
            let (chain, _) = try locator!.locate(record.location)
            record.adcode = chain.last(where: { $0.level == .district || $0.level == .city })?.code
            if record.towncode == nil { record.towncode = chain.last(where: { $0.level == .town })?.code }
        } else if let adcode = record.adcode {
            record.towncode = try locator!.nearestTownCode(under: adcode, to: record.location)
        }
        if before != (record.adcode, record.towncode) { summary.poisLocated += 1 }
    }

    /// A POI's district and town must exist, and the town must lie in the district. A former
    /// district code (330103, 下城区 before 2021) is read as the district it is part of today.
    private func checkRegions(_ record: inout POIRow, row: CSVTable.Row) throws(ImportError) {
        if let adcode = record.adcode, regionLevels[adcode] == nil, let now = FormerNames.byCode[adcode], regionLevels[now] != nil {
            record.adcode = now
        }
        if let adcode = record.adcode {
            guard let level = regionLevels[adcode] else {
                throw row.error("adcode", .unknownRegion("no region has adcode \(adcode)"))
            }
            guard level == .district || level == .city else {
                throw row.error("adcode", .unknownRegion("adcode \(adcode) is a \(level.name), not a district or city"))
            }
        }
        if let town = record.towncode {
            guard regionLevels[town] == .town else {
                throw row.error("towncode", .unknownRegion("no town has code \(town)"))
            }
            if let adcode = record.adcode, AdminCode(town).countyAdcode.value != adcode {
                throw row.error("towncode", .unknownRegion("town \(town) is not in district \(adcode)"))
            }
        }
    }
}

extension Importer {
    /// Folds the WAL into the main file, so the database file is complete on its own (it
    /// stays in WAL mode: readers then skip a file lock per query).
    package func checkpoint() throws {
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
