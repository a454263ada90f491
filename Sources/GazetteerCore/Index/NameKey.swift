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

    package mutating func append(_ u: Unicode.Scalar) {
        for b in UTF8.encode(u)! { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
    }
}

/// Every name the geocoder reads, by key, in flat arrays: which keys start a name, which are a
/// name in full, and the regions each full or short name belongs to. Built for 200,000 keys
/// at start-up and probed at every character of every address, where `Set` and `Dictionary`
/// (a seeded hash and an allocation per entry) cost more than the reading.
package struct NameTable: Sendable {
    /// Open addressing, linear probing; 0 marks an empty slot (a key of 0 is stored as 1).
    /// A slot holds all that a look-up reads, so a probe costs one cache miss, not four.
    private var slots: [Slot]
    private var count = 0
    /// Regions by name, each linked to the next of the same key; names as ranges of `scalars`,
    /// as the geocoder reads its text, one copy per name however many regions bear it.
    private var entries: [Entry] = []
    private var scalars: [Unicode.Scalar] = []

    private struct Slot {
        var key: UInt64 = 0
        /// The first of the regions whose full (or short) name has this key (an index in
        /// `entries`, -1 for none).
        var full: Int32 = -1
        var short: Int32 = -1
        var flags: UInt8 = 0
    }

    private struct Entry {
        var code: Int64
        var name: Range<Int32>
        var next: Int32
    }

    private static let start: UInt8 = 1, whole: UInt8 = 2, former: UInt8 = 4, zone: UInt8 = 8

    package init(expectedKeys: Int = 1024) {
        var size = 1024
        while size < expectedKeys * 2 { size <<= 1 }
        slots = Array(repeating: Slot(), count: size)
    }

    /// Notes `name` as a name: its starts of two characters or more, and its whole; marked too
    /// as a former name or a functional zone's, whose own tables need then be asked.
    package mutating func add(_ name: String, former: Bool = false, zone: Bool = false) {
        _ = mark(name, Self.whole | (former ? Self.former : 0) | (zone ? Self.zone : 0))
    }

    /// Marks the starts of `name` and its whole with `flag`; the whole's slot.
    private mutating func mark(_ name: String, _ flag: UInt8) -> Int? {
        // Every start of two characters or more (襄樊市 → 襄樊, 襄樊市), grown a scalar at a time:
        // for the names read (CJK, a scalar each) its characters.
        var key = NameKey(), n = 0, slot: Int?
        for u in name.unicodeScalars {
            key.append(u)
            n += 1
            if n >= 2 { slot = mark(key, Self.start) }
        }
        if let slot { slots[slot].flags |= flag }
        return slot
    }

    /// Notes `name` as the full (or short) name of region `code`.
    package mutating func add(_ name: String, code: Int64, short isShort: Bool) {
        let name = name.composed
        guard let slot = mark(name, Self.whole) else { return }
        // The name's scalars once: namesakes (hundreds of 城关) point at the same copy.
        var range: Range<Int32>?
        var at = isShort ? slots[slot].short : slots[slot].full
        if at < 0 { at = isShort ? slots[slot].full : slots[slot].short }
        while at >= 0, range == nil {
            if scalars[Int(entries[Int(at)].name.lowerBound)..<Int(entries[Int(at)].name.upperBound)].elementsEqual(name.unicodeScalars) {
                range = entries[Int(at)].name
            }
            at = entries[Int(at)].next
        }
        if range == nil {
            let start = Int32(scalars.count)
            scalars.append(contentsOf: name.unicodeScalars)
            range = start..<Int32(scalars.count)
        }
        if isShort {
            entries.append(Entry(code: code, name: range!, next: slots[slot].short))
            slots[slot].short = Int32(entries.count - 1)
        } else {
            entries.append(Entry(code: code, name: range!, next: slots[slot].full))
            slots[slot].full = Int32(entries.count - 1)
        }
    }

    /// Whether some name starts with the text of `key` (two characters or more).
    package func isStart(_ key: NameKey) -> Bool { flag(key) & Self.start != 0 }
    /// Whether the text of `key` is some name in full.
    package func isWhole(_ key: NameKey) -> Bool { flag(key) & Self.whole != 0 }
    /// Whether the text of `key` may be a former name (a key only narrows).
    package func mayBeFormer(_ key: NameKey) -> Bool { flag(key) & Self.former != 0 }
    /// Whether the text of `key` may be a functional zone's name.
    package func mayBeZone(_ key: NameKey) -> Bool { flag(key) & Self.zone != 0 }

    /// Regions whose full (or short) name is the composed text `name` (as the geocoder reads it,
    /// by scalars), whose key is `key`, in code order.
    package func codes(_ name: ArraySlice<Unicode.Scalar>, _ key: NameKey, short isShort: Bool) -> [Int64] {
        codes(key, short: isShort) { stored in stored.count == name.count && zip(stored, name).allSatisfy { $0 == $1 } }
    }

    /// A key only narrows: each name of its chain is compared, once however many regions bear it.
    private func codes(_ key: NameKey, short isShort: Bool, _ equal: (ArraySlice<Unicode.Scalar>) -> Bool) -> [Int64] {
        guard let slot = slot(key) else { return [] }
        var out: [Int64] = []
        var compared: (Range<Int32>, Bool)?
        var at = isShort ? slots[slot].short : slots[slot].full
        while at >= 0 {
            let e = entries[Int(at)]
            at = e.next
            let same: Bool
            if let (r, known) = compared, r == e.name { same = known } else {
                same = equal(scalars[Int(e.name.lowerBound)..<Int(e.name.upperBound)])
                compared = (e.name, same)
            }
            if same { out.append(e.code) }
        }
        // Linked newest first.
        return out.count > 1 ? out.sorted() : out
    }

    private static func stored(_ key: NameKey) -> UInt64 { key.value == 0 ? 1 : key.value }

    private func slot(_ key: NameKey) -> Int? {
        let k = Self.stored(key), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (k ^ (k >> 29)) & UInt64(mask))
        while true {
            let s = slots[i].key
            if s == k { return i }
            if s == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    private func flag(_ key: NameKey) -> UInt8 {
        slot(key).map { slots[$0].flags } ?? 0
    }

    private mutating func mark(_ key: NameKey, _ flag: UInt8) -> Int {
        if (count + 1) * 2 > slots.count { grow() }
        let k = Self.stored(key), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (k ^ (k >> 29)) & UInt64(mask))
        while slots[i].key != 0 && slots[i].key != k { i = (i + 1) & mask }
        if slots[i].key == 0 {
            slots[i].key = k
            count += 1
        }
        slots[i].flags |= flag
        return i
    }

    private mutating func grow() {
        let old = slots.filter { $0.key != 0 }
        slots = Array(repeating: Slot(), count: slots.count * 2)
        count = 0
        for o in old {
            let slot = mark(NameKey(stored: o.key), o.flags)
            (slots[slot].full, slots[slot].short) = (o.full, o.short)
        }
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
