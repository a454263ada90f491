import Testing
@testable import GazetteerCore

/// The geocoder's folding of traditional characters (`TraditionalChinese`): one for one, and
/// never a character a region's name uses.
@Suite(.tags(.fast)) struct TraditionalChineseTests {
    func text(_ s: String) -> [Unicode.Scalar] { Array(s.unicodeScalars) }

    @Test func foldsOneForOneAndLeavesRegionNamesCharactersAlone() {
        #expect(TraditionalChinese.simplified("區") == "区" && TraditionalChinese.simplified("門") == "门")
        #expect(TraditionalChinese.simplified("区") == nil && TraditionalChinese.simplified("a") == nil)
        #expect(TraditionalChinese.simplified("乾") == nil)  // 乾县: in the table as 干, kept
        #expect(TraditionalChinese.folded(text("屯門區青山公路")) == text("屯门区青山公路"))
        #expect(TraditionalChinese.folded(text("浙江省杭州市")) == nil)
    }

    /// Every line of the compiled-in table is read (it is decoded as a stream of scalars at
    /// start-up), and nothing else is folded.
    @Test func everyLineOfTheTableIsRead() {
        var expected: [Unicode.Scalar: Unicode.Scalar] = [:]
        for line in String(decoding: PackageResources.traditional_tsv, as: UTF8.self).split(separator: "\n").dropFirst() {
            let f = line.unicodeScalars.split(separator: "\t")
            if f.count == 2, let t = f[0].first, let s = f[1].first { expected[t] = s }
        }
        #expect(expected.count > 1_000)
        for (t, s) in expected { #expect(TraditionalChinese.simplified(t) == s, "\(t)") }
        let folded = (0x3400..<0x10000).compactMap(Unicode.Scalar.init).filter { TraditionalChinese.simplified($0) != nil }
        #expect(folded.count == expected.count)
    }
}
