import Foundation

/// Reads a free-text Chinese address as a path down the region tree: at each step, the
/// regions whose full or short name starts the rest of the text, below what was matched so
/// far (levels may be skipped: 西湖区灵隐街道 names no province). The path that reads the most
/// text wins, so 西湖区灵隐街道 picks Hangzhou's 西湖区 (the one with a 灵隐街道) over Nanchang's.
struct AddressParser {
    let db: Connection
    let cache: RegionCache

    /// Longest region name tried, in characters.
    static let maxNameLength = 16

    struct Path {
        var chain: [RegionCache.Entry] = []
        /// Where the text stood after each element of `chain` (scope elements included).
        var ends: [Int] = []
        var consumed = 0
        var skipped = 0
        var shortMatches = 0
        /// The path starts with a short name of a district or town, with nothing above it:
        /// 天安 (乡) in 天安门. Only kept when a deeper region follows or the text ends there.
        var weakStart = false

        func isAcceptable(textLength: Int) -> Bool {
            !(weakStart && chain.count == 1 && consumed < textLength)
        }

        /// Better reads more text, then skips fewer levels, then uses fewer short names, then
        /// ends higher in the tree (a bare 朝阳 is the city before the towns).
        func isBetter(than o: Path) -> Bool {
            (consumed, -skipped, -shortMatches, -(chain.last?.level.rawValue ?? 9))
                > (o.consumed, -o.skipped, -o.shortMatches, -(o.chain.last?.level.rawValue ?? 9))
        }
    }

    /// Strips what is not part of the address proper: spaces, a leading 中国, full-width digits.
    static func normalize(_ text: String) -> [Character] {
        var s = String(text.unicodeScalars.map { u -> Character in
            if (0xFF10...0xFF19).contains(u.value) || (0xFF21...0xFF3A).contains(u.value) || (0xFF41...0xFF5A).contains(u.value) {
                return Character(Unicode.Scalar(u.value - 0xFEE0)!)
            }
            return Character(u)
        }.filter { !$0.isWhitespace && !$0.isNewline && $0 != "," && $0 != "，" })
        for prefix in ["中华人民共和国", "中国"] where s.hasPrefix(prefix) { s.removeFirst(prefix.count) }
        return Array(s)
    }

    /// Words that, right after a short name, show it is part of a street or landmark name
    /// (长安街, 南京路, 天安门, 中山大道), not a region.
    static let streetWords = ["路", "街", "巷", "弄", "胡同", "门", "桥", "号", "道", "大街", "大道", "广场", "大厦", "公园"]

    /// Regions whose name or short name is a prefix of `rest`, with the characters each reads.
    func prefixMatches(_ rest: ArraySlice<Character>) throws -> [(entry: RegionCache.Entry, length: Int, short: Bool)] {
        let n = min(rest.count, Self.maxNameLength)
        guard n >= 2 else { return [] }
        let prefixes = (2...n).map { String(rest.prefix($0)) }
        let marks = Array(repeating: "?", count: prefixes.count).joined(separator: ",")
        let codes = try db.prepare("""
            SELECT code FROM region WHERE name IN (\(marks)) UNION SELECT code FROM region WHERE short_name IN (\(marks))
            """).rows((prefixes + prefixes).map { .text($0) }) { $0.int64(0) }
        return try codes.compactMap { code in
            guard let e = try cache.entry(code, db) else { return nil }
            let text = String(rest.prefix(n))
            if text.hasPrefix(e.name) { return (e, e.name.count, false) }
            if let s = e.shortName, s.count >= 2, text.hasPrefix(s) {
                let after = text.dropFirst(s.count)
                if Self.streetWords.contains(where: { after.hasPrefix($0) }) { return nil }
                return (e, s.count, true)
            }
            return nil
        }
    }

    /// The best path through `text`, starting below `scope` when given.
    func parse(_ text: [Character], scope: RegionCache.Entry?) throws -> Path {
        var start = Path()
        if let scope {
            var chain: [RegionCache.Entry] = []
            var next: RegionCache.Entry? = scope
            while let e = next {
                chain.insert(e, at: 0)
                next = try e.parent.flatMap { try cache.entry($0, db) }
            }
            start.chain = chain
            // A scope named in the text again ("杭州市西湖区" with --city 杭州) is read over.
            for e in chain {
                let rest = String(text[start.consumed...])
                if rest.hasPrefix(e.name) { start.consumed += e.name.count }
                else if let s = e.shortName, s.count >= 2, rest.hasPrefix(s) { start.consumed += s.count }
                start.ends.append(start.consumed)
            }
        }
        var best = start
        var memo: [String: Path] = [:]
        func explore(_ path: Path) throws {
            if path.isAcceptable(textLength: text.count) && path.isBetter(than: best) { best = path }
            if path.chain.last?.level == .town { return }
            let key = "\(path.consumed):\(path.chain.last?.code ?? 0)"
            if let seen = memo[key], !path.isBetter(than: seen) { return }
            memo[key] = path
            for m in try prefixMatches(text[path.consumed...]) {
                if let parent = path.chain.last {
                    guard m.entry.level > parent.level,
                          ReverseGeocoder.isWithin(m.entry.code, parent.code, level: parent.level.rawValue)
                    else { continue }
                }
                var next = path
                if let parent = path.chain.last { next.skipped += try skipped(from: parent, to: m.entry) }
                next.chain.append(m.entry)
                next.consumed += m.length
                next.ends.append(next.consumed)
                next.shortMatches += m.short ? 1 : 0
                next.weakStart = path.chain.isEmpty && m.short && m.entry.level >= .district
                    ? true : (path.chain.isEmpty ? false : path.weakStart)
                try explore(next)
            }
        }
        try explore(start)
        return best
    }

    /// Regions of the tree between `ancestor` and `e` that the text did not name (a level
    /// the tree lacks, as under a municipality, costs nothing).
    func skipped(from ancestor: RegionCache.Entry, to e: RegionCache.Entry) throws -> Int {
        var count = 0
        var next = e.parent
        while let code = next, code != ancestor.code, let p = try cache.entry(code, db) {
            count += 1
            next = p.parent
        }
        return count
    }
}

extension Repository {
    /// The POI whose name starts `text` (longest first), inside `region` when given.
    func poiPrefix(_ text: ArraySlice<Character>, inside region: RegionCache.Entry?, db: Connection) throws -> (Int64, Int)? {
        let n = min(text.count, 40)
        guard n >= 2 else { return nil }
        let prefixes = (2...n).map { String(text.prefix($0)) }
        let marks = Array(repeating: "?", count: prefixes.count).joined(separator: ",")
        // The name, not SQLite's length(name): that counts code points, and the caller indexes
        // `text` by Characters (☕️ is one Character of two code points).
        var sql = "SELECT rowid, name FROM poi WHERE name IN (\(marks))"
        var values: [SQLiteValue] = prefixes.map { .text($0) }
        if let region {
            let (lo, hi) = KeywordSearcher.adcodeRange(region)
            sql += " AND +adcode BETWEEN ? AND ?" // `+`: look names up by name, never scan a region by adcode
            values += [.integer(lo), .integer(hi)]
        }
        sql += " ORDER BY length(name) DESC, rowid LIMIT 1"
        if let found = try db.prepare(sql).first(values, { ($0.int64(0), $0.text(1).count) }) { return found }
        // The rest of the text may be the start of a longer POI name: 南京大学 → 南京大学(鼓楼校区).
        let rest = String(text.prefix(40))
        guard rest.count >= 2 else { return nil }
        var sql2 = "SELECT rowid FROM poi WHERE name >= ? AND name < ?"
        var values2: [SQLiteValue] = [.text(rest), .text(KeywordSearcher.upperBound(rest))]
        if let region {
            let (lo, hi) = KeywordSearcher.adcodeRange(region)
            sql2 += " AND +adcode BETWEEN ? AND ?"
            values2 += [.integer(lo), .integer(hi)]
        }
        // A branch of the same name (南京大学(鼓楼校区)) before a different one (南京大学金陵学院).
        sql2 += " ORDER BY substr(name, ?, 1) IN ('(', '（') DESC, length(name), rowid LIMIT 1"
        values2.append(.integer(Int64(rest.count + 1)))
        return try db.prepare(sql2).first(values2) { ($0.int64(0), rest.count) }
    }

    /// A free-text Chinese address to the best region or POI and its location (地理编码).
    ///
    /// Tolerates missing suffixes (浙江杭州西湖灵隐), missing levels (西湖区灵隐街道) and detail
    /// after the last known part (…灵隐街道法云弄16号, reported as `unmatched`).
    ///
    /// - Parameter city: a city (name or adcode) the address lies in, to resolve ambiguity.
    /// - Returns: nil when nothing in the text is a known region or POI.
    public func geocode(_ address: String, city: String? = nil, system: CoordinateSystem = .gcj02) throws(GazetteerError) -> Geocode? {
        let text = AddressParser.normalize(address)
        guard !text.isEmpty else { return nil }
        guard text.count <= 200 else { throw .invalidArgument(name: "address", reason: "is longer than 200 characters") }
        return try read { db in
            let parser = AddressParser(db: db, cache: regions)
            let scope = try city.map { try resolveRegion($0, db: db) }
            var path = try parser.parse(text, scope: scope)
            if scope != nil {
                // The city only resolves what the text leaves open: an address that names
                // another place outright (浙江省杭州市… with --city 北京) is read as written.
                let unscoped = try parser.parse(text, scope: nil)
                let namesPlace = unscoped.chain.first.map { $0.level <= .city } ?? false
                if namesPlace && unscoped.consumed > path.consumed { path = unscoped }
            }
            // The levels above the deepest match come from the tree.
            var chain = try path.chain.last.map { try regions.lineage($0, db) } ?? []
            var consumed = path.consumed
            // Then a POI: named after any matched region (or at the start), inside it; the
            // reading that covers the most text wins, so 北京大学 is the university, not 北京 + 大学.
            var poi: POI?
            var poiRegion: Int?  // how many chain elements stand before the POI
            for k in stride(from: path.chain.count, through: 0, by: -1) {
                let at = k == 0 ? 0 : path.ends[k - 1]
                guard at < text.count else { continue }
                let region = k == 0 ? nil : path.chain[k - 1]
                guard let (rowid, length) = try poiPrefix(text[at...], inside: region, db: db) else { continue }
                if at + length > consumed || (at + length == consumed && poi == nil && k == path.chain.count) {
                    consumed = at + length
                    poi = try POIFinder(db: db).load([rowid], system: system).first
                    poiRegion = k
                }
            }
            if let k = poiRegion {
                let named = k == 0 ? nil : path.chain[k - 1]
                chain = try named.map { try regions.lineage($0, db) } ?? []
                // The POI's own town (or district) completes the address.
                let own = poi.flatMap { Int64($0.towncode ?? "") ?? Int64($0.adcode ?? "") }
                if let own, let e = try regions.entry(own, db),
                   named.map({ ReverseGeocoder.isWithin(e.code, $0.code, level: $0.level.rawValue) && e.level > $0.level }) ?? true {
                    chain = try regions.lineage(e, db)
                }
            }
            let rest = String(text[consumed...])
            guard !chain.isEmpty || poi != nil else { return nil }
            var result = Geocode(level: poi != nil ? "兴趣点" : chain.last!.level.chineseName, province: nil, city: nil,
                                 district: nil, town: nil, poi: poi, location: nil, locationIsApproximate: false,
                                 formattedAddress: "", unmatched: rest)
            for e in chain {
                let r = regions.region(e, system: system)
                switch e.level {
                case .province: result.province = r
                case .city: result.city = r
                case .district: result.district = r
                case .town: result.town = r
                }
            }
            if let poi {
                result.location = poi.location
            } else if let deepest = chain.last {
                // A region without a centre borrows its parent's, and says so.
                var e: RegionCache.Entry? = deepest
                while let current = e, current.center == nil { e = try current.parent.flatMap { try regions.entry($0, db) } }
                result.location = e?.center?.converted(from: .gcj02, to: system)
                result.locationIsApproximate = e?.centerApproximate ?? true || e?.code != deepest.code
            }
            result.formattedAddress = chain.map(\.name).joined() + (poi?.name ?? "")
            return result
        }
    }
}
