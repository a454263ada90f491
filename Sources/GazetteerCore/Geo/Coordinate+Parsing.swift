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
        guard c.isValid else { throw .invalidArgument(name: "location", reason: c.invalidReason) }
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
    package static func plainDecimal<S: StringProtocol>(_ text: S) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2B || $0 == 0x2D || $0 == 0x65 || $0 == 0x45 })
        else { return nil }
        return Double(text)
    }

    /// `plainDecimal` of a `String`, not generic: the importer calls it twice per row, from
    /// another module, where the generic form ran unspecialised.
    package static func plainDecimal(_ text: String) -> Double? {
        // The usual coordinate (`116.397128`) without a parser, to the same Double.
        var t = text
        if let exact = t.withUTF8({ shortDecimal($0) }) { return exact }
        return plainDecimal(text[...])  // the generic form, specialised here for Substring
    }
}

extension Coordinate {
    /// Parses one line of UTF-8 as `init(parsing:)` parses its text, without making a `String`
    /// of it: batch mode reads millions of lines. Takes only the plain form (ASCII, one `,`,
    /// spaces or tabs around the numbers) and gives exactly the coordinate `init(parsing:)`
    /// gives for it; nil for anything else, valid or not, so that `init(parsing:)` decides
    /// (and says what is wrong).
    public init?(parsingPlainUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        // The usual line (`116.397128,39.916527`) in one pass; any other form as below.
        if let c = Self.commonForm(bytes) {
            guard c.isValid else { return nil }
            self = c
            return
        }
        var comma = -1
        for (i, b) in bytes.enumerated() {
            if b == 0x2C {
                if comma >= 0 { return nil }
                comma = i
            } else if !(Self.isDecimalByte(b) || b == 0x20 || b == 0x09) {
                return nil
            }
        }
        guard comma >= 0,
              let lng = Self.trimmedDecimal(UnsafeBufferPointer(rebasing: bytes[..<comma])),
              let lat = Self.trimmedDecimal(UnsafeBufferPointer(rebasing: bytes[(comma + 1)...]))
        else { return nil }
        let c = Coordinate(longitude: lng, latitude: lat)
        guard c.isValid else { return nil }
        self = c
    }

    /// Two numbers of the form `shortDecimal` reads (`-?digits(.digits)?`, at most 15 digits
    /// each), separated by one comma, with spaces or tabs around either: the values
    /// `trimmedDecimal` gives for both, read in one pass over the bytes (the general path
    /// slices the line three times and reads each byte several times). Nil for anything else.
    private static func commonForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Coordinate? {
        guard let base = bytes.baseAddress else { return nil }
        let end = bytes.count
        var i = 0
        @inline(__always) func skipBlanks() {
            while i < end, base[i] == 0x20 || base[i] == 0x09 { i += 1 }
        }
        @inline(__always) func number() -> Double? {
            let negative = i < end && base[i] == 0x2D
            if negative { i += 1 }
            var mantissa: Int64 = 0, digits = 0, decimals = 0
            while i < end, base[i] &- 0x30 < 10 {
                mantissa = mantissa &* 10 &+ Int64(base[i] &- 0x30)
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if i < end, base[i] == 0x2E {
                i += 1
                while i < end, base[i] &- 0x30 < 10 {
                    mantissa = mantissa &* 10 &+ Int64(base[i] &- 0x30)
                    digits += 1
                    decimals += 1
                    i += 1
                }
                guard decimals > 0 else { return nil }
            }
            guard digits <= 15 else { return nil }
            let value = Double(mantissa) / powersOfTen[decimals]
            return negative ? -value : value
        }
        skipBlanks()
        guard let lng = number() else { return nil }
        skipBlanks()
        guard i < end, base[i] == 0x2C else { return nil }
        i += 1
        skipBlanks()
        guard let lat = number() else { return nil }
        skipBlanks()
        guard i == end else { return nil }
        return Coordinate(longitude: lng, latitude: lat)
    }

    /// A digit, point, sign or exponent mark: the bytes `plainDecimal` takes.
    private static func isDecimalByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2B || b == 0x2D || b == 0x65 || b == 0x45
    }

    /// `decimal(_:)` on bytes: surrounding spaces and tabs trimmed, then `plainDecimal`.
    private static func trimmedDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var lo = 0, hi = bytes.count
        while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
        guard lo < hi else { return nil }
        for i in lo..<hi where !isDecimalByte(bytes[i]) { return nil }
        if let exact = shortDecimal(UnsafeBufferPointer(rebasing: bytes[lo..<hi])) { return exact }
        // Up to 15 bytes make a small string, stored inline: no allocation. Same parser as
        // `plainDecimal` on text, so the same value.
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[lo..<hi]), as: UTF8.self))
    }

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    /// `-?digits(.digits)?` with at most 15 digits in all, without a parser: the digits make an
    /// integer below 2⁵³ and the power of ten is a Double too, so both are exact and one
    /// division rounds the quotient correctly, to the Double `strtod` gives (Clinger's fast path).
    /// Nil for any other form.
    private static func shortDecimal(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = b.count > 0 && b[0] == 0x2D
        if negative { i = 1 }
        var mantissa: Int64 = 0, digits = 0, decimals = 0
        var point = false
        while i < b.count {
            let c = b[i]
            if c >= 0x30 && c <= 0x39 {
                digits += 1
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + Int64(c - 0x30)
                if point { decimals += 1 }
            } else if c == 0x2E && !point && digits > 0 {
                point = true
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0, !point || decimals > 0 else { return nil }
        let value = Double(mantissa) / powersOfTen[decimals]
        return negative ? -value : value
    }
}
