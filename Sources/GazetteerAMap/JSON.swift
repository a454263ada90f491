/// A small JSON value with ordered keys, written by hand: AMap's shapes need a fixed key
/// order and string-typed numbers, and batch mode writes millions of these.
public enum JSON: Sendable {
    case string(String)
    case number(Double)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])
    /// Text that already is JSON (a GeoJSON geometry), written as it is.
    case raw(String)

    public var text: String {
        var out = ""
        write(into: &out)
        return out
    }

    public func write(into out: inout String) {
        switch self {
        case .string(let s): JSON.escape(s, into: &out)
        case .number(let d): out += d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)) : "null"
        case .int(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .raw(let text): out += text
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSON.escape(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    public static func escape(_ s: String, into out: inout String) {
        // Most strings need no escaping: append them whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x2028 || u.value == 0x2029 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }

    /// Writes the same text as `write(into:)`, as UTF-8 bytes: batch mode builds its output
    /// this way, without a `String` per answer.
    public func write(into out: inout [UInt8]) {
        switch self {
        case .string(let s): JSON.escape(s, into: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.write(into: &out)
            }
            out.append(0x5D)
        case .object(let pairs):
            out.append(0x7B)
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(0x2C) }
                JSON.escape(key, into: &out)
                out.append(0x3A)
                value.write(into: &out)
            }
            out.append(0x7D)
        case .number, .int, .bool, .null, .raw:
            var text = ""
            write(into: &text)
            out.append(contentsOf: text.utf8)
        }
    }

    /// `escape(_:into:)` for a byte buffer: the same text, byte for byte. A Swift string is
    /// valid UTF-8, so U+2028 and U+2029 are exactly the byte runs E2 80 A8 and E2 80 A9, and
    /// every other byte of a multi-byte character is at least 0x80 and copied as it is.
    public static func escape(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        let whole: Void? = s.utf8.withContiguousStorageIfAvailable { escape($0, into: &out) }
        if whole == nil { Array(s.utf8).withUnsafeBufferPointer { escape($0, into: &out) } }
        out.append(0x22)
    }

    private static func escape(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        // Most strings need no escaping: append them whole.
        guard b.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) else {
            out.append(contentsOf: b)
            return
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var i = 0
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0xF)]])
            case 0xE2 where i + 2 < b.count && b[i + 1] == 0x80 && (b[i + 2] == 0xA8 || b[i + 2] == 0xA9):
                out.append(contentsOf: [0x5C, 0x75, 0x32, 0x30, 0x32, b[i + 2] == 0xA8 ? 0x38 : 0x39])
                i += 2
            default: out.append(c)
            }
            i += 1
        }
    }

    /// AMap's error answer: status "0" and the reason in `info`.
    public static func failure(_ message: String) -> JSON {
        .object([("status", .string("0")), ("info", .string(message)), ("infocode", .string("20000"))])
    }
}
