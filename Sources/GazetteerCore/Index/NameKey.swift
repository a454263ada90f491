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
        for c in text { append(c) }
    }

    package mutating func append(_ c: Character) {
        for b in c.utf8 { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
    }

    /// The keys of every start of `text` of two characters or more (襄樊市 → 襄樊, 襄樊市).
    package static func starts(of text: some StringProtocol) -> [NameKey] {
        var key = NameKey(), out: [NameKey] = [], n = 0
        for c in text {
            key.append(c)
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

    private static let start: UInt8 = 1, whole: UInt8 = 2

    package init(expectedKeys: Int = 1024) {
        var size = 1024
        while size < expectedKeys * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        flags = Array(repeating: 0, count: size)
    }

    /// Notes `name` as a name: its starts of two characters or more, and its whole.
    package mutating func add(_ name: String) {
        let keys = NameKey.starts(of: name)
        for k in keys { mark(k, Self.start) }
        if let last = keys.last { mark(last, Self.whole) }
    }

    /// Notes `name` as the full (or short) name of region `code`.
    package mutating func add(_ name: String, code: Int64, short isShort: Bool) {
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

    /// Regions whose full (or short) name is `name`, whose key is `key`.
    package func codes(_ name: some StringProtocol, _ key: NameKey, short isShort: Bool) -> [Int64] {
        let list = isShort ? short : full
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid].key < key.value { lo = mid + 1 } else { hi = mid }
        }
        var out: [Int64] = []
        while lo < list.count, list[lo].key == key.value {
            if list[lo].name == name { out.append(list[lo].code) }  // a key only narrows
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
