/// Traditional characters to simplified, as the geocoder reads an address: 香港新界屯門區 and
/// 杭州西湖區 name the code list's 屯门区 and 西湖区. One character for one, so a folded text
/// lines up with the text as written (`traditional.tsv`, made by `Scripts/build_traditional.py`
/// from OpenCC's table; only characters no region name uses: 乾县 keeps its 乾).
package enum TraditionalChinese {
    /// The simplified form of `u`, or nil when it has none or is simplified already.
    package static func simplified(_ u: Unicode.Scalar) -> Unicode.Scalar? {
        guard u.value >= first, u.value < first + UInt32(table.count), case let s = table[Int(u.value - first)], s != 0 else { return nil }
        return Unicode.Scalar(s)
    }

    /// `text` with each traditional character simplified; nil when it has none.
    package static func folded(_ text: [Unicode.Scalar]) -> [Unicode.Scalar]? {
        guard text.contains(where: { simplified($0) != nil }) else { return nil }
        return text.map { simplified($0) ?? $0 }
    }

    private static let first: UInt32 = 0x3400

    /// By scalar from U+3400 to U+FFFF, 0 where a character has no simplified form: a look-up
    /// per character of every address.
    private static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: Int(0x10000 - first))
        // Decoded as one stream of scalars, each line a traditional character, a tab and its
        // simplified form: every command that geocodes reads this at start-up, and a String and
        // a split per line cost ten times the table.
        var decoder = UTF8(), bytes = PackageResources.traditional_tsv.makeIterator()
        var line = 0, tabs = 0, traditional: Unicode.Scalar?, simplified: Unicode.Scalar?
        func note() {
            if line > 0, tabs == 1, let t = traditional, let s = simplified, t.value >= first, t.value < 0x10000 {
                table[Int(t.value - first)] = s.value
            }
            (line, tabs, traditional, simplified) = (line + 1, 0, nil, nil)
        }
        while case .scalarValue(let u) = decoder.decode(&bytes) {
            switch u {
            case "\n": note()
            case "\t": tabs += 1
            default:
                if tabs == 0, traditional == nil { traditional = u }
                if tabs == 1, simplified == nil { simplified = u }
            }
        }
        note()
        return table
    }()
}
