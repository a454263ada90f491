import GazetteerCore

/// A row of a regions CSV file, validated into the region table's row.
extension RegionRow {
    /// Checks one row on its own; parents are checked once all rows are read.
    init(csv row: CSVTable.Row, coordinateSystem: CoordinateSystem) throws(ImportError) {
        try row.checkFieldCount()
        guard let levelText = row["level"] else { throw row.error("level", .missingValue) }
        guard let level = RegionLevel(name: levelText) else {
            throw row.error("level", .malformed(value: levelText, expected: "one of province, city, district, town"))
        }
        guard let code = try row.code("code", digits: level == .town ? [9, 12] : [6]) else {
            throw row.error("code", .missingValue)
        }
        let text = row["code"]!
        if level == .province && code % 10_000 != 0 {
            throw row.error("code", .malformed(value: text, expected: "a province adcode (6 digits ending in 0000)"))
        }
        let parent = try row.code("parent", digits: [6, 9, 12])
        if level == .province, parent != nil {
            throw row.error("parent", .levelMismatch("a province has no parent; leave 'parent' empty"))
        }
        if level != .province, parent == nil {
            throw row.error("parent", .missingValue)
        }
        let name = try row.required("name")
        let shortName = row["short_name"]
        let pinyin = row["pinyin"]?.lowercased()
        let citycode = row["citycode"]
        if let c = citycode, !c.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) || c.utf8.count > 6 {
            throw row.error("citycode", .malformed(value: c, expected: "a telephone area code such as 0571"))
        }
        let center = try row.coordinate(required: false).map { c throws(ImportError) in try row.converted(c, from: coordinateSystem) }
        let centerApproximate: Bool
        switch row["center_approx"] {
        case nil, "0": centerApproximate = false
        case "1": centerApproximate = true
        case let v?: throw row.error("center_approx", .malformed(value: v, expected: "0 or 1"))
        }
        let boundingBox: BoundingBox?
        let lower = try row.coordinate(lng: "min_lng", lat: "min_lat", required: false)
        let upper = try row.coordinate(lng: "max_lng", lat: "max_lat", required: false)
        switch (lower, upper) {
        case (nil, nil): boundingBox = nil
        case (let lo?, let hi?):
            guard lo.longitude <= hi.longitude, lo.latitude <= hi.latitude else {
                throw row.error("min_lng", .malformed(value: "\(lo.longitude),\(lo.latitude)", expected: "at or below max_lng,max_lat"))
            }
            let a = try row.converted(lo, from: coordinateSystem, column: "min_lng")
            let b = try row.converted(hi, from: coordinateSystem, column: "max_lng")
            boundingBox = BoundingBox(minLongitude: a.longitude, minLatitude: a.latitude, maxLongitude: b.longitude, maxLatitude: b.latitude)
        default:
            throw row.error(lower == nil ? "min_lng" : "max_lng", .missingValue)
        }
        self.init(code: code, parent: parent, level: level, name: name, shortName: shortName, pinyin: pinyin,
                  citycode: citycode, center: center, centerApproximate: centerApproximate, boundingBox: boundingBox)
    }

    /// Whether `parent` at `parentLevel` may hold this region: strictly higher, and not a
    /// district directly under a district, etc. Returns the complaint, if any.
    func parentProblem(parentLevel: RegionLevel) -> String? {
        guard parentLevel < level else {
            return "a \(level.name) cannot sit under a \(parentLevel.name) (\(parent!)); its parent must be of a higher level"
        }
        if level == .city && parentLevel != .province {
            return "a city's parent must be a province, not a \(parentLevel.name)"
        }
        return nil
    }
}
