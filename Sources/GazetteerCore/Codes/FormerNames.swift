/// Former names and codes of cities and counties, with the region each is part of today:
/// addresses and spreadsheets still say 襄樊, 下城区 or 宁波江东区 and carry pre-2021 adcodes.
/// Facts of the national code list rather than of a dataset, so compiled in
/// (`former_names.tsv`, made by `Scripts/build_former_names.py`; sources in `README.md` here).
/// A target a database lacks is simply not found there.
package enum FormerNames {
    package struct Entry: Sendable, Hashable {
        /// The former name as written in the list (襄樊市).
        package var name: String
        /// Today's adcode.
        package var code: Int64
    }

    /// Former full names and their short forms (襄樊市, 襄樊) to today's regions.
    package static let byName: [String: [Entry]] = table.names
    /// Former adcodes to today's (the latest change wins).
    package static let byCode: [Int64: Int64] = table.codes

    /// `byName` by the names' keys, as the geocoder reads its text (scalars and a `NameKey`):
    /// hashing a Chinese `String` normalises it first, and the geocoder asks at every place a
    /// former name may start.
    private static let byKey: [UInt64: [(name: [Unicode.Scalar], entries: [Entry])]] = {
        var table: [UInt64: [(name: [Unicode.Scalar], entries: [Entry])]] = [:]
        for (name, entries) in byName {
            let scalars = Array(name.composed.unicodeScalars)
            table[NameKey(scalars: scalars).value, default: []].append((scalars, entries))
        }
        return table
    }()

    /// `byName[text]`, for the text as the geocoder reads it and its key.
    package static func entries(_ text: ArraySlice<Unicode.Scalar>, key: NameKey) -> [Entry] {
        byKey[key.value]?.first(where: { $0.name.elementsEqual(text) })?.entries ?? []
    }

    private static let table: (names: [String: [Entry]], codes: [Int64: Int64]) = {
        var names: [String: [Entry]] = [:], codes: [Int64: (code: Int64, year: Int)] = [:]
        // Sized once: growing rehashes every name, and hashing a String normalises it.
        names.reserveCapacity(8192)
        codes.reserveCapacity(4096)
        // Read as bytes in place, lines and fields as ranges (one array of them for every
        // line): every geocoder that meets a former name reads this, and splitting the text as
        // Characters, then as arrays of slices per line, took longer than the rest.
        PackageResources.former_names_tsv.withUnsafeBufferPointer { all in
            var f: [Range<Int>] = []
            var start = 0, header = true
            while start < all.count {
                let end = all[start...].firstIndex(of: UInt8(ascii: "\n")) ?? all.count
                defer { start = end + 1 }
                guard end > start else { continue }
                f.removeAll(keepingCapacity: true)
                var field = start
                for i in start..<end where all[i] == UInt8(ascii: "\t") {
                    f.append(field..<i)
                    field = i + 1
                }
                f.append(field..<end)
                guard !header else {
                    header = false
                    continue
                }
                // Numbers read as digits, text decoded from contiguous bytes.
                func text(_ i: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: all[f[i]]), as: UTF8.self) }
                func number(_ i: Int) -> Int64? {
                    let digits = all[f[i]]
                    guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
                    return digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
                }
                guard f.count >= 4, let code = number(2) else { continue }
                let name = text(1), year = Int(number(3) ?? 0)
                let entry = Entry(name: name, code: code)
                let short = shortForm(name)
                for key in short == name ? [name] : [name, short] where key.unicodeScalars.count >= 2 {
                    names[key, default: []].appendIfAbsent(entry)
                }
                if let old = number(0), old != code, year >= codes[old]?.year ?? -1 { codes[old] = (code, year) }
            }
        }
        return (names, codes.mapValues(\.code))
    }()

    /// Today's regions for a former adcode (330103) or former name (襄樊), as a user gives one
    /// to `district` or `--city`: codes in ascending order, empty when it is neither.
    package static func today(of text: String) -> [Int64] {
        if let code = AdminCode(text).flatMap({ byCode[$0.value] }) { return [code] }
        return Array(Set((byName[text] ?? []).map(\.code))).sorted()
    }

    /// 襄樊市 → 襄樊, 忻城县 → 忻城, 柳州地区 → 柳州: the name without its level's suffix.
    static func shortForm(_ name: String) -> String {
        // On UTF-8 bytes: a byte suffix that is a whole encoding of the suffix's scalars ends
        // on a scalar boundary; read as scalars, this was a third of the table's start-up.
        var utf8 = name
        let short = utf8.withUTF8 { bytes -> String? in
            for tail in suffixes where bytes.count > tail.count && bytes.suffix(tail.count).elementsEqual(tail) {
                let head = UnsafeBufferPointer(rebasing: bytes.prefix(bytes.count - tail.count))
                // At least two characters left: scalars are the bytes that are no continuation.
                if head.lazy.filter({ $0 & 0xC0 != 0x80 }).count >= 2 { return String(decoding: head, as: UTF8.self) }
            }
            return nil
        }
        return short ?? name
    }

    /// The levels' suffixes `shortForm` takes off, longest first, as UTF-8 once: made per
    /// name, they were half of this table's start-up.
    private static let suffixes: [[UInt8]] =
        ["自治县", "自治州", "自治旗", "地区", "林区", "市", "县", "区", "盟", "旗"].map { Array($0.utf8) }
}

extension Array where Element: Equatable {
    fileprivate mutating func appendIfAbsent(_ e: Element) {
        if !contains(e) { append(e) }
    }
}
