import GazetteerSQLite

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

    /// `codes(_:_:short:)`'s regions handed to `body` one at a time, in no set order: the
    /// parser's inner loop, without an array per look-up.
    package func forEachCode(_ name: ArraySlice<Unicode.Scalar>, _ key: NameKey, short isShort: Bool, _ body: (Int64) -> Void) {
        walk(key, short: isShort, { stored in stored.count == name.count && zip(stored, name).allSatisfy { $0 == $1 } }, body)
    }

    private func codes(_ key: NameKey, short isShort: Bool, _ equal: (ArraySlice<Unicode.Scalar>) -> Bool) -> [Int64] {
        var out: [Int64] = []
        walk(key, short: isShort, equal) { out.append($0) }
        // Linked newest first.
        return out.count > 1 ? out.sorted() : out
    }

    /// A key only narrows: each name of its chain is compared, once however many regions bear it.
    private func walk(_ key: NameKey, short isShort: Bool, _ equal: (ArraySlice<Unicode.Scalar>) -> Bool, _ body: (Int64) -> Void) {
        guard let slot = slot(key) else { return }
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
            if same { body(e.code) }
        }
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

extension NameTable {
    /// Names what goes into the table for given regions, beside the compiled-in tables the
    /// stored table's kind hashes (`StoredNameTable.kind`): bump it with any change to which
    /// names are added (`init(loading:)`, `Abbreviations`), how a name is keyed (`NameKey`,
    /// `composed`) or how the table is encoded, or databases would keep a table this binary
    /// would not build.
    package static let builder = 1

    /// Every region's full and short names (and the abbreviations people write for them),
    /// every former name and every functional zone's name.
    package init(loading db: Connection) throws {
        self.init(expectedKeys: 200_000)
        // Stepped here rather than through `rows`: generic across modules, that looked up the
        // array's type metadata for each of some 45,000 rows, at every start.
        let regions = try db.cachedStatement("SELECT code, name, short_name FROM region")
        defer { regions.reset() }
        while try regions.step() {
            let (code, name, short) = (regions.int64(0), regions.text(1), regions.optionalText(2))
            add(name, code: code, short: false)
            if let short { add(short, code: code, short: true) }
            for abbreviation in Abbreviations.of(name) { add(abbreviation, code: code, short: false) }
            // 浦东新区, whose list gives no short name, is written 浦东 and 浦东区.
            if short == nil || short == name, name.hasSuffix("新区"), name.count >= 4 {
                add(String(name.dropLast(2)), code: code, short: true)
            }
        }
        for name in FormerNames.byName.keys { add(name, former: true) }
        for name in FunctionalZones.byName.keys { add(name, zone: true) }
    }

    /// The table for `geocode_names` (`StoredNameTable`): the table's size, the filled slots
    /// as columns, the entries as columns, the names' scalars. No padding bytes, so the same
    /// table always encodes the same.
    package func encode(into w: inout CellsBlobWriter) {
        let used = slots.filter { $0.key != 0 }
        w.put(Int64(slots.count))
        w.put(used.map(\.key)); w.put(used.map(\.full)); w.put(used.map(\.short)); w.put(used.map(\.flags))
        w.put(entries.map(\.code)); w.put(entries.map(\.name.lowerBound)); w.put(entries.map(\.name.upperBound))
        w.put(entries.map(\.next))
        w.put(scalars.map(\.value))
    }

    /// Steps over the table `encode` wrote, unread (a batch reads only the rows stored after
    /// it, `StoredNameTable.rows`); false where `init?(decoding:)` would fail to read its arrays.
    package static func skip(_ r: inout CellsBlobReader) -> Bool {
        r.get(Int64.self) != nil
            && r.skipArray(UInt64.self) && r.skipArray(Int32.self) && r.skipArray(Int32.self) && r.skipArray(UInt8.self)
            && r.skipArray(Int64.self) && r.skipArray(Int32.self) && r.skipArray(Int32.self) && r.skipArray(Int32.self)
            && r.skipArray(UInt32.self)
    }

    /// The table `encode` wrote; nil for anything that does not fit (a blob cut short, an
    /// index out of range), so that the geocoder builds the table instead.
    package init?(decoding r: inout CellsBlobReader) {
        guard let size = r.get(Int64.self), size >= 1024, size <= 1 << 26, size & (size - 1) == 0,
              let keys = r.array(UInt64.self), let full = r.array(Int32.self), let short = r.array(Int32.self),
              let flags = r.array(UInt8.self), let codes = r.array(Int64.self), let lower = r.array(Int32.self),
              let upper = r.array(Int32.self), let next = r.array(Int32.self), let values = r.array(UInt32.self),
              [full.count, short.count, flags.count].allSatisfy({ $0 == keys.count }), keys.count * 2 <= size,
              // No larger than the builder makes (2^19 slots, doubled while half full): a damaged
              // size must not have every geocoder fill a gigabyte of empty slots.
              size <= max(1 << 19, 4 * (keys.count + 1)),
              [lower.count, upper.count, next.count].allSatisfy({ $0 == codes.count }),
              let scalars = [Unicode.Scalar](validating: values)
        else { return nil }
        // Every index checked as it is read: a damaged blob must not become a crash at a look-up.
        let entryCount = Int32(clamping: codes.count), scalarCount = Int32(clamping: values.count)
        func isEntry(_ i: Int32) -> Bool { i >= -1 && i < entryCount }
        var entries: [Entry] = []
        entries.reserveCapacity(codes.count)
        for i in codes.indices {
            let (l, u, n) = (lower[i], upper[i], next[i])
            // Each entry links to an older one (`add` links newest first), so no chain is a loop.
            guard 0 <= l, l <= u, u <= scalarCount, n >= -1, n < Int32(i) else { return nil }
            entries.append(Entry(code: codes[i], name: l..<u, next: n))
        }
        self.init(expectedKeys: Int(size) / 2)
        (self.entries, self.scalars) = (entries, scalars)
        var count = 0
        let placed = slots.withUnsafeMutableBufferPointer { slots -> Bool in
            let mask = slots.count - 1
            for j in keys.indices {
                let k = keys[j]
                guard k != 0, isEntry(full[j]), isEntry(short[j]) else { return false }
                var i = Int(truncatingIfNeeded: (k ^ (k >> 29)) & UInt64(mask))
                while slots[i].key != 0 && slots[i].key != k { i = (i + 1) & mask }
                if slots[i].key == 0 { count += 1 }
                slots[i] = Slot(key: k, full: full[j], short: short[j], flags: flags[j])
            }
            return true
        }
        guard placed else { return nil }
        self.count = count
    }
}

extension [Unicode.Scalar] {
    /// `values` as scalars; nil if one is not a scalar's value.
    init?(validating values: [UInt32]) {
        var valid = true
        self.init(unsafeUninitializedCapacity: values.count) { buffer, done in
            for v in values {
                guard let u = Unicode.Scalar(v) else {
                    valid = false
                    return
                }
                buffer[done] = u
                done += 1
            }
        }
        guard valid else { return nil }
    }
}
