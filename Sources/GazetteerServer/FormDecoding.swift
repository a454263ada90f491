/// `application/x-www-form-urlencoded`, as AMap's clients send query strings and form bodies:
/// `+` is a space, `%XX` is a byte of UTF-8, pairs are separated by `&`.
///
/// Hummingbird's `uri.queryParameters` does not turn `+` into a space and leaves names
/// undecoded, so the server reads query strings and bodies with this instead.
enum FormDecoding {
    /// A query string or form body that is not valid form encoding: a `%` not followed by two
    /// hex digits, or bytes that are not UTF-8 once decoded.
    struct Invalid: Error, Equatable {}

    /// The name/value pairs of `text`, decoded strictly. Empty values (`a=` or a bare `a`) are
    /// dropped; of a repeated name the first non-empty value wins; pairs with an empty name are
    /// ignored.
    static func fields(_ text: some StringProtocol) throws(Invalid) -> [String: String] {
        try fields(bytes: text.utf8)
    }

    /// As `fields(_:)`, over the raw bytes of a query string or body (which need not be UTF-8
    /// before decoding: the decoded names and values must be).
    static func fields<Bytes: Collection<UInt8>>(bytes: Bytes) throws(Invalid) -> [String: String] {
        var out: [String: String] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let eq = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = eq.map { pair[..<$0] } ?? pair[...]
            let rawValue = eq.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            let name = try decode(rawName)
            let value = try decode(rawValue)
            guard !name.isEmpty, !value.isEmpty, out[name] == nil else { continue }
            out[name] = value
        }
        return out
    }

    /// Merges form fields after query fields: a name already given by the query keeps its value.
    static func merged(query: [String: String], body: [String: String]) -> [String: String] {
        query.merging(body) { first, _ in first }
    }

    /// One name or value: `+` → space, `%XX` → byte; the bytes must be UTF-8.
    static func decode<S: Collection<UInt8>>(_ bytes: S) throws(Invalid) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
                i = bytes.index(after: i)
            case UInt8(ascii: "%"):
                let h = bytes.index(after: i)
                guard h != bytes.endIndex, let hi = hexValue(bytes[h]) else { throw Invalid() }
                let l = bytes.index(after: h)
                guard l != bytes.endIndex, let lo = hexValue(bytes[l]) else { throw Invalid() }
                out.append(hi << 4 | lo)
                i = bytes.index(after: l)
            default:
                out.append(b)
                i = bytes.index(after: i)
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw Invalid() }
        return text
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
