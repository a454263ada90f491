/// The rules of China's administrative codes, in one place.
///
/// Provinces, cities and districts have a 6-digit adcode (GB/T 2260) whose leading digits name
/// the levels above: 33 is 浙江省, 3301 杭州市, 330106 西湖区. Towns (乡镇街道) have the 12-digit
/// statistics code AMap calls `towncode`, which starts with their county's adcode: 330106001000.
/// Forms that ask for a 乡镇代码 want the 9-digit GB/T 10114 code, its first nine digits. The
/// gazetteer stores 6- and 12-digit codes only; a 9-digit code given to it is widened to 12.
public struct AdminCode: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The code as stored: 6 digits, or 12 for a town.
    public let value: Int64

    /// A stored code (6 or 12 digits).
    public init(_ value: Int64) { self.value = value }

    /// Parses a code as people write it: 6 digits (an adcode), 12 digits (a town's code) or 9
    /// digits (a town's GB/T 10114 code, widened to 12). Nil for anything else.
    public init?(_ text: some StringProtocol) {
        guard let digits = AdminCode.digitCount(text), [6, 9, 12].contains(digits), let n = Int64(text) else { return nil }
        self.init(AdminCode.widened(n, digits: digits))
    }

    /// How many digits `text` has when it is all ASCII digits not starting with 0; nil otherwise.
    public static func digitCount(_ text: some StringProtocol) -> Int? {
        guard let first = text.utf8.first, first != 0x30, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return text.utf8.count
    }

    /// `digitCount` of a `String`, not generic: the importer calls it for every row, from
    /// another module, where the generic form ran unspecialised.
    public static func digitCount(_ text: String) -> Int? {
        digitCount(text[...])  // the generic form, specialised here for Substring
    }

    /// `n`, written with `digits` digits, as stored: a 9-digit town code becomes 12 digits.
    public static func widened(_ n: Int64, digits: Int) -> Int64 { digits == 9 ? n * 1000 : n }

    /// Leading digits that a code shares with every code inside a region of `level`:
    /// province 2, city 4, district 6, town all 12.
    public static func significantDigits(_ level: RegionLevel) -> Int {
        switch level {
        case .province: 2
        case .city: 4
        case .district: 6
        case .town: 12
        }
    }

    /// The code as 12 digits: an adcode followed by six zeros, a town's code as it is.
    private var twelveDigits: Int64 { value < 1_000_000_000 ? value * 1_000_000 : value }

    /// Whether this code lies in the region `ancestor` of `level` (or is it): they share the
    /// level's significant digits.
    public func isWithin(_ ancestor: AdminCode, level: RegionLevel) -> Bool {
        let scale = AdminCode.powersOfTen[12 - AdminCode.significantDigits(level)]
        return twelveDigits / scale == ancestor.twelveDigits / scale
    }

    private static let powersOfTen: [Int64] = (0...12).map { (0..<$0).reduce(Int64(1)) { p, _ in p * 10 } }

    /// A town's county-level adcode (its first six digits); an adcode itself otherwise.
    public var countyAdcode: AdminCode { AdminCode(value >= 1_000_000_000 ? value / 1_000_000 : value) }

    /// A town's 9-digit code (GB/T 10114: county adcode + 3 digits), as forms that ask for a
    /// 乡镇代码 want it; nil for an adcode.
    public var townCode9: String? { value >= 1_000_000_000 ? String(value / 1000) : nil }

    /// The adcodes (6 digits) of the districts and cities inside a region of `level` with this
    /// code, as an inclusive range: what a POI's adcode must fall in to lie inside it.
    public func adcodeRange(level: RegionLevel) -> ClosedRange<Int64> {
        switch level {
        case .province: value...(value + 9_999)
        case .city: value...(value + 99)
        case .district: value...value
        case .town: countyAdcode.value...countyAdcode.value
        }
    }

    public var description: String { String(value) }
    public static func < (a: AdminCode, b: AdminCode) -> Bool { a.value < b.value }
}
