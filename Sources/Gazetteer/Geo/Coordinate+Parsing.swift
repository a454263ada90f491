import Foundation

extension Coordinate {
    /// Parses `"lng,lat"` (AMap's order; spaces allowed, a Chinese comma too), rejecting
    /// non-numbers, NaN, infinities, out-of-range values and pairs that look swapped.
    public init(parsing text: String) throws(GazetteerError) {
        // Batch mode parses millions of these: split and trim on bytes, not through Foundation.
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "," || $0 == "，" })
        guard parts.count == 2, let lng = Self.decimal(parts[0]), let lat = Self.decimal(parts[1]) else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw .invalidArgument(name: "location", reason: "'\(shown)' is not LNG,LAT (two decimal numbers, longitude first, e.g. 116.397477,39.908692)")
        }
        let c = Coordinate(longitude: lng, latitude: lat)
        guard c.isValid else { throw .invalidArgument(name: "location", reason: Repository.describeInvalid(c)) }
        self = c
    }

    /// A decimal number with optional surrounding spaces or tabs.
    private static func decimal(_ s: Substring) -> Double? {
        var t = s
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return plainDecimal(t)
    }

    /// A number written as decimal digits with an optional sign, point and exponent: `Double`'s
    /// own parser also takes hexadecimal (`0x1p7` is 128), `nan`, `inf`, and stops at a NUL
    /// byte (`30\0junk` is 30), none of which is a coordinate someone meant.
    static func plainDecimal<S: StringProtocol>(_ text: S) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2B || $0 == 0x2D || $0 == 0x65 || $0 == 0x45 })
        else { return nil }
        return Double(text)
    }
}
