import GazetteerSQLite

/// One row of the `region` table (schema.sql), as the importer writes it, the region cache
/// keeps it and `check` reads it: the one declaration of its columns and how they decode.
package struct RegionRow: Sendable, Equatable {
    /// 6-digit adcode, or the 12-digit code of a town (see `AdminCode`).
    package var code: Int64
    package var parent: Int64?
    package var level: RegionLevel
    package var name: String
    package var shortName: String?
    package var pinyin: String?
    package var citycode: String?
    /// In GCJ-02, as everything stored.
    package var center: Coordinate?
    package var centerApproximate: Bool
    package var boundingBox: BoundingBox?
    /// Whether the `boundary` column holds a shape: read, never written through this type
    /// (boundaries come from their own files and set it themselves).
    package var hasBoundary: Bool

    package init(code: Int64, parent: Int64?, level: RegionLevel, name: String, shortName: String? = nil,
                 pinyin: String? = nil, citycode: String? = nil, center: Coordinate? = nil,
                 centerApproximate: Bool = false, boundingBox: BoundingBox? = nil, hasBoundary: Bool = false) {
        self.code = code
        self.parent = parent
        self.level = level
        self.name = name
        self.shortName = shortName
        self.pinyin = pinyin
        self.citycode = citycode
        self.center = center
        self.centerApproximate = centerApproximate
        self.boundingBox = boundingBox
        self.hasBoundary = hasBoundary
    }

    /// The columns `init(_:offset:)` reads, in its order.
    package static let columns = """
        code, parent, level, name, short_name, pinyin, citycode, lng, lat, center_approx,
        min_lng, min_lat, max_lng, max_lat, boundary IS NOT NULL
        """

    /// The columns `values` writes, in its order: all but the boundary.
    package static let writtenColumns = """
        code, parent, level, name, short_name, pinyin, citycode, lng, lat, center_approx,
        min_lng, min_lat, max_lng, max_lat
        """

    /// Decodes `columns`, starting at column `offset` of the current row of `s`.
    package init(_ s: Statement, offset o: Int32 = 0) {
        var box: BoundingBox?
        if !s.isNull(o + 10) {
            box = BoundingBox(minLongitude: s.double(o + 10), minLatitude: s.double(o + 11),
                              maxLongitude: s.double(o + 12), maxLatitude: s.double(o + 13))
        }
        var center: Coordinate?
        if !s.isNull(o + 7) { center = Coordinate(longitude: s.double(o + 7), latitude: s.double(o + 8)) }
        self.init(
            code: s.int64(o), parent: s.optionalInt64(o + 1), level: RegionLevel(rawValue: s.int(o + 2)) ?? .town,
            name: s.text(o + 3), shortName: s.optionalText(o + 4), pinyin: s.optionalText(o + 5),
            citycode: s.optionalText(o + 6), center: center, centerApproximate: s.int(o + 9) != 0,
            boundingBox: box, hasBoundary: s.int(o + 14) != 0)
    }

    /// The values of `writtenColumns`.
    package var values: [SQLiteValue] {
        [
            .integer(code), .int(parent), .integer(Int64(level.rawValue)), .text(name), .string(shortName), .string(pinyin),
            .string(citycode), .double(center?.longitude), .double(center?.latitude), .integer(centerApproximate ? 1 : 0),
            .double(boundingBox?.minLongitude), .double(boundingBox?.minLatitude),
            .double(boundingBox?.maxLongitude), .double(boundingBox?.maxLatitude),
        ]
    }

    /// This row as it stands once written over `stored`: an optional field it leaves empty
    /// keeps the stored value (a file that only adds citycodes must not wipe centres), and with
    /// no centre of its own it keeps the stored centre's approximate flag too.
    package func written(over stored: RegionRow) -> RegionRow {
        var r = self
        r.shortName = shortName ?? stored.shortName
        r.pinyin = pinyin ?? stored.pinyin
        r.citycode = citycode ?? stored.citycode
        if center == nil {
            r.center = stored.center
            r.centerApproximate = stored.centerApproximate
        }
        r.boundingBox = boundingBox ?? stored.boundingBox
        r.hasBoundary = stored.hasBoundary
        return r
    }

    /// The public form, with the centre in the caller's system.
    package func region(system: CoordinateSystem) -> Region {
        Region(
            code: String(code), level: level, name: name, shortName: shortName, pinyin: pinyin,
            citycode: citycode, parentCode: parent.map(String.init),
            center: center.map { $0.converted(from: .gcj02, to: system) }, centerIsApproximate: centerApproximate,
            boundingBox: boundingBox)
    }
}
