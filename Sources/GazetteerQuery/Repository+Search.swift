import Foundation
import GazetteerCore

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
            throw .invalidArgument(name: "location", reason: l.invalidReason)
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
                // A zone the database also has as a region (两江新区) is listed once.
                regionHits += latin ? [] : try searcher.zoneCandidates(q).filter { z in !regionHits.contains { $0.key == z.key } }
                if options.cityLimit, let scope { regionHits.removeAll { !scope.contains($0.adcode) } }
            }
            let (poiClasses, substringDistances) = try searcher.poiClasses(q, scope: options.cityLimit ? scope : nil, origin: origin)
            func distance(_ c: KeywordSearcher.Candidate) -> Double {
                if let d = c.distance { return d }
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
                var nearest: ArraySlice<(Int64, Double)>?  // `order` with distances, when measured
                if let origin, rowids.count > window {
                    // Nearest first among the class's rows (at most `cap`): measured from the
                    // stored coordinates, cheaper than growing R*Tree boxes around sparse matches.
                    var measured: [(Int64, Double)] = []
                    if match == .substring, let d = substringDistances {
                        measured = d
                    } else if let points = regions.poiPoints(db) {
                        measured.reserveCapacity(rowids.count)
                        for r in rowids { if let c = points.coordinate(r) { measured.append((r, origin.distance(to: c))) } }
                    } else {
                        measured.reserveCapacity(rowids.count)
                        try searcher.eachPOI(rowids, columns: "lng, lat") {
                            measured.append(($0.int64(0), origin.distance(to: Coordinate(longitude: $0.double(1), latitude: $0.double(2)))))
                        }
                        regions.notePOIsMeasured(rowids.count, db)
                    }
                    // Only the rows a page can reach are put in order (window, then the tail).
                    nearest = Self.nearestFirst(&measured, count: window + end)
                    order = nearest!.map(\.0)
                }
                // Measured rows ranked with neither a category nor a preferred city need no more
                // than their distances until the page is chosen.
                let pois = if let nearest, category.isEmpty, scope == nil {
                    try searcher.measuredCandidates(nearest.prefix(window), match: match)
                } else {
                    try searcher.poiDetails(order.prefix(window), match: match, category: category)
                }
                let classSize = category.isEmpty ? regs.count + rowids.count : regs.count + pois.count
                if total >= end || total + classSize <= start {
                    if total + classSize <= start { rankedFrom += classSize }
                    total += classSize
                    continue
                }
                // Indices sorted, not the (large) candidates themselves.
                let candidates = regs + pois
                let keys = candidates.map(key)
                ranked += keys.indices.sorted { keys[$0] < keys[$1] }.map { candidates[$0] }
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
            var chains: [Int64: [RegionLevel: Region]] = [:]  // by adcode: a page's POIs often share a district
            let hits = try page.map { c -> SearchHit in
                let d = distance(c)
                if let z = c.zone, let holder = try regions.entry(z.region, db) {
                    // A zone: AMap's district-level place of its own code, in the region holding it.
                    var chain = try ancestors(of: holder, db: db, system: options.system)
                    if holder.level < .district { chain[holder.level] = holder.region(system: options.system) }
                    let region = Region(code: String(z.code), level: .district, name: z.name, parentCode: holder.parent.map(String.init),
                                        center: z.center?.converted(from: .gcj02, to: options.system), centerIsApproximate: true)
                    return SearchHit(kind: .region(region), match: c.match, distance: d.isFinite ? d : nil,
                                     province: chain[.province], city: chain[.city], district: nil)
                }
                if c.isRegion {
                    let e = try regions.entry(c.key, db)!
                    let chain = try ancestors(of: e, db: db, system: options.system)
                    return SearchHit(kind: .region(e.region(system: options.system)), match: c.match,
                                     distance: d.isFinite ? d : nil, province: chain[.province], city: chain[.city],
                                     district: chain[.district])
                }
                let poi = try finder.load([c.key], system: options.system)[0]
                let adcode = poi.adcode.flatMap { Int64($0) }
                let chain = try adcode.flatMap { chains[$0] } ?? regionsOf(adcode: adcode, db: db, system: options.system)
                if let adcode { chains[adcode] = chain }
                return SearchHit(kind: .poi(poi), match: c.match, distance: d.isFinite ? d : nil,
                                 province: chain[.province], city: chain[.city], district: chain[.district])
            }
            return SearchResult(hits: hits, count: total)
        }
    }

    /// The first `count` of `items` by distance, then rowid (the order of a full sort, whose
    /// tail no page reaches): a selection puts them in front, and only they are sorted.
    static func nearestFirst(_ items: inout [(Int64, Double)], count: Int) -> ArraySlice<(Int64, Double)> {
        func less(_ a: (Int64, Double), _ b: (Int64, Double)) -> Bool { (a.1, a.0) < (b.1, b.0) }
        let k = min(count, items.count)
        if k * 4 < items.count {
            // Quickselect: afterwards items[..<k] holds the k first (keys are unique: rowids).
            var lo = 0, hi = items.count - 1
            while lo < hi {
                let pivot = items[(lo + hi) / 2]
                var i = lo, j = hi
                while i <= j {
                    while less(items[i], pivot) { i += 1 }
                    while less(pivot, items[j]) { j -= 1 }
                    if i <= j { items.swapAt(i, j); i += 1; j -= 1 }
                }
                if k - 1 <= j { hi = j } else if k - 1 >= i { lo = i } else { break }
            }
            items[..<k].sort(by: less)
        } else {
            items.sort(by: less)
        }
        return items[..<k]
    }

    /// Most POIs of one match class read and ranked together; the rest of the class follows
    /// them in its own order.
    static let rankedClassLimit = 100

    /// The window when a category filter or a preferred city applies.
    static let filteredClassLimit = 300
}
