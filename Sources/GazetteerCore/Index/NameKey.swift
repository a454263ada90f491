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

    package mutating func append(_ c: Character) {
        for b in c.utf8 { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
    }

    /// The keys of every start of `text` of two characters or more (襄樊市 → 襄樊, 襄樊市).
    /// By scalars, which for the names read (CJK, all of one scalar each) are its characters,
    /// and cost far less to walk; elsewhere a few more starts are marked, which only narrows less.
    package static func starts(of text: some StringProtocol) -> [NameKey] {
        var key = NameKey(), out: [NameKey] = [], n = 0
        out.reserveCapacity(text.utf8.count / 3)
        for u in text.unicodeScalars {
            for b in UTF8.encode(u)! { key.value = (key.value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
            n += 1
            if n >= 2 { out.append(key) }
        }
        return out
    }
}

/// Every name the geocoder reads, by key, in flat arrays: which keys start a name, which are a
/// name in full, and the regions each full or short name belongs to. Built for 100,000 keys
/// at start-up and probed at every character of every address, where `Set` and `Dictionary`
/// (a seeded hash and an allocation per entry) cost more than the reading.
package struct NameTable: Sendable {
    /// Open addressing, linear probing; 0 marks an empty slot (a key of 0 is stored as 1).
    private var slots: [UInt64]
    private var flags: [UInt8]
    private var count = 0
    /// (key, region code, name) by full and by short name, sorted by key.
    private var full: [(key: UInt64, code: Int64, name: String)] = []
    private var short: [(key: UInt64, code: Int64, name: String)] = []

    private static let start: UInt8 = 1, whole: UInt8 = 2, former: UInt8 = 4, zone: UInt8 = 8

    package init(expectedKeys: Int = 1024) {
        var size = 1024
        while size < expectedKeys * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        flags = Array(repeating: 0, count: size)
    }

    /// Notes `name` as a name: its starts of two characters or more, and its whole; marked too
    /// as a former name or a functional zone's, whose own tables need then be asked.
    package mutating func add(_ name: String, former: Bool = false, zone: Bool = false) {
        let keys = NameKey.starts(of: name)
        for k in keys { mark(k, Self.start) }
        if let last = keys.last { mark(last, Self.whole | (former ? Self.former : 0) | (zone ? Self.zone : 0)) }
    }

    /// Notes `name` as the full (or short) name of region `code`.
    package mutating func add(_ name: String, code: Int64, short isShort: Bool) {
        let name = name.composed
        add(name)
        if isShort { short.append((NameKey(name).value, code, name)) } else { full.append((NameKey(name).value, code, name)) }
    }

    /// Sorts the code lists; call once after the last `add`.
    package mutating func finish() {
        full.sort { ($0.key, $0.code) < ($1.key, $1.code) }
        short.sort { ($0.key, $0.code) < ($1.key, $1.code) }
    }

    /// Whether some name starts with the text of `key` (two characters or more).
    package func isStart(_ key: NameKey) -> Bool { flag(key) & Self.start != 0 }
    /// Whether the text of `key` is some name in full.
    package func isWhole(_ key: NameKey) -> Bool { flag(key) & Self.whole != 0 }
    /// Whether the text of `key` may be a former name (a key only narrows).
    package func mayBeFormer(_ key: NameKey) -> Bool { flag(key) & Self.former != 0 }
    /// Whether the text of `key` may be a functional zone's name.
    package func mayBeZone(_ key: NameKey) -> Bool { flag(key) & Self.zone != 0 }

    /// Regions whose full (or short) name is `name`, whose key is `key`.
    package func codes(_ name: String, _ key: NameKey, short isShort: Bool) -> [Int64] {
        let list = isShort ? short : full
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid].key < key.value { lo = mid + 1 } else { hi = mid }
        }
        var out: [Int64] = []
        while lo < list.count, list[lo].key == key.value {
            // A key only narrows. Bytes, not `==`: the text is composed (NFC) as the names are,
            // and String's comparison decomposes non-ASCII text first.
            if list[lo].name.utf8.count == name.utf8.count, list[lo].name.utf8.elementsEqual(name.utf8) { out.append(list[lo].code) }
            lo += 1
        }
        return out
    }

    private static func stored(_ key: NameKey) -> UInt64 { key.value == 0 ? 1 : key.value }

    private func flag(_ key: NameKey) -> UInt8 {
        let k = Self.stored(key), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (k ^ (k >> 29)) & UInt64(mask))
        while true {
            let s = slots[i]
            if s == k { return flags[i] }
            if s == 0 { return 0 }
            i = (i + 1) & mask
        }
    }

    private mutating func mark(_ key: NameKey, _ flag: UInt8) {
        if (count + 1) * 2 > slots.count { grow() }
        let k = Self.stored(key), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (k ^ (k >> 29)) & UInt64(mask))
        while slots[i] != 0 && slots[i] != k { i = (i + 1) & mask }
        if slots[i] == 0 {
            slots[i] = k
            count += 1
        }
        flags[i] |= flag
    }

    private mutating func grow() {
        let old = zip(slots, flags).filter { $0.0 != 0 }
        slots = Array(repeating: 0, count: slots.count * 2)
        flags = Array(repeating: 0, count: slots.count)
        count = 0
        for (k, f) in old { mark(NameKey(stored: k), f) }
    }
}

extension NameKey {
    fileprivate init(stored: UInt64) {
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
