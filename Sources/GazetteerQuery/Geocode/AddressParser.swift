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
        let codes = try db.cachedStatement("""
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
                          AdminCode(m.entry.code).isWithin(AdminCode(parent.code), level: parent.level)
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
