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
        for line in PackageResources.traditional_tsv.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let f = String(decoding: line, as: UTF8.self).unicodeScalars.split(separator: "\t")
            guard f.count == 2, let t = f[0].first, let s = f[1].first, t.value >= first, t.value < 0x10000 else { continue }
            table[Int(t.value - first)] = s.value
        }
        return table
    }()
}
