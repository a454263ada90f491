import GazetteerCore
import GazetteerSQLite

/// The questions `Repository.poiPrefix` asks of POI names, answered from memory when a batch
/// has loaded them (`POINames`), else from the `poi_name` index: the same answers either way.
struct POINameQueries {
    let names: POINames?
    let db: Connection

    /// Whether some name starts with `start`.
    func some(startingWith start: ArraySlice<Unicode.Scalar>) throws -> Bool {
        if let names {
            let (low, high) = POINames.bounds(start)
            return names.contains(from: low, below: high)
        }
        let text = start.string
        return try db.cachedStatement("SELECT 1 FROM poi WHERE name >= ? AND name < ? LIMIT 1")
            .first([.text(text), .text(KeywordSearcher.upperBound(text))], { _ in true }) != nil
    }

    /// The greatest name in `low...high`.
    func greatest(atMost high: ArraySlice<Unicode.Scalar>, atLeast low: ArraySlice<Unicode.Scalar>) throws -> String? {
        if let names {
            // The parser's low bound is a start of its high one: one key then serves both.
            let keys = POINames.keys(high, prefix: low.count)
            return names.greatest(atMost: keys.whole, atLeast: high.starts(with: low) ? keys.prefix : POINames.key(low)[...])
        }
        return try db.cachedStatement("SELECT name FROM poi WHERE name <= ? AND name >= ? ORDER BY name DESC LIMIT 1")
            .first([.text(high.string), .text(low.string)], { $0.text(0) })
    }

    /// The first POI (by rowid) named `name`, with an adcode in `adcodes` when given.
    func firstRowid(named name: String, adcodes: ClosedRange<Int64>?) throws -> Int64? {
        if let names { return names.firstRowid(named: name, adcodes: adcodes) }
        guard let adcodes else {
            return try db.cachedStatement("SELECT rowid FROM poi WHERE name = ? ORDER BY rowid LIMIT 1").first([.text(name)], { $0.int64(0) })
        }
        // `+`: look names up by name, never scan a region by adcode.
        return try db.cachedStatement("SELECT rowid FROM poi WHERE name = ? AND +adcode BETWEEN ? AND ? ORDER BY rowid LIMIT 1")
            .first([.text(name), .integer(adcodes.lowerBound), .integer(adcodes.upperBound)], { $0.int64(0) })
    }

    /// The POI whose name is `start` and more, with an adcode in `adcodes` when given: a branch
    /// of the same name (南京大学(鼓楼校区), a bracket right after `n` characters) before a
    /// different one (南京大学金陵学院), then the shortest name, then the first rowid.
    func firstLonger(startingWith start: ArraySlice<Unicode.Scalar>, after n: Int, adcodes: ClosedRange<Int64>?) throws -> Int64? {
        if let names {
            let (low, high) = POINames.bounds(start)
            return names.firstLonger(from: low, below: high, after: n, adcodes: adcodes)
        }
        let text = start.string
        var sql = "SELECT rowid FROM poi WHERE name >= ? AND name < ?"
        var values: [SQLiteValue] = [.text(text), .text(KeywordSearcher.upperBound(text))]
        if let adcodes {
            sql += " AND +adcode BETWEEN ? AND ?"
            values += [.integer(adcodes.lowerBound), .integer(adcodes.upperBound)]
        }
        sql += " ORDER BY substr(name, ?, 1) IN ('(', '（') DESC, length(name), rowid LIMIT 1"
        values.append(.integer(Int64(n + 1)))
        return try db.cachedStatement(sql).first(values) { $0.int64(0) }
    }
}
