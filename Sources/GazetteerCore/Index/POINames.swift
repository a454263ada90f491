import Foundation
import GazetteerSQLite

/// Every POI's name, rowid and adcode in memory, in the order `ORDER BY name, rowid` gives
/// (names as SQLite compares text: their bytes). The geocoder asks, a few times per address,
/// which POI names start the rest of its text; from the `poi_name` index each question is a
/// prepared statement's bind, step and reset, about a tenth of a batch's work, and here a
/// binary search. Loaded only once a batch has paid for it (see
/// `RegionCache.noteAddressesGeocoded`), and only for data it answers exactly as SQL does.
/// A class: the parser hands it on at every question, and a struct of four arrays was four
/// retains each time.
package final class POINames: Sendable {
    /// The names' bytes, one after another; name `i` ends at `ends[i]`.
    private let bytes: [UInt8]
    private let ends: [Int]
    private let rowids: [Int64]
    /// `Int64.min` for a NULL adcode, which no range holds.
    private let adcodes: [Int64]

    package var count: Int { rowids.count }

    /// Text as the questions take it: its UTF-8 bytes, and with U+10FFFF after them (the
    /// bound `KeywordSearcher.upperBound` puts after a prefix) when `upper`.
    package static func key(_ text: ArraySlice<Unicode.Scalar>, upper: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 * text.count + 4)
        for u in text { bytes.appendUTF8(u) }
        if upper { bytes.appendUTF8("\u{10FFFF}") }
        return bytes
    }

    /// `key(text)` and `key(text, upper: true)` in one buffer: the look-ups of a prefix ask
    /// for both, and a batch asks hundreds of thousands of times.
    package static func bounds(_ text: ArraySlice<Unicode.Scalar>) -> (low: ArraySlice<UInt8>, high: ArraySlice<UInt8>) {
        let bytes = key(text, upper: true)
        return (bytes[..<(bytes.count - 4)], bytes[...])
    }

    /// `key(text)` and the key of its first `n` characters, in one buffer.
    package static func keys(_ text: ArraySlice<Unicode.Scalar>, prefix n: Int) -> (whole: ArraySlice<UInt8>, prefix: ArraySlice<UInt8>) {
        let bytes = key(text)
        let head = text.prefix(n).reduce(0) { $0 + UTF8.width($1) }
        return (bytes[...], bytes[..<head])
    }

    /// Nil when some row would not compare in memory as it does in SQL: a database not in
    /// UTF-8, a name that is not text or holds a NUL (SQLite's `length` stops there), an
    /// adcode neither an integer nor NULL.
    package init?(loading db: Connection) throws {
        // SQLite compares text in the database's own encoding; the bytes here are UTF-8.
        guard try db.scalar("PRAGMA encoding") == .text("UTF-8") else { return nil }
        // The table in rowid order, then sorted here: walking the name index instead reads
        // each row's adcode from the table, a seek per POI.
        var raw: [UInt8] = [], starts: [Int] = [], rowids: [Int64] = [], adcodes: [Int64] = []
        let statement = try db.makeStatement("SELECT name, rowid, adcode FROM poi")
        while try statement.step() {
            guard statement.isText(0), statement.isInteger(2) || statement.isNull(2) else { return nil }
            starts.append(raw.count)
            let clean = statement.withBlob(0) { name -> Bool in
                raw.append(contentsOf: name)
                return !name.contains(0)
            }
            guard clean else { return nil }
            rowids.append(statement.int64(1))
            adcodes.append(statement.isNull(2) ? .min : statement.int64(2))
        }
        starts.append(raw.count)
        // ORDER BY name, rowid.
        let order = raw.withUnsafeBufferPointer { all in
            rowids.indices.sorted { a, b in
                let c = Self.binary(UnsafeBufferPointer(rebasing: all[starts[a]..<starts[a + 1]]),
                                    UnsafeBufferPointer(rebasing: all[starts[b]..<starts[b + 1]]))
                return c != 0 ? c < 0 : rowids[a] < rowids[b]
            }
        }
        var bytes: [UInt8] = [], ends: [Int] = []
        bytes.reserveCapacity(raw.count)
        ends.reserveCapacity(order.count)
        for i in order {
            bytes.append(contentsOf: raw[starts[i]..<starts[i + 1]])
            ends.append(bytes.count)
        }
        (self.bytes, self.ends) = (bytes, ends)
        self.rowids = order.map { rowids[$0] }
        self.adcodes = order.map { adcodes[$0] }
    }

    private func range(_ i: Int) -> Range<Int> { (i == 0 ? 0 : ends[i - 1])..<ends[i] }

    /// `a` against `b` as SQLite's BINARY collation orders text: bytes, then length.
    private static func binary(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        let c = n == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, n)
        return c != 0 ? Int(c) : a.count - b.count
    }

    /// Name `i` against `key`, as SQLite orders them.
    private func compare(_ i: Int, _ key: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { Self.binary(UnsafeBufferPointer(rebasing: $0[range(i)]), key) }
    }

    /// The first name at or after `key` (`orEqual`), or after it.
    private func first(from key: ArraySlice<UInt8>, orEqual: Bool) -> Int {
        key.withUnsafeBufferPointer { k in
            var low = 0, high = count
            while low < high {
                let mid = (low + high) / 2
                let c = compare(mid, k)
                if c < 0 || (!orEqual && c == 0) { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    private func isBelow(_ i: Int, _ key: ArraySlice<UInt8>) -> Bool {
        key.withUnsafeBufferPointer { compare(i, $0) < 0 }
    }

    /// `SELECT 1 FROM poi WHERE name >= low AND name < high LIMIT 1`.
    package func contains(from low: ArraySlice<UInt8>, below high: ArraySlice<UInt8>) -> Bool {
        let i = first(from: low, orEqual: true)
        return i < count && isBelow(i, high)
    }

    /// `SELECT name FROM poi WHERE name <= high AND name >= low ORDER BY name DESC LIMIT 1`.
    package func greatest(atMost high: ArraySlice<UInt8>, atLeast low: ArraySlice<UInt8>) -> String? {
        let i = first(from: high, orEqual: false) - 1
        guard i >= 0, !isBelow(i, low) else { return nil }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range(i)]), as: UTF8.self) }
    }

    /// `SELECT rowid FROM poi WHERE name = ? [AND +adcode BETWEEN lower AND upper] ORDER BY rowid LIMIT 1`.
    package func firstRowid(named name: String, adcodes inside: ClosedRange<Int64>?) -> Int64? {
        let name = Array(name.utf8)[...]
        let end = first(from: name, orEqual: false)
        for i in first(from: name, orEqual: true)..<end where inside.map({ adcodes[i] != .min && $0.contains(adcodes[i]) }) ?? true {
            return rowids[i]
        }
        return nil
    }

    /// `SELECT rowid FROM poi WHERE name >= low AND name < high [AND +adcode BETWEEN …]
    /// ORDER BY substr(name, n + 1, 1) IN ('(', '（') DESC, length(name), rowid LIMIT 1`, with
    /// characters as SQLite's `substr` and `length` step over them (`Self.step`).
    package func firstLonger(from low: ArraySlice<UInt8>, below high: ArraySlice<UInt8>, after n: Int, adcodes inside: ClosedRange<Int64>?) -> Int64? {
        var best: (branch: Bool, length: Int, rowid: Int64)?
        var i = first(from: low, orEqual: true)
        bytes.withUnsafeBufferPointer { all in
            while i < count, isBelow(i, high) {
                defer { i += 1 }
                if let inside, adcodes[i] == .min || !inside.contains(adcodes[i]) { continue }
                let name = UnsafeBufferPointer(rebasing: all[range(i)])
                var at = 0, length = 0, branch = false
                while at < name.count {
                    let start = at
                    Self.step(name, &at)
                    length += 1
                    if length == n + 1 { branch = name[start..<at].elementsEqual([0x28]) || name[start..<at].elementsEqual([0xEF, 0xBC, 0x88]) }
                }
                let better = best.map { b in branch != b.branch ? branch : (length, rowids[i]) < (b.length, b.rowid) } ?? true
                if better { best = (branch, length, rowids[i]) }
            }
        }
        return best?.rowid
    }

    /// Moves `at` past one character as SQLite's SQLITE_SKIP_UTF8 does: a byte of 0xC0 or
    /// more and the continuation bytes after it, any other byte alone.
    static func step(_ name: UnsafeBufferPointer<UInt8>, _ at: inout Int) {
        let lead = name[at]
        at += 1
        if lead >= 0xC0 { while at < name.count, name[at] & 0xC0 == 0x80 { at += 1 } }
    }
}
