import Foundation

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
    }

    /// A range of codes (inclusive) that lie inside a region: its descendants and itself.
    struct Scope {
        var region: RegionCache.Entry

        /// Whether `code` (a region code or POI adcode/towncode) lies in the region.
        func contains(_ code: Int64?) -> Bool {
            guard let code else { return false }
            let digits = [2, 4, 6, 12][region.level.rawValue]
            let a = String(code), b = String(region.code)
            return a.prefix(digits) == b.prefix(digits)
        }
    }

    /// Upper bound for a BINARY-collated prefix range: the prefix followed by U+10FFFF.
    static func upperBound(_ prefix: String) -> String { prefix + "\u{10FFFF}" }

    func regionCandidates(_ q: String, pinyin: String?) throws -> [Candidate] {
        var best: [Int64: SearchHit.Match] = [:]
        func add(_ codes: [Int64], _ m: SearchHit.Match) {
            for c in codes where best[c].map({ m < $0 }) ?? true { best[c] = m }
        }
        add(try db.prepare("SELECT code FROM region WHERE name = ?1 UNION SELECT code FROM region WHERE short_name = ?1")
            .rows([.text(q)]) { $0.int64(0) }, .exact)
        add(try db.prepare("""
            SELECT code FROM region WHERE name >= ?1 AND name < ?2
            UNION SELECT code FROM region WHERE short_name >= ?1 AND short_name < ?2 LIMIT ?3
            """).rows([.text(q), .text(Self.upperBound(q)), .integer(Int64(Self.cap))]) { $0.int64(0) }, .prefix)
        if let match = SearchTokens.nameQuery(q) {
            add(try db.prepare("SELECT rowid FROM region_fts WHERE region_fts MATCH ? LIMIT ?")
                .rows([.text(match), .integer(Int64(Self.cap))]) { $0.int64(0) }, .substring)
        }
        if let pinyin, let match = SearchTokens.pinyinQuery(pinyin) {
            let codes = try db.prepare("SELECT rowid FROM region_fts WHERE region_fts MATCH ? LIMIT ?")
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

    /// POI rowids per match class (each POI in its best class), before any detail is read.
    /// With a scope, every class is limited to it in SQL.
    func poiClasses(_ q: String, scope: Scope?) throws -> [SearchHit.Match: [Int64]] {
        var scopeSQL = ""
        var scopeValues: [SQLiteValue] = []
        if let scope {
            let (lo, hi) = Self.adcodeRange(scope.region)
            scopeSQL = " AND +adcode BETWEEN ? AND ?"
            scopeValues = [.integer(lo), .integer(hi)]
        }
        let cap: SQLiteValue = .integer(Int64(Self.cap))
        let exact = try db.prepare("SELECT rowid FROM poi WHERE name = ?\(scopeSQL) LIMIT ?")
            .rows([.text(q)] + scopeValues + [cap]) { $0.int64(0) }
        // Exact and prefix matches are few; the (up to `cap`) substring rows are only checked
        // against them, not hashed one by one.
        var seen = Set(exact)
        let prefix = try db.prepare("SELECT rowid FROM poi WHERE name >= ? AND name < ?\(scopeSQL) LIMIT ?")
            .rows([.text(q), .text(Self.upperBound(q))] + scopeValues + [cap]) { $0.int64(0) }
            .filter { seen.insert($0).inserted }
        var substring: [Int64] = []
        if let match = SearchTokens.nameQuery(q) {
            if scope != nil {
                // Scoped: let SQLite skip out-of-scope matches instead of capping them away.
                substring = try db.prepare("""
                    SELECT f.rowid FROM poi_fts f JOIN poi p ON p.rowid = f.rowid
                    WHERE poi_fts MATCH ?\(scopeSQL.replacingOccurrences(of: "+adcode", with: "+p.adcode")) LIMIT ?
                    """).rows([.text(match)] + scopeValues + [cap]) { $0.int64(0) }
            } else {
                substring = try db.prepare("SELECT rowid FROM poi_fts WHERE poi_fts MATCH ? LIMIT ?").rows([.text(match), cap]) { $0.int64(0) }
            }
            if !seen.isEmpty { substring.removeAll { seen.contains($0) } }
        }
        var order: [SearchHit.Match: [Int64]] = [:]
        for (m, rows) in [(SearchHit.Match.exact, exact), (.prefix, prefix), (.substring, substring)] where !rows.isEmpty {
            order[m] = rows
        }
        return order
    }

    /// Calls `body` with a row of `columns` (after the rowid, column 0) for each POI of
    /// `rowids`, in rowid order: one cached statement per hundred rowids, so SQLite makes the
    /// look-ups in one call instead of one statement round trip per row.
    func eachPOI(_ rowids: some Collection<Int64>, columns: String, _ body: (Statement) throws -> Void) throws {
        let chunk = 100
        let statement = try db.prepare("SELECT rowid, \(columns) FROM poi WHERE rowid IN ("
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
            _ = try statement.rows(values) { try body($0) }
            i = end
        }
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

    /// The adcodes (6 digits) inside a region, as an inclusive range.
    static func adcodeRange(_ r: RegionCache.Entry) -> (Int64, Int64) {
        switch r.level {
        case .province: return (r.code, r.code + 9_999)
        case .city: return (r.code, r.code + 99)
        case .district: return (r.code, r.code)
        case .town: return (r.code / 1_000_000, r.code / 1_000_000)
        }
    }
}

extension Repository {
    /// Keyword search over regions and POIs together (关键字搜索).
    ///
    /// Ranking: exact name (or short name, or pinyin) before prefix before substring; within
    /// that, hits in `options.city` first, then higher admin level (regions before POIs), then
    /// nearer to `options.location`. Every namesake is listed (城关镇 has about eighty). The text
    /// is only ever searched as text: quotes, `*`, `:`, `AND`/`OR`/`NEAR` and SQL mean nothing.
    public func search(_ text: String, options: SearchOptions = SearchOptions()) throws(GazetteerError) -> SearchResult {
        let q = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(options.limit) else {
            throw .invalidArgument(name: "limit", reason: "must be 1 to 200, not \(options.limit)")
        }
        guard options.page >= 1, options.page <= 1_000 else {
            throw .invalidArgument(name: "page", reason: "must be 1 to 1000, not \(options.page)")
        }
        if let l = options.location, !l.isValid {
            throw .invalidArgument(name: "location", reason: Self.describeInvalid(l))
        }
        if options.cityLimit && options.city == nil {
            throw .invalidArgument(name: "citylimit", reason: "needs a city to limit to")
        }
        guard !q.isEmpty, q.unicodeScalars.count <= 200 else {
            if q.unicodeScalars.count > 200 {
                throw .invalidArgument(name: "text", reason: "is longer than 200 characters")
            }
            return SearchResult(hits: [], count: 0)
        }
        let origin = options.location?.converted(from: options.system, to: .gcj02)
        return try read { db in
            let searcher = KeywordSearcher(db: db, cache: regions)
            let scope = try options.city.map { try KeywordSearcher.Scope(region: resolveRegion($0, db: db)) }
            let category = try CategoryFilter(options.types, db: db)
            let latin = q.allSatisfy { $0.isASCII && ($0.isLetter || $0 == " " || $0 == "'") }
            var regionHits: [KeywordSearcher.Candidate] = []
            if category.isEmpty {
                regionHits = try searcher.regionCandidates(q, pinyin: latin ? q : nil)
                if options.cityLimit, let scope { regionHits.removeAll { !scope.contains($0.adcode) } }
            }
            let poiClasses = try searcher.poiClasses(q, scope: options.cityLimit ? scope : nil)
            func distance(_ c: KeywordSearcher.Candidate) -> Double {
                guard let origin, let l = c.location else { return .infinity }
                return origin.distance(to: l)
            }
            func key(_ c: KeywordSearcher.Candidate) -> (Int, Int, Double, Int, Int64) {
                (scope.map { $0.contains(c.adcode) ? 0 : 1 } ?? 0, c.level, distance(c), c.nameLength, c.key)
            }
            // Classes come in order; only the ones that reach the page are read and ranked, so
            // a common word costs a page's worth of look-ups, not every match's.
            let start = (options.page - 1) * options.limit, end = start + options.limit
            var total = 0
            var ranked: [KeywordSearcher.Candidate] = []
            var rankedFrom = 0  // absolute position of ranked[0]
            for match in [SearchHit.Match.exact, .prefix, .substring] {
                let regs = regionHits.filter { $0.match == match }
                let rowids = poiClasses[match] ?? []
                let reaches = total < end && (category.isEmpty ? total + regs.count + rowids.count > start : true)
                if !reaches && category.isEmpty {
                    if total + regs.count + rowids.count <= start { rankedFrom += regs.count + rowids.count }
                    total += regs.count + rowids.count
                    continue
                }
                // A class larger than the window is ranked on a window of its rows (its first
                // in the class's own order: by rowid for substrings, by name for prefixes; or its
                // nearest to `location`), and served past the window in that same order, so every
                // page of it is consistent and a common word costs a window's worth of look-ups.
                // A category filter or a preferred city needs the wider window, as only ranked
                // rows are filtered and preferred.
                let window = category.isEmpty && scope == nil ? Self.rankedClassLimit : Self.filteredClassLimit
                var order = rowids
                if let origin, rowids.count > window {
                    // Nearest first among the class's rows (at most `cap`): measured from the
                    // stored coordinates, cheaper than growing R*Tree boxes around sparse matches.
                    var measured: [(Int64, Double)] = []
                    measured.reserveCapacity(rowids.count)
                    try searcher.eachPOI(rowids, columns: "lng, lat") {
                        measured.append(($0.int64(0), origin.distance(to: Coordinate(longitude: $0.double(1), latitude: $0.double(2)))))
                    }
                    order = measured.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
                }
                let pois = try searcher.poiDetails(order.prefix(window), match: match, category: category)
                let classSize = category.isEmpty ? regs.count + rowids.count : regs.count + pois.count
                if total >= end || total + classSize <= start {
                    if total + classSize <= start { rankedFrom += classSize }
                    total += classSize
                    continue
                }
                ranked += (regs + pois).map { ($0, key($0)) }.sorted { $0.1 < $1.1 }.map(\.0)
                // The page reaches past the window: the rows after it, in order (with a category
                // filter only the window is served, as only its rows are known to pass).
                let windowEnd = total + regs.count + pois.count
                if category.isEmpty, end > windowEnd {
                    let tail = Array(order.dropFirst(window).prefix(end - windowEnd))
                    let byRowid = Dictionary(try searcher.poiDetails(tail[...], match: match, category: category).map { ($0.key, $0) },
                                             uniquingKeysWith: { a, _ in a })
                    ranked += tail.compactMap { byRowid[$0] }
                }
                total += classSize
            }
            let page = ranked.dropFirst(max(0, start - rankedFrom)).prefix(options.limit)
            let finder = POIFinder(db: db)
            let hits = try page.map { c -> SearchHit in
                let d = distance(c)
                if c.isRegion {
                    let e = try regions.entry(c.key, db)!
                    let chain = try ancestors(of: e, db: db, system: options.system)
                    return SearchHit(kind: .region(regions.region(e, system: options.system)), match: c.match,
                                     distance: d.isFinite ? d : nil, province: chain[.province], city: chain[.city],
                                     district: chain[.district])
                }
                let poi = try finder.load([c.key], system: options.system)[0]
                let chain = try regionsOf(adcode: c.adcode, db: db, system: options.system)
                return SearchHit(kind: .poi(poi), match: c.match, distance: d.isFinite ? d : nil,
                                 province: chain[.province], city: chain[.city], district: chain[.district])
            }
            return SearchResult(hits: hits, count: total)
        }
    }

    /// The regions above `e` (not `e` itself), by level.
    func ancestors(of e: RegionCache.Entry, db: Connection, system: CoordinateSystem = .gcj02) throws -> [RegionLevel: Region] {
        var out: [RegionLevel: Region] = [:]
        for p in try regions.lineage(e, db).dropLast() { out[p.level] = regions.region(p, system: system) }
        return out
    }

    /// Most POIs of one match class read and ranked together; the rest of the class follows
    /// them in its own order.
    static let rankedClassLimit = 100

    /// The window when a category filter or a preferred city applies.
    static let filteredClassLimit = 300

    /// The region with this adcode and those above it, by level.
    func regionsOf(adcode: Int64?, db: Connection, system: CoordinateSystem) throws -> [RegionLevel: Region] {
        guard let adcode, let e = try regions.entry(adcode, db) else { return [:] }
        var chain = try ancestors(of: e, db: db, system: system)
        chain[e.level] = regions.region(e, system: system)
        return chain
    }

    /// POIs with their distances and the regions they lie in.
    func withRegions(_ pois: [POI], _ hits: [(rowid: Int64, distance: Double)], db: Connection, system: CoordinateSystem) throws -> [POIDistance] {
        try zip(pois, hits).map { poi, hit in
            let chain = try regionsOf(adcode: poi.adcode.flatMap { Int64($0) }, db: db, system: system)
            return POIDistance(poi: poi, distance: hit.distance, province: chain[.province], city: chain[.city], district: chain[.district])
        }
    }

    /// A region named by adcode (6 or 12 digits) or by name (full or short; a city is
    /// preferred to a province, a province to a district).
    func resolveRegion(_ text: String, db: Connection) throws -> RegionCache.Entry {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.allSatisfy(\.isNumber), let code = Int64(t), let e = try regions.entry(t.count == 9 ? code * 1000 : code, db) {
            return e
        }
        let codes = try db.prepare("SELECT code FROM region WHERE name = ?1 UNION SELECT code FROM region WHERE short_name = ?1")
            .rows([.text(t)]) { $0.int64(0) }
        let entries = try codes.compactMap { try regions.entry($0, db) }
        let preference: [RegionLevel] = [.city, .province, .district, .town]
        guard let e = entries.min(by: { (preference.firstIndex(of: $0.level)!, $0.code) < (preference.firstIndex(of: $1.level)!, $1.code) }) else {
            throw GazetteerError.invalidArgument(name: "city", reason: "no region is named or coded '\(t)'")
        }
        return e
    }
}
