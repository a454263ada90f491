/// Values by a 64-bit key (a region's code, two packed characters), for a parser's memos:
/// open addressing behind a splitmix64 mix. `Dictionary` hashes every key with SipHash, and
/// the parser looks up regions by code at every place of every address it reads.
struct CodeMap<Value> {
    private var slots: [(key: Int64, value: Value?)] = []
    private(set) var count = 0

    init() {}

    /// Room for `count` keys before the first growth.
    init(minimumCapacity count: Int) {
        var n = 64
        while n < 2 * count { n *= 2 }
        slots = Array(repeating: (0, nil), count: n)
    }

    subscript(key: Int64) -> Value? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var i = Self.slot(key, mask)
        while let v = slots[i].value {
            if slots[i].key == key { return v }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Sets `key`'s value, replacing any it had.
    mutating func set(_ key: Int64, _ value: Value) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var i = Self.slot(key, mask)
        while slots[i].value != nil, slots[i].key != key { i = (i + 1) & mask }
        if slots[i].value == nil { count += 1 }
        slots[i] = (key, value)
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: (0, nil), count: max(64, old.count * 2))
        count = 0
        for case let (key, value?) in old { set(key, value) }
    }

    private static func slot(_ key: Int64, _ mask: Int) -> Int {
        var z = UInt64(bitPattern: key) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: z ^ (z >> 31)) & mask
    }
}
