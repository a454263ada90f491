import Foundation
import GazetteerCore
import GazetteerSQLite

extension Repository {
    /// Checks the whole database: SQLite's own integrity, the FTS5 and R*Tree indexes, foreign
    /// keys and the gazetteer's invariants (region tree, codes, index counts, boundaries, POI
    /// regions, meta). Every check runs even when an earlier one fails, so the report says
    /// everything that is wrong at once.
    ///
    /// FTS5's `integrity-check` is a write (an INSERT into the table), so it runs on a
    /// read-write connection inside a savepoint that is rolled back; when the file cannot be
    /// written (read-only file system or permissions) those two checks are reported skipped,
    /// with the reason, and the rest still run. Takes seconds on a national database.
    ///
    /// - Throws: `GazetteerError` only when the database cannot be read at all.
    public func check() throws(GazetteerError) -> IntegrityReport {
        // A writable connection of our own for FTS5's checks; not the pool's, which is read-only.
        var writer: Connection?
        var whyNoWriter = ""
        do {
            writer = try Connection(path: path, mode: .readWrite)
        } catch {
            whyNoWriter = "\(Schema.map(error, path: path))"
        }
        var checks: [IntegrityReport.Check] = []
        for (name, table) in [(IntegrityReport.CheckName.regionFTS, "region_fts"), (.poiFTS, "poi_fts")] {
            guard let writer else {
                checks.append(.init(name: name, status: .skipped,
                                    summary: "FTS5's integrity-check writes, and \(whyNoWriter)"))
                continue
            }
            checks.append(CheckRunner.ftsIntegrity(writer, table: table, name: name))
        }
        do {
            let rest = try pool.withConnection { db in
                try db.read { CheckRunner(db: db).run() }
            }
            checks += rest
        } catch let error as GazetteerError {
            throw error
        } catch let error as SQLiteError {
            throw Schema.map(error, path: path)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
        let order = IntegrityReport.CheckName.allCases
        checks.sort { order.firstIndex(of: $0.name)! < order.firstIndex(of: $1.name)! }
        return IntegrityReport(path: path, checks: checks)
    }
}

/// The checks other than FTS5's, run in one read transaction (one consistent snapshot).
private struct CheckRunner {
    let db: Connection
    typealias Check = IntegrityReport.Check
    typealias Name = IntegrityReport.CheckName
    static let limit = IntegrityReport.detailLimit

    func run() -> [Check] {
        [
            attempt(.sqliteIntegrity, sqliteIntegrity),
            attempt(.regionFTSTokens) { try ftsTokens(.regionFTSTokens) },
            attempt(.poiFTSTokens) { try ftsTokens(.poiFTSTokens) },
            attempt(.regionRTree) { try rtree("region_rtree", .regionRTree) },
            attempt(.poiRTree) { try rtree("poi_rtree", .poiRTree) },
            attempt(.foreignKeys, foreignKeys),
            attempt(.regionParents, regionParents),
            attempt(.regionCodes, regionCodes),
            attempt(.regionBoxes, regionBoxes),
            attempt(.poiPoints, poiPoints),
            attempt(.boundaries, boundaries),
            attempt(.poiRegions, poiRegions),
            attempt(.meta, meta),
        ]
    }

    /// A check that cannot even run (its query fails on a damaged file) has failed.
    private func attempt(_ name: Name, _ body: () throws -> Check) -> Check {
        do { return try body() } catch { return Check(name: name, status: .failed, summary: "could not run: \(error)") }
    }

    /// FTS5's `integrity-check`, in a savepoint rolled back whatever happens.
    static func ftsIntegrity(_ db: Connection, table: String, name: Name) -> Check {
        do {
            try db.execute("SAVEPOINT gazetteer_check")
            defer { try? db.execute("ROLLBACK TO gazetteer_check; RELEASE gazetteer_check") }
            try db.execute("INSERT INTO \(table) (\(table)) VALUES ('integrity-check')")
            return Check(name: name, status: .ok, summary: "FTS5 integrity-check of \(table) passed")
        } catch where error.code.primary == .busy || error.code.primary == .locked {
            return Check(name: name, status: .skipped, summary: "another process is writing the database (\(error.message)); run the check again later")
        } catch {
            return Check(name: name, status: .failed, summary: "FTS5 integrity-check of \(table) failed: \(error.message)")
        }
    }

    /// The number of rows `sql` returns and the first column of the first few, as text.
    private func offenders(_ sql: String, _ values: [SQLiteValue] = [], describe: (Statement) -> String = { $0.text(0) }) throws -> (count: Int, first: [String]) {
        let count = try db.makeStatement("SELECT count(*) FROM (\(sql))").first(values) { $0.int(0) } ?? 0
        guard count > 0 else { return (0, []) }
        let first = try db.makeStatement("\(sql) LIMIT \(Self.limit)").rows(values, describe)
        return (count, first)
    }

    private func result(_ name: Name, ok: String, failed: (Int) -> String, _ found: (count: Int, first: [String])) -> Check {
        found.count == 0
            ? Check(name: name, status: .ok, summary: ok)
            : Check(name: name, status: .failed, summary: failed(found.count), details: found.first)
    }

    private func count(_ sql: String) throws -> Int {
        try db.makeStatement(sql).first { $0.int(0) } ?? 0
    }

    private func sqliteIntegrity() throws -> Check {
        let lines = try db.makeStatement("PRAGMA integrity_check(\(Self.limit))").rows { $0.text(0) }
        if lines == ["ok"] { return Check(name: .sqliteIntegrity, status: .ok, summary: "SQLite integrity_check passed") }
        return Check(name: .sqliteIntegrity, status: .failed, summary: "SQLite integrity_check found damage", details: lines)
    }

    private func rtree(_ table: String, _ name: Name) throws -> Check {
        let text = try db.makeStatement("SELECT rtreecheck('\(table)')").first { $0.text(0) } ?? ""
        if text == "ok" { return Check(name: name, status: .ok, summary: "rtreecheck of \(table) passed") }
        let lines = text.split(separator: "\n").map(String.init)
        return Check(name: name, status: .failed, summary: "rtreecheck of \(table) found \(lines.count) problem\(lines.count == 1 ? "" : "s")",
                     details: Array(lines.prefix(Self.limit)))
    }

    private func foreignKeys() throws -> Check {
        let rows = try db.makeStatement("PRAGMA foreign_key_check").rows { s in
            "\(s.text(0)) row \(s.int64(1)) refers to a missing row of \(s.text(2))"
        }
        return result(.foreignKeys, ok: "no dangling references", failed: { "\($0) dangling reference\($0 == 1 ? "" : "s")" },
                      (rows.count, Array(rows.prefix(Self.limit))))
    }

    private func regionParents() throws -> Check {
        let found = try offenders("""
            SELECT c.code, c.parent, p.code IS NULL, c.level, p.level FROM region c LEFT JOIN region p ON p.code = c.parent
            WHERE c.parent IS NOT NULL AND (p.code IS NULL OR p.level >= c.level) ORDER BY c.code
            """) { s in
            let level = { (v: Int) in RegionLevel(rawValue: v)?.name ?? "level \(v)" }
            return s.int(2) == 1
                ? "\(s.int64(0)): parent \(s.int64(1)) does not exist"
                : "\(s.int64(0)) (\(level(s.int(3)))): parent \(s.int64(1)) is a \(level(s.int(4))), not a higher level"
        }
        return result(.regionParents, ok: "every region's parent exists and is of a higher level",
                      failed: { "\($0) region\($0 == 1 ? " has a" : "s have a") missing or misplaced parent" }, found)
    }

    private func regionCodes() throws -> Check {
        let digits = "CASE p.level WHEN 0 THEN 2 WHEN 1 THEN 4 WHEN 2 THEN 6 ELSE 12 END"
        let found = try offenders("""
            SELECT c.code, c.parent FROM region c JOIN region p ON p.code = c.parent
            WHERE substr(c.code, 1, \(digits)) <> substr(p.code, 1, \(digits)) ORDER BY c.code
            """) { "\($0.int64(0)) does not begin with the digits of its parent \($0.int64(1))" }
        return result(.regionCodes, ok: "every code begins with its parent's digits",
                      failed: { "\($0) code\($0 == 1 ? "" : "s") do not begin with their parent's digits" }, found)
    }

    private func regionBoxes() throws -> Check {
        let missing = try offenders("SELECT code FROM region WHERE min_lng IS NOT NULL AND code NOT IN (SELECT id FROM region_rtree) ORDER BY code") {
            "region \($0.int64(0)) has a bounding box but no region_rtree entry"
        }
        let extra = try offenders("SELECT id FROM region_rtree WHERE id NOT IN (SELECT code FROM region WHERE min_lng IS NOT NULL) ORDER BY id") {
            "region_rtree entry \($0.int64(0)) has no region with a bounding box"
        }
        let boxes = try count("SELECT count(*) FROM region WHERE min_lng IS NOT NULL")
        let entries = try count("SELECT count(*) FROM region_rtree")
        return result(.regionBoxes, ok: "\(entries) region_rtree entries for \(boxes) regions with a bounding box",
                      failed: { _ in "region_rtree has \(entries) entries for \(boxes) regions with a bounding box (\(missing.count) missing, \(extra.count) extra)" },
                      (missing.count + extra.count, Array((missing.first + extra.first).prefix(Self.limit))))
    }

    private func poiPoints() throws -> Check {
        let missing = try offenders("SELECT id FROM poi WHERE rowid NOT IN (SELECT id FROM poi_rtree) ORDER BY rowid") {
            "POI \($0.text(0)) has no poi_rtree entry"
        }
        let extra = try offenders("SELECT id FROM poi_rtree WHERE id NOT IN (SELECT rowid FROM poi) ORDER BY id") {
            "poi_rtree entry \($0.int64(0)) has no POI"
        }
        // Search ranks by the R*Tree's copy of the coordinates (`KeywordSearcher.points`).
        let moved = try offenders("""
            SELECT p.id FROM poi p JOIN \(KeywordSearcher.points) r ON r.rowid = p.rowid
            WHERE r.a0 IS NOT p.lng OR r.a1 IS NOT p.lat ORDER BY p.rowid
            """) { "POI \($0.text(0)) has other coordinates in poi_rtree than in poi" }
        let pois = try count("SELECT count(*) FROM poi")
        let entries = try count("SELECT count(*) FROM poi_rtree")
        return result(.poiPoints, ok: "\(entries) poi_rtree entries for \(pois) POIs",
                      failed: { _ in "poi_rtree has \(entries) entries for \(pois) POIs (\(missing.count) missing, \(extra.count) extra, \(moved.count) moved)" },
                      (missing.count + extra.count + moved.count, Array((missing.first + extra.first + moved.first).prefix(Self.limit))))
    }

    private func boundaries() throws -> Check {
        var bad: [String] = []
        var badCount = 0
        var total = 0
        let rows = try db.makeStatement("SELECT code, boundary FROM region WHERE boundary IS NOT NULL ORDER BY code")
        try rows.bind([])
        defer { rows.reset() }
        while try rows.step() {
            total += 1
            do {
                _ = try MultiPolygon(encoded: rows.blob(1))
            } catch {
                badCount += 1
                if bad.count < Self.limit { bad.append("\(rows.int64(0)): \(error)") }
            }
        }
        return result(.boundaries, ok: "all \(total) boundaries decode",
                      failed: { "\($0) of \(total) boundaries do not decode" }, (badCount, bad))
    }

    private func poiRegions() throws -> Check {
        let found = try offenders("""
            SELECT id, 'adcode', adcode FROM poi WHERE adcode IS NOT NULL AND adcode NOT IN (SELECT code FROM region)
            UNION ALL
            SELECT id, 'towncode', towncode FROM poi WHERE towncode IS NOT NULL AND towncode NOT IN (SELECT code FROM region)
            """) { "POI \($0.text(0)): \($0.text(1)) \($0.int64(2)) is no region" }
        return result(.poiRegions, ok: "every POI's adcode and towncode name a region",
                      failed: { "\($0) POI reference\($0 == 1 ? "" : "s") to missing regions" }, found)
    }

    private func meta() throws -> Check {
        let meta = Dictionary(try db.makeStatement("SELECT key, value FROM meta").rows { ($0.text(0), $0.text(1)) },
                              uniquingKeysWith: { a, _ in a })
        var problems: [String] = []
        switch meta["schema_version"] {
        case nil: problems.append("schema_version is missing")
        case String(Schema.version)?: break
        case let v?: problems.append("schema_version is '\(v)', but the file's user_version and this library say \(Schema.version)")
        }
        switch meta["coordinate_system"] {
        case nil: problems.append("coordinate_system is missing")
        case "GCJ-02"?: break
        case let v?: problems.append("coordinate_system is '\(v)'; the library stores and reads GCJ-02")
        }
        return problems.isEmpty
            ? Check(name: .meta, status: .ok, summary: "schema_version \(Schema.version), coordinate_system GCJ-02")
            : Check(name: .meta, status: .failed, summary: "meta is incomplete or wrong", details: problems)
    }

    /// Contentless FTS5 keeps no text, so its own check cannot see an index that drifted from
    /// the rows (a 'delete' given the wrong tokens leaves the old ones behind). This indexes
    /// the tokens every row derives into a temporary FTS5 table, with the same tokenizer, and
    /// compares the two indexes entry by entry (fts5vocab 'instance').
    private func ftsTokens(_ name: Name) throws -> Check {
        let isRegion = name == .regionFTSTokens
        let table = isRegion ? "region_fts" : "poi_fts"
        let columns = isRegion ? "grams, chars, pinyin" : "grams, chars"
        try db.execute("""
            DROP TABLE IF EXISTS temp.gz_expected; DROP TABLE IF EXISTS temp.gz_expected_v; DROP TABLE IF EXISTS temp.gz_actual_v;
            CREATE VIRTUAL TABLE temp.gz_expected USING fts5 (\(columns), content = '', columnsize = 0,
                tokenize = 'unicode61 remove_diacritics 0');
            CREATE VIRTUAL TABLE temp.gz_expected_v USING fts5vocab (temp, gz_expected, instance);
            CREATE VIRTUAL TABLE temp.gz_actual_v USING fts5vocab (main, \(table), instance);
            """)
        defer { try? db.execute("DROP TABLE IF EXISTS temp.gz_actual_v; DROP TABLE IF EXISTS temp.gz_expected_v; DROP TABLE IF EXISTS temp.gz_expected") }
        let insert = try db.makeStatement("INSERT INTO temp.gz_expected (rowid, \(columns)) VALUES (?, ?, ?\(isRegion ? ", ?" : ""))")
        let source = try db.makeStatement(isRegion ? "SELECT code, name, short_name, pinyin FROM region" : "SELECT rowid, name FROM poi")
        try source.bind([])
        defer { source.reset() }
        var rows = 0
        while try source.step() {
            rows += 1
            // The importer's derivation, from the same functions.
            let tokens = isRegion
                ? SearchTokens.regionRow(name: source.text(1), shortName: source.optionalText(2), pinyin: source.optionalText(3))
                : SearchTokens.poiRow(name: source.text(1))
            try insert.run([.integer(source.int64(0))] + tokens)
        }
        let entry = "term, doc, col, offset"
        let missing = try offenders("SELECT DISTINCT doc FROM (SELECT \(entry) FROM temp.gz_expected_v EXCEPT SELECT \(entry) FROM temp.gz_actual_v) ORDER BY doc") {
            "\(isRegion ? "region" : "POI rowid") \($0.int64(0)): tokens of its row are missing from \(table)"
        }
        let extra = try offenders("SELECT DISTINCT doc FROM (SELECT \(entry) FROM temp.gz_actual_v EXCEPT SELECT \(entry) FROM temp.gz_expected_v) ORDER BY doc") {
            "\(table) rowid \($0.int64(0)): holds tokens its row does not give (or there is no such row)"
        }
        return result(name, ok: "\(table) holds exactly the tokens of the \(rows) \(isRegion ? "regions" : "POIs")",
                      failed: { _ in "\(table) differs from its rows: \(missing.count) with tokens missing, \(extra.count) with stray tokens" },
                      (missing.count + extra.count, Array((missing.first + extra.first).prefix(Self.limit))))
    }
}
