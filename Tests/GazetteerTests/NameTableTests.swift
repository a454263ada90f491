import Testing
@testable import GazetteerCore

/// The geocoder's table of names (`NameTable`): which prefixes can still grow into a name,
/// which are a name in full, and whose names they are.
@Suite(.tags(.fast)) struct NameTableTests {
    func key(_ s: String) -> NameKey { NameKey(s) }
    /// The text as the geocoder reads it.
    func text(_ s: String) -> ArraySlice<Unicode.Scalar> { Array(s.unicodeScalars)[...] }

    @Test func startsWholesAndCodes() {
        var t = NameTable(expectedKeys: 4)  // small, so it has to grow
        t.add("杭州市", code: 330100, short: false)
        t.add("杭州", code: 330100, short: true)
        t.add("杭州湾新区")
        t.add("西湖区", code: 330106, short: false)
        t.add("西湖区", code: 360103, short: false)
        #expect(t.isStart(key("杭州")) && t.isStart(key("杭州湾")) && t.isStart(key("杭州湾新")))
        #expect(t.isWhole(key("杭州")) && t.isWhole(key("杭州市")) && t.isWhole(key("杭州湾新区")))
        #expect(!t.isWhole(key("杭州湾")) && !t.isStart(key("杭州路")) && !t.isStart(key("路")))
        #expect(t.codes(text("西湖区"), key("西湖区"), short: false) == [330106, 360103])
        #expect(t.codes(text("杭州"), key("杭州"), short: true) == [330100] && t.codes(text("杭州"), key("杭州"), short: false).isEmpty)
        #expect(t.codes(text("杭州湾新区"), key("杭州湾新区"), short: false).isEmpty)  // a name, but no region's
        #expect(t.codes(text("西湖"), key("西湖区"), short: false).isEmpty)  // the key only narrows
    }

    /// Names are kept composed and compared by their scalars: a name stored decomposed is still
    /// found by the composed text the parser reads.
    @Test func namesAreComposedAndFormerOrZoneNamesMarked() {
        var t = NameTable()
        t.add("Caf\u{65}\u{301}区", code: 1, short: false)
        t.add("襄樊市", former: true)
        t.add("长春经开区", zone: true)
        #expect(t.codes(text("Caf\u{E9}区"), key("Caf\u{E9}区"), short: false) == [1])
        #expect(t.mayBeFormer(key("襄樊市")) && !t.mayBeZone(key("襄樊市")) && !t.mayBeFormer(key("襄樊")))
        #expect(t.mayBeZone(key("长春经开区")) && !t.mayBeFormer(key("长春经开区")))
        #expect("浙江\u{F90A}华".composed == "浙江金华" && "杭州市".composed.utf8.elementsEqual("杭州市".utf8))
        #expect("e\u{301}".composed.unicodeScalars.count == 1)
    }

    @Test func aKeyGrowsAsTheWholeTextsKey() {
        var k = NameKey()
        for u in "浙江省杭州市".unicodeScalars { k.append(u) }
        #expect(k == NameKey("浙江省杭州市") && NameKey(scalars: "浙江省杭州市".unicodeScalars) == k)
        #expect(NameKey("杭州") != NameKey("州杭"))
    }
}
