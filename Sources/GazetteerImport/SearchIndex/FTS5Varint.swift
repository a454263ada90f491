/// SQLite's variable-length integers, which FTS5 uses throughout its records: big-endian groups
/// of seven bits with the high bit set on all but the last, and a ninth byte of eight bits.
/// (Not LEB128: the order of the groups differs.)
enum FTS5Varint {
    /// Appends `value` (as an unsigned 64-bit integer, as SQLite writes it).
    @inline(__always)
    static func append(_ value: UInt64, to out: inout [UInt8]) {
        if value <= 0x7F {
            out.append(UInt8(value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { bytes in
            let n = write(value, to: bytes.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<n]))
        }
    }

    @inline(__always)
    static func append(_ value: Int64, to out: inout [UInt8]) {
        append(UInt64(bitPattern: value), to: &out)
    }

    @inline(__always)
    static func append(_ value: Int, to out: inout [UInt8]) {
        append(UInt64(bitPattern: Int64(value)), to: &out)
    }

    /// Writes `value` at `out`, which must have room for 9 bytes, and returns how many it took.
    @inline(__always)
    static func write(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value <= 0x7F {
            out[0] = UInt8(value)
            return 1
        }
        if value <= 0x3FFF {
            out[0] = UInt8(truncatingIfNeeded: value >> 7) | 0x80
            out[1] = UInt8(truncatingIfNeeded: value) & 0x7F
            return 2
        }
        var v = value
        let length = length(value)
        var k = length - 1
        if length == 9 {
            // The ninth byte: the low eight bits whole.
            out[8] = UInt8(truncatingIfNeeded: v)
            v >>= 8
        } else {
            out[k] = UInt8(truncatingIfNeeded: v & 0x7F)
            v >>= 7
        }
        // The others from the end: seven bits each, the high bit set.
        while k > 0 {
            k -= 1
            out[k] = UInt8(truncatingIfNeeded: v & 0x7F) | 0x80
            v >>= 7
        }
        return length
    }

    /// The number of bytes `write` takes for `value`.
    static func length(_ value: UInt64) -> Int {
        if value & (UInt64(0xFF00_0000) << 32) != 0 { return 9 }
        var n = 1
        var v = value >> 7
        while v != 0 { n += 1; v >>= 7 }
        return n
    }

    /// Reads the integer at `offset` in `bytes`: its value and how many bytes it took.
    @inline(__always)
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (value: UInt64, length: Int) {
        var v: UInt64 = 0
        for i in 0..<8 {
            let b = bytes[offset + i]
            v = (v << 7) | UInt64(b & 0x7F)
            if b & 0x80 == 0 { return (v, i + 1) }
        }
        return ((v << 8) | UInt64(bytes[offset + 8]), 9)
    }

    /// `read` for a record that may be cut short: nil when the varint runs past the end.
    static func read(_ bytes: [UInt8], at offset: Int) -> (value: UInt64, length: Int)? {
        var v: UInt64 = 0
        for i in 0..<9 {
            guard offset + i < bytes.count else { return nil }
            let byte = bytes[offset + i]
            if i == 8 { return ((v << 8) | UInt64(byte), 9) }
            v = (v << 7) | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (v, i + 1) }
        }
        return nil
    }
}
