import GazetteerSQLite

/// Every region's row in flat arrays, ordered by code, stored with the name table
/// (`StoredNameTable`). The geocoder reads three or four rows of its own per address, and each
/// was a query costing some 15,000 instructions, most of them making its strings; a row from
/// these arrays costs a binary search and its strings.
package struct RegionRows: Sendable {
    private var codes: [Int64] = []
    /// `Int64.min` for none.
    private var parents: [Int64] = []
    private var levels: [UInt8] = []
    private var flags: [UInt8] = []
    /// Longitude and latitude, two per row.
    private var centers: [Double] = []
    /// West, south, east and north, four per row.
    private var boxes: [Double] = []
    /// Where the row's name, short name, pinyin and citycode end in `text`, four per row (each
    /// starts where the one before ends).
    private var ends: [Int32] = []
    private var text: [UInt8] = []
    /// Per row: its boundary's area in square metres (`RegionCache.Shape.area`), NaN when it has
    /// no boundary or one that does not decode. A batch names towns by a district's area (the
    /// reach of `TownSet`), and reading the boundary for it was most of what a new district cost.
    private var areas: [Double] = []

    private static let approximate: UInt8 = 1, boundary: UInt8 = 2, center: UInt8 = 4, box: UInt8 = 8
    private static let short: UInt8 = 16, pinyin: UInt8 = 32, citycode: UInt8 = 64

    /// Every row of `db`'s region table, read as `RegionCache.entry` reads one, and the area of
    /// each boundary as `shapes` gives it (the importer's, which decoded them for the region
    /// cells; else each is read here).
    package init(loading db: Connection, shapes: RegionCache = RegionCache()) throws {
        let rows = try db.cachedStatement("SELECT \(RegionRow.columns) FROM region ORDER BY code")
        defer { rows.reset() }
        while try rows.step() { append(RegionRow(rows)) }
        areas = codes.indices.map { i in
            guard flags[i] & Self.boundary != 0 else { return .nan }
            return (try? shapes.boxedShape(codes[i], db))?.area ?? .nan
        }
    }

    private mutating func append(_ r: RegionRow) {
        codes.append(r.code)
        parents.append(r.parent ?? .min)
        levels.append(UInt8(r.level.rawValue))
        var f: UInt8 = r.centerApproximate ? Self.approximate : 0
        if r.hasBoundary { f |= Self.boundary }
        let c = r.center ?? Coordinate(longitude: 0, latitude: 0)
        if r.center != nil { f |= Self.center }
        centers += [c.longitude, c.latitude]
        let b = r.boundingBox ?? BoundingBox(minLongitude: 0, minLatitude: 0, maxLongitude: 0, maxLatitude: 0)
        if r.boundingBox != nil { f |= Self.box }
        boxes += [b.minLongitude, b.minLatitude, b.maxLongitude, b.maxLatitude]
        for (value, flag) in [(r.name, 0), (r.shortName, Self.short), (r.pinyin, Self.pinyin), (r.citycode, Self.citycode)] {
            if let value {
                text += value.utf8
                f |= flag
            }
            ends.append(Int32(text.count))
        }
        flags.append(f)
    }

    /// Region `code`'s row; nil when there is no such region.
    package func row(_ code: Int64) -> RegionRow? {
        guard let i = index(code) else { return nil }
        let f = flags[i]
        func string(_ k: Int) -> String {
            let start = i * 4 + k == 0 ? 0 : Int(ends[i * 4 + k - 1]), end = Int(ends[i * 4 + k])
            return text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
        }
        return RegionRow(
            code: code, parent: parents[i] == .min ? nil : parents[i], level: RegionLevel(rawValue: Int(levels[i])) ?? .town,
            name: string(0), shortName: f & Self.short != 0 ? string(1) : nil, pinyin: f & Self.pinyin != 0 ? string(2) : nil,
            citycode: f & Self.citycode != 0 ? string(3) : nil,
            center: f & Self.center != 0 ? Coordinate(longitude: centers[2 * i], latitude: centers[2 * i + 1]) : nil,
            centerApproximate: f & Self.approximate != 0,
            boundingBox: f & Self.box != 0
                ? BoundingBox(minLongitude: boxes[4 * i], minLatitude: boxes[4 * i + 1], maxLongitude: boxes[4 * i + 2], maxLatitude: boxes[4 * i + 3])
                : nil,
            hasBoundary: f & Self.boundary != 0)
    }

    /// What the rows know of a region's boundary area.
    package enum StoredArea: Equatable {
        case noBoundary
        case area(Double)
        /// No such row, or a boundary that did not decode: ask the boundary.
        case unknown
    }

    /// Region `code`'s boundary area, as `RegionCache.Shape.area` gives it.
    package func area(_ code: Int64) -> StoredArea {
        guard let i = index(code) else { return .unknown }
        if flags[i] & Self.boundary == 0 { return .noBoundary }
        return areas[i].isNaN ? .unknown : .area(areas[i])
    }

    private func index(_ code: Int64) -> Int? {
        var low = 0, high = codes.count
        while low < high {
            let mid = (low + high) / 2
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        return low < codes.count && codes[low] == code ? low : nil
    }

    /// Every district's towns as `RegionCache.noteTownBatch` reads them from the region table:
    /// per parent, its towns with a centre in code order, and how many towns it has.
    package func townLists() -> [Int64: (centres: [RegionCache.TownCentre], count: Int)] {
        var lists: [Int64: (centres: [RegionCache.TownCentre], count: Int)] = [:]
        let town = UInt8(RegionLevel.town.rawValue)
        for i in codes.indices where levels[i] == town && parents[i] != .min {
            lists[parents[i], default: ([], 0)].count += 1
            if flags[i] & Self.center != 0 {
                lists[parents[i], default: ([], 0)].centres.append(
                    RegionCache.TownCentre(code: codes[i], center: Coordinate(longitude: centers[2 * i], latitude: centers[2 * i + 1])))
            }
        }
        return lists
    }

    package func encode(into w: inout CellsBlobWriter) {
        w.put(codes); w.put(parents); w.put(levels); w.put(flags); w.put(centers); w.put(boxes); w.put(ends); w.put(text)
        w.put(areas)
    }

    /// The rows `encode` wrote; nil for anything that does not fit (counts that disagree,
    /// codes out of order, text ends out of range), so that rows are read from the table.
    package init?(decoding r: inout CellsBlobReader) {
        guard let codes = r.array(Int64.self), let parents = r.array(Int64.self), let levels = r.array(UInt8.self),
              let flags = r.array(UInt8.self), let centers = r.array(Double.self), let boxes = r.array(Double.self),
              let ends = r.array(Int32.self), let text = r.array(UInt8.self), let areas = r.array(Double.self),
              levels.count == codes.count, areas.count == codes.count, areas.allSatisfy({ $0.isNaN || ($0.isFinite && $0 >= 0) }), parents.count == codes.count, flags.count == codes.count,
              centers.count == 2 * codes.count, boxes.count == 4 * codes.count, ends.count == 4 * codes.count,
              zip(codes, codes.dropFirst()).allSatisfy({ $0 < $1 }),
              zip([0] + ends, ends).allSatisfy({ $0 <= $1 }), (ends.last ?? 0) <= text.count
        else { return nil }
        (self.codes, self.parents, self.levels, self.flags) = (codes, parents, levels, flags)
        (self.centers, self.boxes, self.ends, self.text, self.areas) = (centers, boxes, ends, text, areas)
    }
}
