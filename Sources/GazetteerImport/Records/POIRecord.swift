import GazetteerCore

/// A validated row of a POI CSV file.
struct POIRecord: Equatable {
    var id: String
    var name: String
    var type: String?
    var typecode: String?
    var address: String?
    var phone: String?
    var location: Coordinate
    var adcode: Int64?
    var towncode: Int64?

    init(row: CSVTable.Row, coordinateSystem: CoordinateSystem) throws(ImportError) {
        try row.checkFieldCount()
        id = try row.required("id")
        name = try row.required("name")
        type = row["type"]
        typecode = row["typecode"]
        if let t = typecode, t.utf8.count != 6 || !t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            throw row.error("typecode", .malformed(value: t, expected: "a 6-digit category code such as 141201"))
        }
        address = row["address"]
        phone = row["phone"]
        location = try row.converted(row.coordinate(required: true)!, from: coordinateSystem)
        adcode = try row.code("adcode", digits: [6])
        towncode = try row.code("towncode", digits: [9, 12]).map { row["towncode"]!.utf8.count == 9 ? $0 * 1000 : $0 }
    }
}
