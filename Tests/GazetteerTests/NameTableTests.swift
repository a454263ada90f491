import Testing
@testable import GazetteerCore

/// The geocoder's table of names (`NameTable`): which prefixes can still grow into a name,
/// which are a name in full, and whose names they are.
@Suite(.tags(.fast)) struct NameTableTests {
    func key(_ s: String) -> NameKey { NameKey(s) }

    @Test func startsWholesAndCodes() {
        var t = NameTable(expectedKeys: 4)  // small, so it has to grow
        t.add("杭州市", code: 330100, short: false)
        t.add("杭州", code: 330100, short: true)
        t.add("杭州湾新区")
        t.add("西湖区", code: 330106, short: false)
        t.add("西湖区", code: 360103, short: false)
        t.finish()
        #expect(t.isStart(key("杭州")) && t.isStart(key("杭州湾")) && t.isStart(key("杭州湾新")))
        #expect(t.isWhole(key("杭州")) && t.isWhole(key("杭州市")) && t.isWhole(key("杭州湾新区")))
        #expect(!t.isWhole(key("杭州湾")) && !t.isStart(key("杭州路")) && !t.isStart(key("路")))
        #expect(t.codes("西湖区", key("西湖区"), short: false) == [330106, 360103])
        #expect(t.codes("杭州", key("杭州"), short: true) == [330100] && t.codes("杭州", key("杭州"), short: false).isEmpty)
        #expect(t.codes("杭州湾新区", key("杭州湾新区"), short: false).isEmpty)  // a name, but no region's
    }

    @Test func aKeyGrowsAsTheWholeTextsKey() {
        var k = NameKey()
        for c in "浙江省杭州市" { k.append(c) }
        #expect(k == NameKey("浙江省杭州市"))
        #expect(NameKey.starts(of: "襄樊市") == [NameKey("襄樊"), NameKey("襄樊市")])
        #expect(NameKey("杭州") != NameKey("州杭"))
    }
}
