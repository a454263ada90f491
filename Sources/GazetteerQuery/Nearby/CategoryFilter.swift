import Foundation
import GazetteerCore
import GazetteerSQLite

/// A category filter as users give it: AMap type codes (`050000` is all of 餐饮服务, `0501`
/// too) or words from the type path (`餐饮`, `高等院校`), several joined by `|`.
struct CategoryFilter {
    /// Code prefixes that match.
    var prefixes: [String] = []
    /// Exact codes that match (from words).
    var codes: Set<Int64> = []

    var isEmpty: Bool { prefixes.isEmpty && codes.isEmpty }

    init() {}

    init(_ types: [String], db: Connection) throws {
        for t in types.flatMap({ $0.split(whereSeparator: { $0 == "|" || $0 == "," }) }).map({ $0.trimmingCharacters(in: .whitespaces) }) where !t.isEmpty {
            if t.allSatisfy(\.isNumber) {
                var prefix = Substring(t)
                while prefix.count > 2 && prefix.hasSuffix("00") { prefix = prefix.dropLast(2) }
                prefixes.append(String(prefix))
            } else {
                let escaped = t.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_")
                let found = try db.cachedStatement("SELECT typecode FROM category WHERE type LIKE '%' || ? || '%' ESCAPE '\\'")
                    .rows([.text(escaped)]) { $0.text(0) }
                codes.formUnion(found.compactMap { Int64($0) })
                if found.isEmpty { codes.insert(-1) } // a word no category has: match nothing
            }
        }
    }

    func matches(_ typecode: Int64?) -> Bool {
        guard !isEmpty else { return true }
        guard let typecode else { return false }
        if codes.contains(typecode) { return true }
        let text = String(typecode).count < 6 ? String(repeating: "0", count: 6 - String(typecode).count) + String(typecode) : String(typecode)
        return prefixes.contains { text.hasPrefix($0) }
    }
}
