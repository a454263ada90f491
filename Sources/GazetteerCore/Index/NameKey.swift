import Foundation

/// A name's hash (FNV-1a over its UTF-8), grown a character at a time. The geocoder asks, at
/// every position of an address, whether each growing prefix could still become a region's
/// name; hashing a `String` normalises its Unicode first, which cost more than the look-up.
/// A key only narrows: a hit is confirmed against the real name, so a collision costs a look-up,
/// never a wrong answer.
package struct NameKey: Hashable, Sendable {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// The key of the whole of `text`.
    package init(_ text: some StringProtocol) {
        for b in text.utf8 { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
    }

    /// The key of `scalars`, as the geocoder reads its text: the same as the key of their String.
    package init(scalars: some Sequence<Unicode.Scalar>) {
        for u in scalars { append(u) }
    }

    /// Grows the key by raw bytes (a fingerprint of compiled-in tables).
    package mutating func append(bytes: some Sequence<UInt8>) {
        for b in bytes { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
    }

    package mutating func append(_ u: Unicode.Scalar) {
        for b in UTF8.encode(u)! { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
    }
}

extension NameKey {
    init(stored: UInt64) {
        value = stored
    }
}

extension String {
    /// The text in canonical composition (NFC), as the geocoder compares names; most text has
    /// no character composition could change, and is returned as it is.
    package var composed: String {
        unicodeScalars.allSatisfy(Self.isComposed) ? self : precomposedStringWithCanonicalMapping
    }

    /// Whether a scalar is left as it is by canonical composition, whatever stands beside it:
    /// ASCII and Latin-1, kana, CJK ideographs (not the compatibility ones, 金 U+F90A) and
    /// full-width forms. Combining marks and the rest take the full normalization.
    package static func isComposed(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0..<0x300, 0x3000...0x3098, 0x309B...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xFF00...0xFFEF: true
        default: false
        }
    }
}
