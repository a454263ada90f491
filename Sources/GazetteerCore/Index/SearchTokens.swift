import GazetteerSQLite

/// The tokens written to and asked of the FTS5 tables (see schema.sql). Chinese is indexed as
/// overlapping character bigrams plus single characters, so any substring of a name, even of
/// one or two characters, is found by an index look-up; user text only ever reaches MATCH as
/// quoted tokens made here, never as FTS5 syntax.
package enum SearchTokens {
    /// A run of text of one kind.
    private enum Run {
        case han([Unicode.Scalar])
        case word(String)
    }

    package static func isHan(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x3007, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x323AF: true
        default: false
        }
    }

    /// Splits text into Han runs and lower-cased Latin/digit words; everything else
    /// (punctuation, spaces, FTS5 operators) separates. Full-width letters and digits count
    /// as their ASCII forms.
    private static func runs(_ text: String) -> [Run] {
        var result: [Run] = []
        var han: [Unicode.Scalar] = []
        var word = ""
        func flush() {
            if !han.isEmpty { result.append(.han(han)); han.removeAll() }
            if !word.isEmpty { result.append(.word(word)); word = "" }
        }
        for var u in text.unicodeScalars {
            if (0xFF10...0xFF19).contains(u.value) || (0xFF21...0xFF3A).contains(u.value) || (0xFF41...0xFF5A).contains(u.value) {
                u = Unicode.Scalar(u.value - 0xFEE0)!
            }
            if isHan(u) {
                if !word.isEmpty { flush() }
                han.append(u)
            } else if u.properties.isAlphabetic || u.properties.numericType != nil {
                if !han.isEmpty { flush() }
                word += String(u).lowercased()
            } else {
                flush()
            }
        }
        flush()
        return result
    }

    private static func bigrams(_ han: [Unicode.Scalar]) -> [String] {
        if han.count == 1 { return [String(han[0])] }
        return (0..<(han.count - 1)).map { String(han[$0]) + String(han[$0 + 1]) }
    }

    /// Tokens for the `grams` and `chars` columns of one or more names. Written straight into
    /// two byte buffers (no token strings): the importer calls this for every POI.
    package static func index(_ texts: [String?]) -> (grams: String, chars: String) {
        var grams: [UInt8] = []
        var chars: [UInt8] = []
        for text in texts { if let text { index(text, grams: &grams, chars: &chars) } }
        return (String(decoding: grams, as: UTF8.self), String(decoding: chars, as: UTF8.self))
    }

    /// `index` of one text (the importer's case: no array of texts per row).
    package static func index(_ text: String?) -> (grams: String, chars: String) {
        guard let text else { return ("", "") }
        var grams: [UInt8] = []
        var chars: [UInt8] = []
        grams.reserveCapacity(text.utf8.count * 2 + 8)
        chars.reserveCapacity(text.utf8.count + 8)
        index(text, grams: &grams, chars: &chars)
        return (String(decoding: grams, as: UTF8.self), String(decoding: chars, as: UTF8.self))
    }

    /// `index` of one text given as its UTF-8 bytes (which must be valid, as a String's are),
    /// into `grams` and `chars`, emptied first: the side search index's case, which binds the
    /// buffers as they are, with no string made for the name or its tokens.
    package static func index(utf8 text: UnsafeBufferPointer<UInt8>, grams: inout [UInt8], chars: inout [UInt8]) {
        grams.removeAll(keepingCapacity: true)
        chars.removeAll(keepingCapacity: true)
        index(UTF8Scalars(bytes: text.makeIterator()), grams: &grams, chars: &chars)
    }

    /// The scalars of valid UTF-8, decoded as a String's would be, without making one.
    private struct UTF8Scalars: Sequence, IteratorProtocol {
        var bytes: UnsafeBufferPointer<UInt8>.Iterator
        var decoder = Unicode.UTF8()

        mutating func next() -> Unicode.Scalar? {
            if case .scalarValue(let u) = decoder.decode(&bytes) { return u }
            return nil
        }
    }

    private static func index(_ text: String, grams: inout [UInt8], chars: inout [UInt8]) {
        index(text.unicodeScalars, grams: &grams, chars: &chars)
    }

    /// Appends the tokens of `scalars`, space-separated, to what `grams` and `chars` hold: each
    /// Han run as its bigrams (a 1-character run as itself), each word lower-cased.
    @inline(__always)
    private static func index(_ scalars: some Sequence<Unicode.Scalar>, grams: inout [UInt8], chars: inout [UInt8]) {
        var previousHan: Unicode.Scalar?
        var runLength = 0
        var inWord = false
        for var u in scalars {
            if (0xFF10...0xFF19).contains(u.value) || (0xFF21...0xFF3A).contains(u.value) || (0xFF41...0xFF5A).contains(u.value) {
                u = Unicode.Scalar(u.value - 0xFEE0)!
            }
            if isHan(u) {
                inWord = false
                if let p = previousHan {
                    separate(&grams)
                    grams.appendUTF8(p)
                    grams.appendUTF8(u)
                }
                separate(&chars)
                chars.appendUTF8(u)
                previousHan = u
                runLength += 1
            } else if isWordScalar(u) {
                if let p = previousHan {
                    if runLength == 1 { separate(&grams); grams.appendUTF8(p) }
                    previousHan = nil
                    runLength = 0
                }
                if !inWord { separate(&grams); inWord = true }
                if u.isASCII { grams.append(UInt8(u.value) | ((65...90).contains(u.value) ? 0x20 : 0)) }
                else { grams.append(contentsOf: String(u).lowercased().utf8) }
            } else {
                if runLength == 1, let p = previousHan { separate(&grams); grams.appendUTF8(p) }
                previousHan = nil
                runLength = 0
                inWord = false
            }
        }
        if runLength == 1, let p = previousHan { separate(&grams); grams.appendUTF8(p) }
    }

    @inline(__always)
    private static func separate(_ out: inout [UInt8]) {
        if !out.isEmpty { out.append(0x20) }
    }

    /// A letter or digit (part of a Latin/digit word), with ASCII answered without looking up
    /// Unicode properties.
    @inline(__always)
    private static func isWordScalar(_ u: Unicode.Scalar) -> Bool {
        if u.isASCII {
            let v = u.value | 0x20
            return (0x61...0x7A).contains(v) || (0x30...0x39).contains(u.value)
        }
        return u.properties.isAlphabetic || u.properties.numericType != nil
    }

    /// The `region_fts` columns (grams, chars, pinyin) of a region row: what the importer
    /// writes and `gazetteer check` recomputes, from this one definition.
    package static func regionRow(name: String, shortName: String?, pinyin: String?) -> [SQLiteValue] {
        let t = index([name, shortName])
        return [.text(t.grams), .text(t.chars), .text(Self.pinyin(pinyin, name: name, shortName: shortName))]
    }

    /// The `poi_fts` columns (grams, chars) of a POI row, as `regionRow` is for regions; the
    /// importer binds `index(name)` itself, without an array per row.
    package static func poiRow(name: String?) -> [SQLiteValue] {
        let t = index(name)
        return [.text(t.grams), .text(t.chars)]
    }

    /// Tokens of the `pinyin` column: the syllables run together and their initials, with
    /// and without the level's suffix (西湖区 → xihu, xh, xihuqu, xhq), so people can type
    /// either.
    package static func pinyin(_ pinyin: String?, name: String, shortName: String?) -> String {
        guard let pinyin, !pinyin.isEmpty else { return "" }
        let syllables = pinyin.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
        guard !syllables.isEmpty else { return "" }
        let full = syllables.joined()
        let initials = String(syllables.compactMap(\.first))
        var tokens = [full, initials]
        if let shortName, name.hasPrefix(shortName), name != shortName {
            let suffix = String(name.dropFirst(shortName.count))
            if let s = suffixPinyin[suffix] {
                tokens.append(full + s.joined())
                tokens.append(initials + String(s.compactMap(\.first)))
            }
        }
        return tokens.joined(separator: " ")
    }

    /// Pinyin of the suffixes that full names add to short names.
    private static let suffixPinyin: [String: [String]] = [
        "省": ["sheng"], "市": ["shi"], "区": ["qu"], "县": ["xian"], "镇": ["zhen"], "乡": ["xiang"],
        "街道": ["jie", "dao"], "自治区": ["zi", "zhi", "qu"], "自治州": ["zi", "zhi", "zhou"],
        "自治县": ["zi", "zhi", "xian"], "地区": ["di", "qu"], "盟": ["meng"], "旗": ["qi"],
        "自治旗": ["zi", "zhi", "qi"], "林区": ["lin", "qu"], "特区": ["te", "qu"], "新区": ["xin", "qu"],
        "民族乡": ["min", "zu", "xiang"], "苏木": ["su", "mu"], "特别行政区": ["te", "bie", "xing", "zheng", "qu"],
    ]

    /// Quotes a token for FTS5: inside double quotes everything is literal but `"`, doubled.
    package static func quote(_ token: String) -> String {
        "\"" + token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The FTS5 query for user text over the name columns, or nil when the text has nothing
    /// searchable (only punctuation or spaces). Each part of the text between spaces or
    /// punctuation must match (`北京 大学` finds 北京大学, as AMap's search does): a lone Han
    /// character asks `chars`; anything longer is a phrase of bigrams in `grams`, whose trailing
    /// Latin word or single Han character matches as a prefix.
    package static func nameQuery(_ text: String) -> String? {
        let clauses = segments(text).map { parts -> String in
            if parts.count == 1, case .han(let h) = parts[0], h.count == 1 {
                return "chars : \(quote(String(h[0])))"
            }
            var tokens: [String] = []
            var prefix = false
            for (i, run) in parts.enumerated() {
                let last = i == parts.count - 1
                switch run {
                case .han(let h):
                    tokens += bigrams(h)
                    prefix = last && h.count == 1
                case .word(let w):
                    tokens.append(w)
                    prefix = last
                }
            }
            return "grams : " + quote(tokens.joined(separator: " ")) + (prefix ? " *" : "")
        }
        return clauses.isEmpty ? nil : clauses.joined(separator: " AND ")
    }

    /// The runs of text between separators (spaces, punctuation): runs that touch, as in
    /// `7天`, stay one phrase; separated parts need not be adjacent in a name.
    private static func segments(_ text: String) -> [[Run]] {
        var result: [[Run]] = []
        var part = ""
        func flush() {
            let r = runs(part)
            if !r.isEmpty { result.append(r) }
            part = ""
        }
        for u in text.unicodeScalars {
            let separator = !(isHan(u) || u.properties.isAlphabetic || u.properties.numericType != nil)
            if separator { flush() } else { part.unicodeScalars.append(u) }
        }
        flush()
        return result
    }

    /// The FTS5 query over the pinyin column, for text that is all Latin letters (spaces
    /// allowed: "xi hu"), matched as a prefix; nil otherwise.
    package static func pinyinQuery(_ text: String) -> String? {
        let letters = text.lowercased().filter { !$0.isWhitespace && $0 != "'" }
        guard !letters.isEmpty, letters.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return "pinyin : \(quote(letters)) *"
    }
}
