import Foundation
import GazetteerCore
import GazetteerSQLite

/// Keyword search over regions and POIs. Each match class is its own indexed query — exact
/// names through the name indexes, prefixes through a range on them, substrings through the
/// FTS5 bigram index — so ranking never needs to read every row that merely contains the text.
struct KeywordSearcher {
    let db: Connection
    let cache: RegionCache

    /// Most candidates taken per class and kind before ranking; deep pages past it are not served.
    static let cap = 1_000

    struct Candidate {
        var isRegion: Bool
        var key: Int64          // region code or poi rowid
        var match: SearchHit.Match
        var level: Int          // 0…3 for regions, 4 for POIs
        var location: Coordinate?
        var adcode: Int64?      // for scoping: region code or POI adcode
        var nameLength: Int
        /// A functional zone (长春经开区): a region hit of its own code, placed in `adcode`.
        var zone: FunctionalZones.Zone? = nil
        /// The distance from the search's location, when it was measured before the row was
        /// read (then `location` and `adcode` are not read).
        var distance: Double? = nil
    }

    /// A range of codes (inclusive) that lie inside a region: its descendants and itself.
    struct Scope {
        var region: RegionCache.Entry

        /// Whether `code` (a region code or POI adcode/towncode) lies in the region.
        func contains(_ code: Int64?) -> Bool {
            guard let code else { return false }
            return AdminCode(code).isWithin(AdminCode(region.code), level: region.level)
        }
    }

    /// Upper bound for a BINARY-collated prefix range: the prefix followed by U+10FFFF.
    static func upperBound(_ prefix: String) -> String { prefix + "\u{10FFFF}" }

    func regionCandidates(_ q: String, pinyin: String?) throws -> [Candidate] {
        var best: [Int64: SearchHit.Match] = [:]
        func add(_ codes: [Int64], _ m: SearchHit.Match) {
            for c in codes where best[c].map({ m < $0 }) ?? true { best[c] = m }
        }
        add(try db.cachedStatement("SELECT code FROM region WHERE name = ?1 UNION SELECT code FROM region WHERE short_name = ?1")
            .rows([.text(q)]) { $0.int64(0) }, .exact)
        add(try db.cachedStatement("""
            SELECT code FROM region WHERE name >= ?1 AND name < ?2
            UNION SELECT code FROM region WHERE short_name >= ?1 AND short_name < ?2 LIMIT ?3
            """).rows([.text(q), .text(Self.upperBound(q)), .integer(Int64(Self.cap))]) { $0.int64(0) }, .prefix)
        if let match = SearchTokens.nameQuery(q) {
            add(try db.cachedStatement("SELECT rowid FROM region_fts WHERE region_fts MATCH ? LIMIT ?")
                .rows([.text(match), .integer(Int64(Self.cap))]) { $0.int64(0) }, .substring)
        }
        if let pinyin, let match = SearchTokens.pinyinQuery(pinyin) {
            let codes = try db.cachedStatement("SELECT rowid FROM region_fts WHERE region_fts MATCH ? LIMIT ?")
                .rows([.text(match), .integer(Int64(Self.cap))]) { $0.int64(0) }
            let typed = pinyin.lowercased().filter { !$0.isWhitespace && $0 != "'" }
            for code in codes {
                guard let e = try cache.entry(code, db) else { continue }
                let tokens = SearchTokens.pinyin(e.pinyin, name: e.name, shortName: e.shortName).split(separator: " ")
                add([code], tokens.contains { $0 == typed } ? .exact : .prefix)
            }
        }
        return try best.compactMap { code, match in
            guard let e = try cache.entry(code, db) else { return nil }
            return Candidate(isRegion: true, key: code, match: match, level: e.level.rawValue, location: e.center,
                             adcode: code, nameLength: e.name.count)
        }
    }

    /// Functional zones whose name (or a form of it people write: 长春经开区) is, starts with or
    /// contains `q`: compiled in, not in the database, so matched in memory.
    /// A zone whose region the database lacks (a database of one province) is not found.
    func zoneCandidates(_ q: String) throws -> [Candidate] {
        var best: [Int64: (FunctionalZones.Zone, SearchHit.Match)] = [:]
        let key = Array(q.decomposedStringWithCanonicalMapping.utf8)
        for (name, zones, decomposed) in Self.decomposedZoneNames where Self.bytes(decomposed, contain: key) {
            let match: SearchHit.Match
            if name == q { match = .exact } else if name.hasPrefix(q) { match = .prefix } else if name.contains(q) { match = .substring } else { continue }
            for z in zones where best[z.code].map({ match < $0.1 }) ?? true {
                guard try cache.entry(z.region, db) != nil else { continue }
                best[z.code] = (z, match)
            }
        }
        return best.values.map { z, match in
            Candidate(isRegion: true, key: z.code, match: match, level: RegionLevel.district.rawValue, location: z.center,
                      adcode: z.region, nameLength: z.name.count, zone: z)
        }
    }

    /// The names of `FunctionalZones.byName` with their canonical decomposition (NFD) as UTF-8.
    /// `==`, `hasPrefix` and `contains` compare by canonical equivalence, so a name that matches
    /// a text in any of those ways holds the text's decomposition as bytes: comparing bytes
    /// first leaves the (slow, Foundation) string comparisons to the few names that pass.
    private static let decomposedZoneNames: [(String, [FunctionalZones.Zone], [UInt8])] =
        FunctionalZones.byName.map { ($0.key, $0.value, Array($0.key.decomposedStringWithCanonicalMapping.utf8)) }

    private static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == first {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// POI rowids per match class (each POI in its best class), before any detail is read.
    /// With a scope, every class is limited to it in SQL. With an origin, the substring class's
    /// rows also come with their distance from it (a row the poi table lacks left out), read in
    /// the same pass as the match rather than looked up by rowid afterwards.
    func poiClasses(_ q: String, scope: Scope?, origin: Coordinate? = nil)
        throws -> (classes: [SearchHit.Match: [Int64]], substringDistances: [(Int64, Double)]?) {
        var scopeSQL = ""
        var scopeValues: [SQLiteValue] = []
        if let scope {
            let range = AdminCode(scope.region.code).adcodeRange(level: scope.region.level)
            scopeSQL = " AND +adcode BETWEEN ? AND ?"
            scopeValues = [.integer(range.lowerBound), .integer(range.upperBound)]
        }
        let cap: SQLiteValue = .integer(Int64(Self.cap))
        let exact = try db.cachedStatement("SELECT rowid FROM poi WHERE name = ?\(scopeSQL) LIMIT ?")
            .rows([.text(q)] + scopeValues + [cap]) { $0.int64(0) }
        // Exact and prefix matches are few; the (up to `cap`) substring rows are only checked
        // against them, not hashed one by one.
        var seen = Set(exact)
        let prefix = try db.cachedStatement("SELECT rowid FROM poi WHERE name >= ? AND name < ?\(scopeSQL) LIMIT ?")
            .rows([.text(q), .text(Self.upperBound(q))] + scopeValues + [cap]) { $0.int64(0) }
            .filter { seen.insert($0).inserted }
        var substring: [Int64] = []
        var distances: [(Int64, Double)]?
        if let match = SearchTokens.nameQuery(q), let origin {
            // Unscoped, with every POI's coordinates in memory: the matches alone from the index.
            let points = scope == nil ? cache.poiPoints(db) : nil
            let sql = if points != nil {
                "SELECT rowid FROM poi_fts WHERE poi_fts MATCH ? LIMIT ?"
            } else if scope != nil {
                """
                SELECT f.rowid, p.lng, p.lat FROM poi_fts f JOIN poi p ON p.rowid = f.rowid
                WHERE poi_fts MATCH ?\(scopeSQL.replacingOccurrences(of: "+adcode", with: "+p.adcode")) LIMIT ?
                """
            } else {
                "SELECT f.rowid, p.a0, p.a1 FROM (SELECT rowid FROM poi_fts WHERE poi_fts MATCH ? LIMIT ?) f LEFT JOIN \(Self.points) p ON p.rowid = f.rowid"
            }
            var measured: [(Int64, Double)] = []
            measured.reserveCapacity(Self.cap)
            substring.reserveCapacity(Self.cap)
            try Self.each(db.cachedStatement(sql), [.text(match)] + scopeValues + [cap]) { s in
                let rowid = s.int64(0)
                substring.append(rowid)
                if let points {
                    if let c = points.coordinate(rowid) { measured.append((rowid, origin.distance(to: c))) }
                } else if !s.isNull(1) {
                    measured.append((rowid, origin.distance(to: Coordinate(longitude: s.double(1), latitude: s.double(2)))))
                }
            }
            if scope == nil, points == nil { cache.notePOIsMeasured(substring.count, db) }
            if !seen.isEmpty {
                substring.removeAll { seen.contains($0) }
                measured.removeAll { seen.contains($0.0) }
            }
            distances = measured
        } else if let match = SearchTokens.nameQuery(q) {
            if scope != nil {
                // Scoped: let SQLite skip out-of-scope matches instead of capping them away.
                substring = try db.cachedStatement("""
                    SELECT f.rowid FROM poi_fts f JOIN poi p ON p.rowid = f.rowid
                    WHERE poi_fts MATCH ?\(scopeSQL.replacingOccurrences(of: "+adcode", with: "+p.adcode")) LIMIT ?
                    """).rows([.text(match)] + scopeValues + [cap]) { $0.int64(0) }
            } else {
                substring = try db.cachedStatement("SELECT rowid FROM poi_fts WHERE poi_fts MATCH ? LIMIT ?").rows([.text(match), cap]) { $0.int64(0) }
            }
            if !seen.isEmpty { substring.removeAll { seen.contains($0) } }
        }
        var order: [SearchHit.Match: [Int64]] = [:]
        for (m, rows) in [(SearchHit.Match.exact, exact), (.prefix, prefix), (.substring, substring)] where !rows.isEmpty {
            order[m] = rows
        }
        return (order, distances)
    }

    /// The exact coordinates of every POI by rowid, narrow: the table where the R*Tree keeps its
    /// auxiliary columns (`lng`, `lat` of `poi_rtree` as `a0`, `a1`, the importer writes them
    /// from the same row). A look-up there costs less than one in the wide `poi` table.
    static let points = "poi_rtree_rowid"

    /// Calls `body` with a row of `columns` (after the rowid, column 0) for each POI of
    /// `rowids`, in rowid order: one cached statement per hundred rowids, so SQLite makes the
    /// look-ups in one call instead of one statement round trip per row.
    func eachPOI(_ rowids: some Collection<Int64>, columns: String, _ body: (Statement) throws -> Void) throws {
        let chunk = 100
        let statement = try db.cachedStatement("SELECT rowid, \(columns) FROM poi WHERE rowid IN ("
            + Array(repeating: "?", count: chunk).joined(separator: ",") + ")")
        var values = [SQLiteValue](repeating: .null, count: chunk)
        var i = rowids.startIndex
        while i != rowids.endIndex {
            let end = rowids.index(i, offsetBy: chunk, limitedBy: rowids.endIndex) ?? rowids.endIndex
            var k = 0
            for r in rowids[i..<end] {
                values[k] = .integer(r)
                k += 1
            }
            while k < chunk {  // NULL matches nothing
                values[k] = .null
                k += 1
            }
            try Self.each(statement, values, body)
            i = end
        }
    }

    /// Runs `statement` with `values`, calling `body` on each row. Unlike `Statement.rows` it
    /// builds no array: that one is generic across modules, so every row appended looked up
    /// the array's type metadata, more work than a thousand-row window's rows themselves.
    private static func each(_ statement: Statement, _ values: [SQLiteValue], _ body: (Statement) throws -> Void) throws {
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() { try body(statement) }
    }

    /// Candidates of POIs whose distances are known, in order of (distance, rowid): ranking
    /// without a category or a preferred city needs only the name's length besides, and only to
    /// order POIs at the same distance, so only those rows are read.
    func measuredCandidates(_ nearest: ArraySlice<(Int64, Double)>, match: SearchHit.Match) throws -> [Candidate] {
        var out = nearest.map {
            Candidate(isRegion: false, key: $0.0, match: match, level: 4, location: nil, adcode: nil, nameLength: 0, distance: $0.1)
        }
        var tied: [Int64: Int] = [:]  // rowid → index in `out`, for rows sharing a distance
        for i in out.indices.dropFirst() where out[i].distance == out[i - 1].distance {
            tied[out[i - 1].key] = i - 1
            tied[out[i].key] = i
        }
        if !tied.isEmpty {
            try eachPOI(tied.keys.sorted(), columns: "length(name)") { s in
                if let i = tied[s.int64(0)] { out[i].nameLength = s.int(1) }
            }
        }
        return out
    }

    /// The candidates of these rowids that pass the category filter, with what ranking needs.
    func poiDetails(_ rowids: ArraySlice<Int64>, match: SearchHit.Match, category: CategoryFilter) throws -> [Candidate] {
        var out: [Candidate] = []
        out.reserveCapacity(rowids.count)
        try eachPOI(rowids, columns: "lng, lat, adcode, typecode, length(name)") { s in
            guard category.isEmpty || category.matches(s.optionalText(4).flatMap { Int64($0) }) else { return }
            out.append(Candidate(isRegion: false, key: s.int64(0), match: match, level: 4,
                                 location: Coordinate(longitude: s.double(1), latitude: s.double(2)),
                                 adcode: s.optionalInt64(3), nameLength: s.int(5)))
        }
        return out
    }
}
