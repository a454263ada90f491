import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct SearchTokensTests {
    @Test(arguments: [
        ("瑞幸咖啡(临川店)", "瑞幸 幸咖 咖啡 临川 川店", "瑞 幸 咖 啡 临 川 店"),
        ("7天酒店", "7 天酒 酒店", "天 酒 店"),
        ("A座", "a 座", "座"),
        ("KFC肯德基", "kfc 肯德 德基", "肯 德 基"),
        ("Ｋ１店", "k1 店", "店"),
        ("北京 大学", "北京 大学", "北 京 大 学"),
        ("Starbucks 星巴克·西湖", "starbucks 星巴 巴克 西湖", "星 巴 克 西 湖"),
        ("\"AND\" OR *:^()", "and or", ""),
        ("", "", ""),
    ])
    func indexTokens(_ text: String, _ grams: String, _ chars: String) {
        let t = SearchTokens.index([text])
        #expect(t.grams == grams)
        #expect(t.chars == chars)
        // The side search index's way: from the name's bytes, into buffers used before.
        var (g, c) = (Array("left over".utf8), Array("from before".utf8))
        var name = text
        name.withUTF8 { SearchTokens.index(utf8: $0, grams: &g, chars: &c) }
        #expect(String(decoding: g, as: UTF8.self) == grams)
        #expect(String(decoding: c, as: UTF8.self) == chars)
    }

    /// Every kind of scalar a name may hold (1- to 4-byte UTF-8, combining marks, full-width
    /// forms, rare Han): the bytes give the tokens the string gives.
    @Test func tokensFromBytesAreTheStringsTokens() {
        let pieces = ["北京", "𠀀𪚥", "Ａｂ１", "é", "e\u{301}", "Ω", "🙂", "7", " ", "·", "(", "ß", "İ", "〇", "a"]
        var rng = SystemRandomNumberGenerator()
        var (g, c): ([UInt8], [UInt8]) = ([], [])
        for _ in 0..<500 {
            var text = (0..<Int.random(in: 0...8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let expected = SearchTokens.index(text)
            text.withUTF8 { SearchTokens.index(utf8: $0, grams: &g, chars: &c) }
            #expect(String(decoding: g, as: UTF8.self) == expected.grams, "\(text)")
            #expect(String(decoding: c, as: UTF8.self) == expected.chars, "\(text)")
        }
    }

    @Test func queriesAreQuotedTokensOnly() {
        #expect(SearchTokens.nameQuery("京") == "chars : \"京\"")
        #expect(SearchTokens.nameQuery("北京大学") == "grams : \"北京 京大 大学\"")
        #expect(SearchTokens.nameQuery("7天") == "grams : \"7 天\" *")
        #expect(SearchTokens.nameQuery("kfc") == "grams : \"kfc\" *")
        #expect(SearchTokens.nameQuery("\"; DROP TABLE x; --") == "grams : \"drop\" * AND grams : \"table\" * AND grams : \"x\" *")
        // Parts between spaces or punctuation each match, not as one phrase: 北京 大学 finds 北京大学.
        #expect(SearchTokens.nameQuery("北京 大学") == "grams : \"北京\" AND grams : \"大学\"")
        #expect(SearchTokens.nameQuery("西湖，灵") == "grams : \"西湖\" AND chars : \"灵\"")
        #expect(SearchTokens.nameQuery("*:^()\"") == nil)
        #expect(SearchTokens.pinyinQuery("Xi Hu") == "pinyin : \"xihu\" *")
        #expect(SearchTokens.pinyinQuery("西湖") == nil)
        #expect(SearchTokens.pinyin("xi hu", name: "西湖区", shortName: "西湖") == "xihu xh xihuqu xhq")
    }
}
