import Testing
@testable import GazetteerCore

/// The code rules every layer asks `AdminCode` for.
@Suite(.tags(.fast)) struct AdminCodeTests {
    @Test func parsesSixNineAndTwelveDigits() {
        #expect(AdminCode("330106")?.value == 330106)
        #expect(AdminCode("330106001000")?.value == 330106001000)
        #expect(AdminCode("330106001")?.value == 330106001000) // GB/T 10114, widened
        for bad in ["", "33", "0330106", "33010", "3301060010", "33010600100 ", "３３０１０６", "+330106", "33010a"] {
            #expect(AdminCode(bad) == nil, "\(bad)")
        }
    }

    @Test func townCodesInBothForms() {
        let town = AdminCode(330106001000)
        #expect(town.townCode9 == "330106001")
        #expect(town.countyAdcode == AdminCode(330106))
        #expect(AdminCode(330106).townCode9 == nil)
        #expect(AdminCode(330106).countyAdcode == AdminCode(330106))
    }

    @Test func containmentByLevel() {
        let town = AdminCode(330106001000), district = AdminCode(330106)
        #expect(town.isWithin(AdminCode(330000), level: .province))
        #expect(town.isWithin(AdminCode(330100), level: .city))
        #expect(town.isWithin(district, level: .district))
        #expect(district.isWithin(AdminCode(330100), level: .city))
        #expect(!district.isWithin(AdminCode(330200), level: .city))
        #expect(!AdminCode(330106002000).isWithin(town, level: .town))
        #expect(town.isWithin(town, level: .town))
        #expect(!district.isWithin(town, level: .town))
        #expect(!AdminCode(340106).isWithin(AdminCode(330000), level: .province))
    }

    @Test func adcodeRanges() {
        #expect(AdminCode(330000).adcodeRange(level: .province) == 330000...339999)
        #expect(AdminCode(330100).adcodeRange(level: .city) == 330100...330199)
        #expect(AdminCode(330106).adcodeRange(level: .district) == 330106...330106)
        #expect(AdminCode(330106001000).adcodeRange(level: .town) == 330106...330106)
    }
}
