extension [UInt8] {
    /// Appends `u` as UTF-8, a byte at a time: the search index's tokens and the geocoder's
    /// POI-name keys are built so, where `UTF8.encode`'s closure per scalar cost more.
    @inline(__always)
    package mutating func appendUTF8(_ u: Unicode.Scalar) {
        let v = u.value
        switch v {
        case 0..<0x80: append(UInt8(v))
        case 0x80..<0x800: append(UInt8(0xC0 | v >> 6)); append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            append(UInt8(0xE0 | v >> 12)); append(UInt8(0x80 | v >> 6 & 0x3F)); append(UInt8(0x80 | v & 0x3F))
        default:
            append(UInt8(0xF0 | v >> 18)); append(UInt8(0x80 | v >> 12 & 0x3F))
            append(UInt8(0x80 | v >> 6 & 0x3F)); append(UInt8(0x80 | v & 0x3F))
        }
    }
}
