import Foundation
import GazetteerCore
import GazetteerSQLite

/// Reads a free-text Chinese address as a path down the region tree: at each step, the
/// regions whose full or short name starts the rest of the text, below what was matched so
/// far (levels may be skipped: 西湖区灵隐街道 names no province). The path that reads the most
/// text wins, so 西湖区灵隐街道 picks Hangzhou's 西湖区 (the one with a 灵隐街道) over Nanchang's.
struct AddressParser {
    let db: Connection
    let cache: RegionCache
    /// Taken once per address, not per look-up: a copy out of the shared cache costs a lock.
    let names: RegionCache.Names
    /// Every region's row, when stored with the names: read without the cache's lock.
    let rows: RegionRows?
    /// Every POI's name, when a batch has loaded them (see `Repository.poiPrefix`).
    let poiNames: POINames?

    /// Whether some POI's name starts with two characters (packed, see `Repository.poiPrefix`),
    /// for this parser's one read.
    func poiStart(_ two: UInt64, _ ask: () throws -> Bool) rethrows -> Bool {
        if let known = memo.pointee.poiStarts[Int64(bitPattern: two)] { return known }
        let found = try ask()
        // Kept from query to query, bounded: a service's callers could write any pairs.
        if memo.pointee.poiStarts.count >= 1 << 16 { memo.pointee.poiStarts = CodeMap() }
        memo.pointee.poiStarts.set(Int64(bitPattern: two), found)
        return found
    }

    /// What this parser remembers (see `Memo.Storage`).
    private var memo: UnsafeMutablePointer<Memo.Storage> {
        assert(memoBox.storage.pointee.inUse, "a parser used after finish()")
        return memoBox.storage
    }
    private let memoBox: Memo

    /// Hands what this parser learnt of the regions to the next (see `RegionCache.takeParserMemo`);
    /// the parser, and its copies, are not to be used after (debug builds check).
    func finish() {
        memoBox.storage.pointee.inUse = false
        cache.giveBack(parserMemo: memoBox, db)
    }

    /// Held through a pointer: the search reads and writes these at every step, and a class's
    /// own stored properties are checked for exclusive access at run time at each use (a
    /// twentieth of a batch's instructions). Nothing here is reached while a use is under way.
    /// Sendable as the cache hands it over, under its lock, to one parser at a time.
    private final class Memo: @unchecked Sendable {
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)

        init() { storage.initialize(to: Storage()) }

        deinit {
            storage.deinitialize(count: 1)
            storage.deallocate()
        }

        struct Storage {
            /// The matches found at each place of the text being read, by place: the search
            /// reaches a place by many paths (namesakes, a suffix read over or not) and the
            /// matches there are the same.
            var matches: [[Match]?] = []
            /// Regions by code, for this parser's one read: the shared cache takes a lock per look-up.
            var entries = CodeMap<Node>(minimumCapacity: 8192)
            var lineages = CodeMap<[Node]>(minimumCapacity: 8192)
            var poiStarts = CodeMap<Bool>()
            /// The search's best rank per place and last region (see `parse(_:scope:from:)`), by
            /// place: a few per text, where a dictionary made afresh per search hashed and grew.
            var ranks: [[(code: Int64, rank: Path.Rank)]] = []
            var ranked: [Int] = []
            /// Whether a parser holds this memo (see `finish`).
            var inUse = true
            /// `findMatches`' lists of codes, for the next call.
            var full: [(code: Int64, length: Int)] = [], short: [(code: Int64, length: Int)] = []

            /// Forgets the matches of the text before, for one of `count` characters.
            mutating func newText(_ count: Int) {
                matches.removeAll(keepingCapacity: true)
                matches.append(contentsOf: repeatElement(nil, count: count + 1))
            }

            /// Empty, for a text of `count` characters.
            mutating func clearRanks(_ count: Int) {
                for at in ranked { ranks[at].removeAll(keepingCapacity: true) }
                ranked.removeAll(keepingCapacity: true)
                if ranks.count <= count { ranks += Array(repeating: [], count: count + 1 - ranks.count) }
            }

            /// Whether `rank` beats what reached `at` with `code` last (or nothing did): then kept.
            mutating func improves(_ rank: Path.Rank, at: Int, code: Int64) -> Bool {
                if let i = ranks[at].firstIndex(where: { $0.code == code }) {
                    guard rank.isBetter(than: ranks[at][i].rank) else { return false }
                    ranks[at][i].rank = rank
                    return true
                }
                if ranks[at].isEmpty { ranked.append(at) }
                ranks[at].append((code, rank))
                return true
            }
        }
    }

    /// A region as the parser holds it: by reference. Paths and matches are copied at every
    /// step of the search, and a row by value is four strings to retain and release each time.
    final class Node {
        let row: RegionCache.Entry
        let code: Int64
        let parent: Int64?
        let level: RegionLevel
        var name: String { row.name }
        var shortName: String? { row.shortName }
        /// The names' `plainScalars`: the search tests whether the text restates them at every
        /// step, for the regions it has read (most regions it meets it never tests so).
        lazy var nameScalars = AddressParser.plainScalars(row.name)
        lazy var shortScalars = row.shortName.flatMap(AddressParser.plainScalars)

        init(_ row: RegionCache.Entry) {
            self.row = row
            (code, parent, level) = (row.code, row.parent, row.level)
        }

        /// The region as answers give it, made once per coordinate system: most answers of a
        /// batch name the same provinces and cities.
        func region(system: CoordinateSystem) -> Region {
            if let (s, r) = made, s == system { return r }
            let r = row.region(system: system)
            made = (system, r)
            return r
        }
        private var made: (CoordinateSystem, Region)?

        /// Whether `text` starts with the name.
        func nameStarts(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
            AddressParser.starts(text, with: name, scalars: nameScalars)
        }

        /// Whether `text` starts with the short name.
        func shortNameStarts(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
            guard let shortName else { return false }
            return AddressParser.starts(text, with: shortName, scalars: shortScalars)
        }
    }

    /// Region `code`: from the stored rows when there are some (a code they lack is no region,
    /// not a query), else as the cache gives it.
    func entry(_ code: Int64) throws -> Node? {
        if let e = memo.pointee.entries[code] { return e }
        let found = if let rows { rows.row(code) } else { try cache.entry(code, db) }
        guard let row = found else { return nil }
        let e = Node(row)
        memo.pointee.entries.set(code, e)
        return e
    }

    /// `e` and the regions above it, province first.
    func lineage(_ e: Node, depth: Int = 0) throws -> [Node] {
        if let known = memo.pointee.lineages[e.code] { return known }
        // The parent's lineage, remembered, then `e`: a copy per region met, not an insert per
        // level. A tree deeper than its four levels (a parent cycle in a damaged table) stops.
        var chain: [Node]
        if depth < 8, let code = e.parent, let p = try entry(code) {
            chain = try lineage(p, depth: depth + 1)
            chain.append(e)
        } else {
            chain = [e]
        }
        memo.pointee.lineages.set(e.code, chain)
        return chain
    }

    init(db: Connection, cache: RegionCache) throws {
        self.db = db
        self.cache = cache
        names = try cache.names(db)
        rows = cache.rows(db)
        poiNames = cache.poiNames(db)
        memoBox = cache.takeParserMemo(db) as? Memo ?? Memo()
        memoBox.storage.pointee.inUse = true
    }

    /// Longest region name tried, in characters.
    static let maxNameLength = 16

    struct Path {
        var chain: [Node] = []
        /// Where the text stood after each element of `chain` (scope elements included).
        var ends: [Int] = []
        var consumed = 0
        /// Characters read over without naming a region: separators, a level repeated
        /// (北京北京市, 杭州市杭州市) and the code list's fillers (市辖区, 省直辖县). They end the
        /// match later but count for nothing, so a real region always beats them.
        var filler = 0
        /// Where the address starts: text before it (a name, a phone number, 地址：) is noise.
        var start = 0
        var skipped = 0
        var shortMatches = 0
        /// Former names read on the way (襄樊市), said in the answer.
        var formers: [String] = []
        /// The functional zone the text ends in (长春经开区), when nothing deeper follows.
        var zone: FunctionalZones.Zone?
        /// The path starts with a short name of a district or town, with nothing above it:
        /// 天安 (乡) in 天安门. Only kept when a deeper region follows or the text ends there.
        var weakStart = false
        /// The last region was read by its short name, so a suffix may follow.
        var lastShort = false
        /// Words inside the address that name nothing (海宁市华佳印刷机有限公司丁桥镇…), left
        /// unmatched with the rest.
        var noise: Range<Int>?
        /// Other regions the text reads as well as the last of `chain` (四季青街道 alone: one
        /// in Hangzhou, one in Handan).
        var namesakes: [Node] = []

        func isAcceptable(textLength: Int) -> Bool {
            !(weakStart && chain.count == 1 && (consumed < textLength || start > 0))
        }

        /// Better reads more text, then uses fewer former names (today's 江东区 before a merged
        /// one), then skips fewer levels, then uses fewer short names, then ends higher in the
        /// tree (a bare 朝阳 is the city before the towns), then starts earlier, then reads over
        /// more filler (峰江镇's 镇 is not left unmatched).
        func isBetter(than o: Path) -> Bool { rank.isBetter(than: o.rank) }

        /// What `isBetter` compares, without the path's arrays: the search keeps one per place
        /// it reaches, where a whole path kept was arrays retained and released at every step.
        struct Rank {
            var read, formers, skipped, shortMatches, level, start, consumed: Int

            func isBetter(than o: Rank) -> Bool {
                (read, -formers, -skipped, -shortMatches, -level, -start) > (o.read, -o.formers, -o.skipped, -o.shortMatches, -o.level, -o.start)
                    || (read, formers, skipped, shortMatches, level, start) == (o.read, o.formers, o.skipped, o.shortMatches, o.level, o.start)
                        && consumed > o.consumed
            }
        }

        /// No level is 9: a path with no region ranks below every level.
        var rank: Rank {
            Rank(read: read, formers: formers.count, skipped: skipped, shortMatches: shortMatches,
                 level: chain.last?.level.rawValue ?? 9, start: start, consumed: consumed)
        }

        /// Characters that named regions.
        var read: Int { consumed - start - filler }

        /// This reading of the later text, taking over where `earlier`, read first, began and
        /// what it read over (placedLater, continuedLater).
        mutating func carry(_ earlier: Path) {
            start = earlier.start
            filler += earlier.filler
            shortMatches += earlier.shortMatches
            formers = earlier.formers + formers
        }
    }

    /// Strips what is not part of the address proper: spaces, a leading 中国, full-width digits.
    /// The text is read as Unicode scalars, not Characters: composed, a Chinese address is one
    /// scalar per character, and a Character costs a String's work at every comparison.
    static func normalize(_ text: String) -> [Unicode.Scalar] {
        // Composed, so a name matches whichever way its characters were encoded.
        let composed = text.composed
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(composed.utf8.count / 3 + 4)
        for u in composed.unicodeScalars {
            // Most of an address: a CJK ideograph, kept as it is.
            if (0x4E00...0x9FFF).contains(u.value) {
                scalars.append(u)
            } else if u.value < 0x80 {
                // ASCII (house numbers, a phone number): no marks here, and whitespace and
                // control characters are the bytes up to the space, and DEL.
                if u.value > 0x20, u.value != 0x7F, !Self.asciiSeparators[Int(u.value)] { scalars.append(u) }
            } else if (0xFF10...0xFF19).contains(u.value) || (0xFF21...0xFF3A).contains(u.value) || (0xFF41...0xFF5A).contains(u.value) {
                scalars.append(Unicode.Scalar(u.value - 0xFEE0)!)
            } else if !u.properties.isWhitespace, !Self.separatorScalars.contains(u), !Self.isStrayMark(u, after: scalars.last),
                      // Control characters (a NUL, an escape pasted in) are no part of an address.
                      u.properties.generalCategory != .control {
                scalars.append(u)
            }
        }
        for prefix in Self.countryNames where scalars.starts(with: prefix.unicodeScalars) {
            scalars.removeFirst(prefix.unicodeScalars.count)
        }
        return scalars
    }

    /// The country's names, read over where an address starts with one.
    static let countryNames = ["中华人民共和国", "中国"]

    /// A combining mark on a Chinese character (省́): nothing composes with it, and it would
    /// otherwise stand between two names as a character of its own.
    static func isStrayMark(_ u: Unicode.Scalar, after previous: Unicode.Scalar?) -> Bool {
        guard let previous, (0x3400...0x9FFF).contains(previous.value) || (0x20000...0x3FFFF).contains(previous.value) else { return false }
        switch u.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: return !(0xFE00...0xFE0F).contains(u.value)
        default: return false
        }
    }

    /// Separators people put between the parts of an address (浙江省-杭州市-滨江区, 省/市/区,
    /// 北京·朝阳): dropped everywhere, as spaces and commas are.
    private static let separatorScalars: Set<Unicode.Scalar> = [",", "，", "、", "/", "／", "·", "•", "・", "|", "｜", "-", "－", "—", "–", "~", "～", ";", "；", ":", "：", "_"]
    /// `separatorScalars` by ASCII value, looked up without hashing.
    private static let asciiSeparators: [Bool] = (0..<0x80).map { separatorScalars.contains(Unicode.Scalar(UInt8($0))) }

    /// What the code list and AMap put where a level is missing (上海市市辖区, 湖北省省直辖县仙桃市,
    /// 重庆市重庆城区黔江区, 重庆郊县): read over between levels. Longest first.
    /// Hong Kong's and Macau's areas (新界, 九龙), which group districts but are not in the tree.
    static let fillers = Words(["自治区直辖县级行政区划", "省直辖县级行政区划", "县级行政区划", "省直辖县", "直辖县", "市辖区", "城区", "郊县", "辖区",
                          "新界", "九龙", "香港岛", "澳门半岛", "氹仔", "路环", "null", "NULL"])

    /// Whether `text` starts with the suffix of a level other than `level` (and not of its own).
    static func otherLevelSuffix(_ text: ArraySlice<Unicode.Scalar>, _ level: RegionLevel) -> Bool {
        let (own, others) = levelSuffixes[level.rawValue]
        return others.start(text) && !own.start(text) && !notSuffixes.start(text)
    }

    /// Words that start with a level's suffix but are none (杭州旗舰店: a flagship store, not a
    /// banner named 杭州).
    static let notSuffixes = Words(["旗舰", "区域", "县城", "镇店"])

    /// Per level (by raw value): its own suffixes, and those of the other levels below a province.
    private static let levelSuffixes: [(own: Words, others: Words)] = {
        let levels = RegionLevel.allCases.sorted { $0.rawValue < $1.rawValue }
        precondition(levels.map(\.rawValue) == Array(0..<levels.count), "levels are numbered 0, 1, 2…")
        return levels.map { level in
            (Words(suffixes(level)), Words(levels.filter { $0 != level && $0 != .province }.flatMap { suffixes($0) }))
        }
    }()

    /// A level's suffix after a short name, read over: 峰江镇 where the town is now 峰江街道.
    static func suffixes(_ level: RegionLevel?) -> [String] {
        level.map { suffixTable[$0.rawValue] } ?? []
    }

    /// `suffixes` as `Words`, for the text at hand.
    static func suffixWords(_ level: RegionLevel?) -> Words {
        level.map { suffixWordTable[$0.rawValue] } ?? Words([])
    }

    /// `suffixes` per level, made once: the search asks at every step.
    private static let suffixTable = RegionLevel.allCases.sorted { $0.rawValue < $1.rawValue }.map(listedSuffixes)
    private static let suffixWordTable = suffixTable.map(Words.init)

    private static func listedSuffixes(_ level: RegionLevel?) -> [String] {
        switch level {
        case .province: ["省", "自治区"]  // 广西省, 内蒙古省: wrong, and common
        case .town: ["街道", "镇", "乡", "街"]
        case .district: ["区", "县", "市", "旗"]
        case .city: ["市", "地区", "州", "盟"]
        default: []
        }
    }

    /// Words that, right after a short name, show it is part of a street or landmark name
    /// (长安街, 南京路, 天安门, 中山大道), not a region.
    static let streetWords = Words(["路", "街", "巷", "弄", "胡同", "门", "桥", "号", "道", "大街", "大道", "广场", "大厦", "公园",
                                    "环路", "东路", "西路", "南路", "北路", "中路", "东街", "西街", "南街", "北街", "中街"])
    /// Words that, right after a region's full name, make it a road's (丁桥镇路), not the region.
    static let roadWords = Words(["路", "街", "大街", "大道", "巷", "弄", "道"])
    /// Words that, right after a town's short name, show a place named after it (坎墩工业园区,
    /// 城南家园, 新桥工业园): the town itself only when its district was just read (坎墩 under
    /// 慈溪市), never at the start of an address or under a district it is not in.
    static let placeWords = Words(["花园", "小区", "家园", "新村", "新城", "公寓", "工业园", "工业区", "园区", "校区",
                                   "商城", "市场", "大学", "学院", "中学", "小学", "医院"])

    /// Regions whose name or short name is a prefix of `rest`, with the characters each reads.
    func prefixMatches(_ rest: ArraySlice<Unicode.Scalar>) throws -> [Match] {
        // A place in the text being read (`parse` sized the memo for it).
        guard rest.startIndex < memo.pointee.matches.count else { return try findMatches(rest) }
        if let known = memo.pointee.matches[rest.startIndex] { return known }
        let found = try findMatches(rest)
        memo.pointee.matches[rest.startIndex] = found
        return found
    }

    private func findMatches(_ rest: ArraySlice<Unicode.Scalar>) throws -> [Match] {
        let prefixes = wholeNames(startingAt: rest)
        guard !prefixes.isEmpty else { return [] }
        // What follows a name is read no further than the names were.
        let window = rest.prefix(Self.maxNameLength)
        // Each code once: by its full name if the text has it, else by its short name (the
        // longest of each; sorted, as a short name may be hundreds of towns' (城关)).
        // The lists kept from call to call (`Memo.Storage`): made afresh, each grew a few times.
        var full: [(code: Int64, length: Int)] = [], short: [(code: Int64, length: Int)] = []
        swap(&full, &memo.pointee.full)
        swap(&short, &memo.pointee.short)
        defer {
            full.removeAll(keepingCapacity: true)
            short.removeAll(keepingCapacity: true)
            swap(&full, &memo.pointee.full)
            swap(&short, &memo.pointee.short)
        }
        for (length, key) in prefixes {
            let p = rest.prefix(length)
            names.forEachCode(p, key, short: false) { full.append(($0, length)) }
            names.forEachCode(p, key, short: true) { short.append(($0, length)) }
        }
        Self.keepLongestPerCode(&full)
        Self.keepLongestPerCode(&short)
        // What follows a short name, looked at once per length rather than once per namesake.
        struct After {
            var length: Int
            var street, place, jie: Bool
            /// The regions named there: looked up only where a test below needs them (a short
            /// name that is also read in full, or followed by a street word).
            var children: [Int64]?
        }
        var afters: [After] = []  // a few lengths: no hashing
        func afterIndex(_ length: Int) -> Int {
            if let known = afters.firstIndex(where: { $0.length == length }) { return known }
            let text = window.dropFirst(length)
            afters.append(After(length: length, street: Self.streetWords.start(text), place: Self.placeWords.start(text),
                                jie: Self.starts(text, with: "街")))
            return afters.count - 1
        }
        func after(_ length: Int) -> After { afters[afterIndex(length)] }
        func children(_ length: Int) -> [Int64] {
            let i = afterIndex(length)
            if let known = afters[i].children { return known }
            let codes = namedAtStart(of: window.dropFirst(length))
            afters[i].children = codes
            return codes
        }
        var matches: [Match] = []
        matches.reserveCapacity(full.count + short.count)
        // Each code once, in code order (both lists are), with what its full and short names read.
        var i = 0, j = 0
        while i < full.count || j < short.count {
            let code: Int64, byFull: Int?, byShort: Int?
            if j == short.count || i < full.count && full[i].code < short[j].code {
                (code, byFull, byShort) = (full[i].code, full[i].length, nil)
                i += 1
            } else if i == full.count || short[j].code < full[i].code {
                (code, byFull, byShort) = (short[j].code, nil, short[j].length)
                j += 1
            } else {
                (code, byFull, byShort) = (full[i].code, full[i].length, short[j].length)
                i += 1
                j += 1
            }
            guard let e = try entry(code) else { continue }
            if let f = byFull { matches.append(Match(entry: e, length: f, short: false)) }
            guard let length = byShort else { continue }
            let next = after(length)
            // Its full name read too, the short name counts only where a region under it starts
            // after it: 青岛市北区 is 青岛 + 市北区, not 青岛市 + 北区.
            if byFull != nil, !Self.childNamed(e, among: children(length)) { continue }
            // 白云湖街 is 白云湖街道 so shortened, not a street.
            let townStreet = e.level == .town && next.jie && Self.ends(e.name, with: "街道")
            if !townStreet, next.street, !Self.childNamed(e, among: children(length)) { continue }
            // Another level's suffix: 江东区 is not 江东乡 with 区 left over.
            if Self.otherLevelSuffix(window.dropFirst(length), e.level) {
                // 恩施区: the county-level city that bears its prefecture's short name (恩施市 in
                // 恩施州), written with another suffix of its level.
                if e.level == .city, let m = try namesakeSeat(of: e, length: length, in: window) { matches.append(m) }
                continue
            }
            matches.append(Match(entry: e, length: length, short: true, needsParent: e.level == .town && (townStreet || next.place)))
        }
        // Former names (襄樊, 下城区, 柳州地区): today's region, read as if named; a name that is
        // also a region's own today (江东区 in 宁波 was merged, 江东区 in 衡阳 is not) is both.
        for (length, key) in prefixes where names.mayBeFormer(key) {
            for f in FormerNames.entries(rest.prefix(length), key: key) {
                guard let e = try entry(f.code), !matches.contains(where: { $0.entry.code == e.code && $0.length >= length }) else { continue }
                // A name a neighbour bears today is that neighbour's: 瑞安 in 温州 is 瑞安市, not
                // the 乐清 an old code of 瑞安县 went to.
                if matches.contains(where: { $0.former == nil && $0.length >= length && $0.entry.parent == e.parent && $0.entry.level == e.level }) { continue }
                // A former name's short form that is some region's name today is that region's:
                // 上海 is 上海市, not the 上海县 merged into 闵行区.
                let shortened = length < f.name.unicodeScalars.count
                if shortened, !(names.codes(rest.prefix(length), key, short: true) + names.codes(rest.prefix(length), key, short: false)).isEmpty { continue }
                let after = window.dropFirst(length)
                if shortened, Self.streetWords.start(after) { continue }
                matches.append(Match(entry: e, length: length, short: shortened, former: f.name))
            }
        }
        // Functional zones (长春经开区): the statutory region holding them, the zone noted.
        for (length, key) in prefixes where names.mayBeZone(key) {
            for z in FunctionalZones.byName[rest.prefix(length).string] ?? [] {
                guard let e = try entry(z.region) else { continue }
                matches.append(Match(entry: e, length: length, short: false, zone: z))
            }
        }
        return matches
    }

    /// The district under city `e` named as `e`'s short name (`length` characters of `window`)
    /// with a district's suffix, when the text gives it a district's suffix too: 恩施区 for 恩施市.
    private func namesakeSeat(of e: Node, length: Int, in window: ArraySlice<Unicode.Scalar>) throws -> Match? {
        let after = window.dropFirst(length)
        guard let written = Self.suffixes(.district).first(where: { Self.starts(after, with: $0) }) else { return nil }
        for suffix in Self.suffixes(.district) {
            let name = Array(window.prefix(length)) + Array(suffix.unicodeScalars)
            for code in names.codes(name[...], NameKey(scalars: name), short: false) {
                guard let d = try entry(code), d.parent == e.code, d.level == .district else { continue }
                return Match(entry: d, length: length + written.unicodeScalars.count, short: true)
            }
        }
        return nil
    }

    /// Each code once, with its longest length, in code order; in place, as this runs at every
    /// place the search reaches. Mostly one name length found codes, in the name table's order
    /// (newest first, see `NameTable.walk`): then reversing sorts them.
    static func keepLongestPerCode(_ list: inout [(code: Int64, length: Int)]) {
        guard list.count > 1 else { return }
        if (1..<list.count).allSatisfy({ list[$0 - 1].code > list[$0].code }) {
            list.reverse()
        } else if !(1..<list.count).allSatisfy({ list[$0 - 1].code < list[$0].code }) {
            list.sort { ($0.code, $0.length) < ($1.code, $1.length) }
        }
        var kept = 0
        for i in list.indices {
            if kept > 0, list[kept - 1].code == list[i].code { list[kept - 1].length = list[i].length } else {
                list[kept] = list[i]
                kept += 1
            }
        }
        list.removeLast(list.count - kept)
    }

    struct Match {
        var entry: Node
        /// Characters of the text read.
        var length: Int
        /// Read by a short name (杭州 for 杭州市).
        var short: Bool
        /// The former name read (襄樊市 for today's 襄阳市).
        var former: String? = nil
        /// The functional zone read, placed in `entry`.
        var zone: FunctionalZones.Zone? = nil
        /// A town's short name followed by a place word (坎墩工业园区, see `placeWords`) or by
        /// 街 (白云湖街, or a street, 育才街): the town only right under its district.
        var needsParent = false
    }

    /// Whether one of `codes`, the regions named where the text goes on (`namedAtStart`), is
    /// under `e` (台州 followed by 路桥区 is the city, not 台州路; 芗城巷口 is 芗城区's 巷口街道;
    /// 温州桥头镇 is 温州's 桥头镇).
    static func childNamed(_ e: Node, among codes: [Int64]) -> Bool {
        codes.contains { $0 != e.code && AdminCode($0).isWithin(AdminCode(e.code), level: e.level) }
    }

    /// The regions whose name or short name starts `text`: found once for all the namesakes a
    /// short name before it may be (城关 is hundreds of towns).
    func namedAtStart(of text: ArraySlice<Unicode.Scalar>) -> [Int64] {
        var codes: [Int64] = []
        for name in wholeNames(startingAt: text) {
            names.forEachCode(text.prefix(name.length), name.key, short: false) { codes.append($0) }
            names.forEachCode(text.prefix(name.length), name.key, short: true) { codes.append($0) }
        }
        return codes
    }

    /// The starts of `text` that some region, former name or zone has as its name, with their
    /// keys: grown one character at a time and no further than such a name goes (on 路123号
    /// that is at once), two characters at least and `maxNameLength` at most.
    func wholeNames(startingAt text: ArraySlice<Unicode.Scalar>) -> [(length: Int, key: NameKey)] {
        let n = min(text.count, Self.maxNameLength)
        guard n >= 2 else { return [] }
        var found: [(length: Int, key: NameKey)] = []
        var key = NameKey()
        key.append(text.first!)
        for (i, c) in text.dropFirst().prefix(n - 1).enumerated() {
            key.append(c)
            guard names.isStart(key) else { break }
            guard names.isWhole(key) else { continue }
            found.append((i + 2, key))
        }
        return found
    }

    /// The best path through `text`, starting below `scope` when given. Text before the first
    /// region is skipped as noise (我家的地址是…, a phone number, a name), but only when the
    /// start of the text names nothing.
    func parse(_ text: [Unicode.Scalar], scope: RegionCache.Entry?) throws -> Path {
        memo.pointee.newText(text.count)
        let scope = try scope.map { try entry($0.code) ?? Node($0) }
        var best = try parse(text, scope: scope, from: 0)
        // Nothing at the start, or only a bare short name (盘龙 of 盘龙城经济开发区武汉市黄陂…):
        // the address may start later; what comes before it is noise.
        let bare = best.chain.count == 1 && best.shortMatches == 1 && scope == nil
        if best.read == 0 || bare {
            var tried = 0
            for at in stride(from: bare ? best.consumed : 1, to: text.count - 1, by: 1) where tried < 3 {
                guard !(try prefixMatches(text[at...]).isEmpty) else { continue }
                tried += 1
                let p = try parse(text, scope: scope, from: at)
                if p.isBetter(than: best), !bare || p.chain.count > 1 { best = p }
            }
        }
        if best.read > 0, let again = try restated(best, text) { return again }
        let placed = try placedLater(best, text) ?? best
        return try continuedLater(placed, text) ?? placed
    }

    /// 海宁市华佳印刷机有限公司丁桥镇广场路182号, 浙江省委托件杭州市…: the address goes on after
    /// words that name nothing, with a region under the last one read, written in full (so not
    /// a short name inside a company's or street's name): it is read from there, the words
    /// between left unmatched.
    func continuedLater(_ best: Path, _ text: [Unicode.Scalar]) throws -> Path? {
        guard let last = best.chain.last, last.level < .town, best.zone == nil else { return nil }
        let scoped = try lineage(last).count
        var at = best.consumed + 1
        while at < text.count - 1 {
            defer { at += 1 }
            // Full names only, looked up directly: most places start no name at all.
            let found = wholeNames(startingAt: text[at...]).contains { name in
                name.length >= 3 && !Self.roadWords.start(text[(at + name.length)...])
                    && !Self.namesAShop(text[(at + name.length)...])
                    && names.codes(text[at..<(at + name.length)], name.key, short: false).contains {
                        $0 != last.code && AdminCode($0).isWithin(AdminCode(last.code), level: last.level)
                    }
            }
            guard found else { continue }
            var later = try parse(text, scope: last, from: at)
            guard later.chain.count > scoped else { continue }
            // The path as read, then the rest: the words skipped are noise, kept unmatched.
            later.chain = best.chain + later.chain.dropFirst(scoped)
            later.ends = best.ends + later.ends.dropFirst(scoped)
            later.carry(best)
            later.filler += at - best.consumed
            // Names of the regions read, written again just before (北京市某某公司北京市朝阳区,
            // 吉林省某某公司吉林市船营区), are read over, not noise.
            var end = at
            if let deepest = later.chain.last {
                let written = try lineage(deepest).flatMap { e in [e.name] + (e.shortName.map { [$0] } ?? []) }
                    .map { Array($0.unicodeScalars) }.filter { $0.count >= 2 }
                while let n = written.first(where: { end - $0.count >= best.consumed && text[(end - $0.count)..<end].elementsEqual($0) }) {
                    end -= n.count
                }
            }
            later.noise = best.consumed..<end
            return later
        }
        return nil
    }

    /// Whether the text after a town's name names a shop or branch named after it (瓜沥镇土菜馆,
    /// 临浦镇小吃店, 瓜沥镇支行) before any road or number: such a name says nothing of where
    /// the address is.
    static func namesAShop(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        var rest = text.prefix(8)
        while let c = rest.first, !("0"..."9").contains(c), !roadWords.start(rest) {
            if shopWords.start(rest) { return true }
            rest = rest.dropFirst()
        }
        return false
    }

    static let shopWords = Words(["店", "馆", "支行", "分行", "超市", "酒楼", "餐厅", "饭庄", "酒家", "食府", "营业厅", "营业部", "门市"])

    /// A second address, from its province, after the first (…漯河市召陵区中国浙江省杭州市淳安县…:
    /// a label's default region, then the real one): the later is the address.
    func restated(_ best: Path, _ text: [Unicode.Scalar]) throws -> Path? {
        var at = best.consumed
        for prefix in Self.countryNames where text[at...].starts(with: prefix.unicodeScalars) { at += prefix.unicodeScalars.count }
        // A province in full there: its name is one of the whole names starting at `at` (all
        // the matches there, with their suffix and namesake checks, are not needed to tell).
        guard at < text.count - 2,
              try wholeNames(startingAt: text[at...]).contains(where: { length, key in
                  try names.codes(text[at...].prefix(length), key, short: false).contains { try entry($0)?.level == .province }
              })
        else { return nil }
        let later = try parse(text, scope: nil, from: at)
        // In full and at least as deep as the first: not a province's short name in a street
        // name (…河北三号…), not a province and a bare town after a district (…普宁市浙江省南白象街道).
        guard later.chain.count >= max(2, best.chain.count), later.chain.first?.level == .province,
              later.shortMatches == 0, later.read > 0 else { return nil }
        return later
    }

    /// 四季青街道江干区清江路: a bare town or district first, its place after it. When the rest
    /// of the text names a region holding that name (the one read, or a namesake), the two
    /// readings join: the later text decides between namesakes.
    func placedLater(_ best: Path, _ text: [Unicode.Scalar]) throws -> Path? {
        guard best.chain.count == 1, let first = best.chain.first, first.level >= .district, best.consumed < text.count else { return nil }
        let later = try parse(text, scope: nil, from: best.consumed)
        // The text starts again, in full, after a bare name (金城镇江苏省常州市金坛区金城镇…).
        if later.read > best.read, later.chain.count > 1 { return later }
        guard let place = later.chain.last, place.level < first.level else { return nil }
        // Namesakes by the name as read: 新集镇 is also the 新集街道 of 新县.
        let read = text[best.start..<best.ends[0]]
        var forms = [read]
        for suffix in Self.suffixes(first.level) {
            let n = suffix.unicodeScalars.count
            if read.count > n + 1, read.suffix(n).elementsEqual(suffix.unicodeScalars) { forms.append(read.dropLast(n)) }
        }
        var namesakes: Set<Int64> = [first.code]
        for form in forms {
            let key = NameKey(scalars: form)
            namesakes.formUnion(names.codes(form, key, short: false) + names.codes(form, key, short: true))
        }
        for code in namesakes.sorted(by: { a, b in a == first.code || (b != first.code && a < b) }) {
            guard let e = try entry(code), e.level == first.level,
                  AdminCode(e.code).isWithin(AdminCode(place.code), level: place.level) else { continue }
            var joined = later
            joined.chain.append(e)
            joined.ends.append(later.consumed)
            joined.carry(best)
            return joined
        }
        return nil
    }

    /// The best path through `text` from `offset`, starting below `scope` when given.
    func parse(_ text: [Unicode.Scalar], scope: Node?, from offset: Int) throws -> Path {
        var start = Path()
        start.consumed = offset
        start.start = offset
        if let scope {
            start.chain = try lineage(scope)
            // A scope named in the text again ("杭州市西湖区" with --city 杭州) is read over.
            for e in start.chain {
                let rest = text[start.consumed...]
                if Self.starts(rest, with: e.name) { start.consumed += e.name.unicodeScalars.count }
                else if let s = e.shortName, s.unicodeScalars.count >= 2, Self.starts(rest, with: s) { start.consumed += s.unicodeScalars.count }
                start.ends.append(start.consumed)
            }
        }
        var best = start
        memo.pointee.clearRanks(text.count)
        func explore(_ path: Path) throws {
            if path.isAcceptable(textLength: text.count) {
                if path.isBetter(than: best) {
                    best = path
                    best.namesakes = []
                } else if !best.isBetter(than: path), let a = path.chain.last, let b = best.chain.last, a.code != b.code,
                          !best.namesakes.contains(where: { $0.code == a.code }) {
                    best.namesakes.append(a)
                }
            }
            let atTown = path.chain.last?.level == .town
            guard memo.pointee.improves(path.rank, at: path.consumed, code: path.chain.last?.code ?? 0) else { return }
            // A level named again or a filler: read over it, then go on from there.
            if !path.chain.isEmpty, path.consumed < text.count {
                // Names and fillers are no longer than `maxNameLength`; the rest of a long text
                // need not be copied at every step.
                let rest = text[path.consumed...]
                var over: [Int] = atTown ? [] : Self.fillers.starting(rest).map(\.unicodeScalars.count)
                // The code list's 县 of a municipality (重庆市县城口县: 500200 县).
                if let last = path.chain.last, last.level == .province, last.code % 10_000 == 0,
                   [110000, 120000, 310000, 500000].contains(last.code), rest.first == "县" { over.append(1) }
                // The level's suffix after a short name (峰江镇): a bare town so written is
                // named in full, no longer a weak start (宁围镇…).
                let suffixes = path.lastShort ? Self.suffixWords(path.chain.last?.level).startingLengths(rest) : []
                // A level already named, or above one named, written again: the text restarts
                // (台州市浙江省台州市椒江区…, 北京北京市…).
                if !atTown, let last = path.chain.last {
                    func restated(_ e: Node) {
                        if e.nameStarts(rest) { over.append(e.name.unicodeScalars.count) }
                        if let s = e.shortName, e.shortNameStarts(rest), s.unicodeScalars.count >= 2 {
                            // With a suffix of its level, maybe a former one (玉环市 written 玉环县).
                            let n = s.unicodeScalars.count
                            over.append(n + (Self.suffixWords(e.level).startingLengths(rest.dropFirst(n)).first ?? 0))
                        }
                    }
                    // The two lists one after the other, not joined into a new array at every step.
                    for e in try lineage(last) { restated(e) }
                    for e in path.chain.dropLast() { restated(e) }
                }
                for (n, isSuffix) in Self.unique(over).map({ ($0, false) }) + Self.unique(suffixes).map({ ($0, true) }) {
                    var next = path
                    next.lastShort = false
                    next.consumed += n
                    next.filler += n
                    if isSuffix && path.chain.count == 1 { next.weakStart = false }
                    try explore(next)
                }
            }
            if atTown { return }
            let matches = try prefixMatches(text[path.consumed...])
            // A town named under a district it has since left (余杭区乔司镇, 乔司 now in 临平区):
            // taken when it is the only town of that name in the city, at the cost of a level.
            var moved: Set<Int64> = []
            if let parent = path.chain.last, parent.level == .district, let code = parent.parent, let above = try entry(code) {
                // A municipality is one "city" of hundreds of towns: a short name unique in it
                // (新村 of 浦东新村) says little; there the town must be written in full or with
                // its suffix (两路镇).
                let wide = above.level == .province
                // So must a town whose short name is itself a street's (湘潭路 of 湘潭路街道).
                let suffixed = { (m: Match) in Self.suffixWords(.town).start(text[(path.consumed + m.length)...]) }
                let streetNamed = { (m: Match) in m.entry.shortName.map(Self.streetWords.end) ?? false }
                // Nor one whose name starts a zone's (奉化东郊开发区 is 奉化's, not 鄞州区's 东郊街道).
                let zoneNamed = { (m: Match) in Self.starts(text[(path.consumed + m.length)...], with: "开发区") }
                let outside = matches.filter {
                    $0.entry.level == .town && $0.zone == nil && !$0.needsParent
                        && (!$0.short || suffixed($0) || !(wide || streetNamed($0))) && !zoneNamed($0)
                        && !AdminCode($0.entry.code).isWithin(AdminCode(parent.code), level: parent.level)
                        && AdminCode($0.entry.code).isWithin(AdminCode(above.code), level: above.level)
                }
                // Only across a boundary that has changed (see `ChangedRegions`): 鹿城区南塘 is not
                // 乐清市's 南塘镇, 临海市东城镇 not 黄岩区's 东城街道, 玉环县城北 not 温岭's 城北街道.
                if outside.count == 1, let now = outside[0].entry.parent, ChangedRegions.mayHaveTraded(parent.code, now) {
                    moved = [outside[0].entry.code]
                }
            }
            for m in matches {
                // A zone in a region already named (长春市朝阳区长春经开区…): read, noted.
                if let z = m.zone, path.chain.contains(where: { $0.code == m.entry.code }) {
                    var next = path
                    next.consumed += m.length
                    next.zone = z
                    try explore(next)
                    continue
                }
                var next = path
                if m.needsParent, m.entry.parent != path.chain.last?.code { continue }
                if let parent = path.chain.last {
                    if moved.contains(m.entry.code) {
                        next.skipped += 2
                    } else if parent.level == .district || parent.level == .city, m.entry.level == parent.level,
                              m.entry.parent == parent.parent, m.entry.code != parent.code, !m.short, m.former == nil, m.zone == nil,
                              parent.level == .district || Self.childNamed(m.entry, among: namedAtStart(of: text[(path.consumed + m.length)...])) {
                        // A district, then another of the same city in full (鹿城区龙湾区…,
                        // 都匀市三都水族自治县…): the later, nearer the street, at a level's cost.
                        // So for a city, then another of the province in full with a region of
                        // its own after it (a label's default city: 浙江温州宁波市江北区…).
                        next.chain.removeLast()
                        next.ends.removeLast()
                        next.skipped += 1
                    } else {
                        guard m.entry.level > parent.level,
                              AdminCode(m.entry.code).isWithin(AdminCode(parent.code), level: parent.level)
                        else { continue }
                        next.skipped += try skipped(from: parent, to: m.entry)
                    }
                }
                next.chain.append(m.entry)
                next.consumed += m.length
                next.ends.append(next.consumed)
                next.shortMatches += m.short ? 1 : 0
                if let f = m.former { next.formers.append(f) }
                next.zone = m.zone
                next.lastShort = m.short
                // A bare district short name may start an address (柯桥轻纺城); a bare town's
                // may not (天安门 is not 天安乡).
                next.weakStart = path.chain.isEmpty && m.short && m.entry.level >= .town
                    ? true : (path.chain.isEmpty ? false : path.weakStart)
                try explore(next)
            }
        }
        try explore(start)
        return best
    }

    /// A list of words, and the characters they start with: most text starts with none of
    /// them, which one look-up tells.
    /// A class: the search copies its word lists at every step, and a struct of four arrays was
    /// four retains and releases each time.
    final class Words: Sendable {
        let list: [String]
        /// Each word's `plainScalars`.
        private let scalars: [[Unicode.Scalar]?]
        /// A few scalars, compared in a row: cheaper than hashing one, as most text is tested.
        private let firsts: [Unicode.Scalar]

        private let lasts: Set<Unicode.Scalar>

        init(_ list: [String]) {
            self.list = list
            scalars = list.map(AddressParser.plainScalars)
            firsts = Array(Set(list.compactMap(\.unicodeScalars.first))).sorted()
            lasts = Set(list.compactMap(\.unicodeScalars.last))
        }

        private func word(_ i: Int, starts text: ArraySlice<Unicode.Scalar>) -> Bool {
            AddressParser.starts(text, with: list[i], scalars: scalars[i])
        }

        /// The lengths, in scalars, of the words `text` starts with, in the list's order.
        func startingLengths(_ text: ArraySlice<Unicode.Scalar>) -> [Int] {
            guard let c = text.first, firsts.contains(c) else { return [] }
            return list.indices.filter { word($0, starts: text) }.map { list[$0].unicodeScalars.count }
        }

        /// Whether `name` ends with one of the words (words of ideographs): see `ends`.
        func end(_ name: String) -> Bool {
            guard let last = name.unicodeScalars.last else { return false }
            if String.isComposed(last), !lasts.contains(last) { return false }
            return list.contains { name.hasSuffix($0) }
        }

        /// Whether `text` starts with one of the words.
        func start(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
            guard let c = text.first, firsts.contains(c) else { return false }
            return list.indices.contains { word($0, starts: text) }
        }

        /// The words `text` starts with.
        func starting(_ text: ArraySlice<Unicode.Scalar>) -> [String] {
            guard let c = text.first, firsts.contains(c) else { return [] }
            return list.indices.filter { word($0, starts: text) }.map { list[$0] }
        }
    }

    /// Whether `text` (composed, as `normalize` leaves it) starts with `word`, scalar by scalar:
    /// equal there only if their scalars are. A word with a scalar that composition may change
    /// is composed first.
    static func starts(_ text: ArraySlice<Unicode.Scalar>, with word: String) -> Bool {
        var i = text.startIndex
        for u in word.unicodeScalars {
            guard String.isComposed(u) else { return text.starts(with: word.composed.unicodeScalars) }
            guard i < text.endIndex, text[i] == u else {
                // e + U+0301 in the word is é in the text (a CJK word has no such pair).
                return u.value < 0x3000 && !word.unicodeScalars.allSatisfy(String.isComposed)
                    && text.starts(with: word.composed.unicodeScalars)
            }
            i += 1
        }
        return true
    }

    /// `word`'s scalars when comparing them is all `starts(_:with:)` does for it (every scalar
    /// one that composition leaves alone, as in CJK words); nil sends it the long way.
    static func plainScalars(_ word: String) -> [Unicode.Scalar]? {
        let scalars = Array(word.unicodeScalars)
        return scalars.allSatisfy(String.isComposed) ? scalars : nil
    }

    /// `starts(text, with: word)`, by its `plainScalars` when it has them.
    static func starts(_ text: ArraySlice<Unicode.Scalar>, with word: String, scalars: [Unicode.Scalar]?) -> Bool {
        guard let scalars else { return starts(text, with: word) }
        guard text.count >= scalars.count else { return false }
        var i = text.startIndex
        for u in scalars {
            guard text[i] == u else { return false }
            i += 1
        }
        return true
    }

    /// `name.hasSuffix(word)` for a `word` of ideographs, at the cost of comparing one scalar
    /// where the last ones differ (nearly always): a name's last character can equal an
    /// ideograph only as that ideograph or as text composition would change.
    static func ends(_ name: String, with word: String) -> Bool {
        guard let last = name.unicodeScalars.last, let wordLast = word.unicodeScalars.last else { return word.isEmpty }
        if last != wordLast, String.isComposed(last) { return false }
        return name.hasSuffix(word)
    }

    /// The lengths once each, shortest first: a handful, where a `Set` would cost more.
    static func unique(_ lengths: [Int]) -> [Int] {
        guard lengths.count > 1 else { return lengths }
        var out = lengths.sorted()
        var i = 1
        while i < out.count { if out[i] == out[i - 1] { out.remove(at: i) } else { i += 1 } }
        return out
    }

    /// Regions of the tree between `ancestor` and `e` that the text did not name (a level
    /// the tree lacks, as under a municipality, costs nothing).
    func skipped(from ancestor: Node, to e: Node) throws -> Int {
        var count = 0
        var next = e.parent
        while let code = next, code != ancestor.code, let p = try entry(code) {
            count += 1
            next = p.parent
        }
        return count
    }
}

extension Sequence<Unicode.Scalar> {
    /// The parser's text, or a part of it, as a String again.
    var string: String {
        // As UTF-8 into the String's own storage: appending scalars one by one cost more than
        // the queries the text was made for.
        let scalars = Array(self)
        return String(unsafeUninitializedCapacity: scalars.count * 4) { buffer in
            var n = 0
            for u in scalars {
                UTF8.encode(u) { byte in
                    buffer[n] = byte
                    n += 1
                }
            }
            return n
        }
    }
}
