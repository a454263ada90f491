import Testing
@testable import GazetteerServer

@Suite struct FormDecodingTests {
    @Test func plusIsASpaceAndPercentIsUTF8() throws {
        let fields = try FormDecoding.fields("keywords=%E5%8D%97%E5%9F%8E+%E8%A1%97%E9%81%93&key=k")
        #expect(fields == ["keywords": "南城 街道", "key": "k"])
        // A literal plus is %2B; names are decoded too.
        #expect(try FormDecoding.fields("a%5Fb=1%2B1") == ["a_b": "1+1"])
        // Raw UTF-8 (some clients don't encode) passes.
        #expect(try FormDecoding.fields("address=北京") == ["address": "北京"])
    }

    @Test func firstNonEmptyValueWinsAndEmptiesAreDropped() throws {
        #expect(try FormDecoding.fields("city=&city=010&city=020&x&=v&&y=") == ["city": "010"])
        #expect(try FormDecoding.fields("") == [:])
    }

    @Test func commasPipesAndSemicolonsStay() throws {
        let fields = try FormDecoding.fields("location=116.397477,39.908692|116.4,39.9&types=050000%7C060000")
        #expect(fields["location"] == "116.397477,39.908692|116.4,39.9")
        #expect(fields["types"] == "050000|060000")
    }

    @Test(arguments: ["a=%", "a=%4", "a=%G0", "a=%zz", "a=%C3%28", "a=%FF", "%E4%B8=x", "a=%ED%A0%80"])
    func invalidEncodingIsRefused(_ text: String) {
        #expect(throws: FormDecoding.Invalid.self) { try FormDecoding.fields(text) }
    }

    @Test func queryWinsOverBody() {
        let merged = FormDecoding.merged(query: ["key": "q", "a": "1"], body: ["key": "b", "b": "2"])
        #expect(merged == ["key": "q", "a": "1", "b": "2"])
    }

    @Test func callbackNames() {
        for good in ["cb", "jsonp_991766_", "$", "_a.b$c", "jQuery1123.x", String(repeating: "a", count: 128)] {
            #expect(AMapResponse.isValidCallback(good), "\(good)")
        }
        for bad in ["", "1cb", "a(b)", "alert(1);x", "a b", "a-b", "</script>", "é", String(repeating: "a", count: 129), "a\n"] {
            #expect(!AMapResponse.isValidCallback(bad), "\(bad)")
        }
    }

    @Test func keysFile() {
        let keys = KeysFile.keys(in: "# team keys\nabc123\n  def456  \n\n#old\r\nghi")
        #expect(keys == ["abc123", "def456", "ghi"])
    }

    @Test func formContentTypes() {
        #expect(AMapResponse.isForm("application/x-www-form-urlencoded"))
        #expect(AMapResponse.isForm("Application/X-WWW-Form-Urlencoded; charset=UTF-8"))
        #expect(!AMapResponse.isForm("application/json"))
        #expect(!AMapResponse.isForm("multipart/form-data; boundary=x"))
    }
}
