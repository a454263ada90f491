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
}
