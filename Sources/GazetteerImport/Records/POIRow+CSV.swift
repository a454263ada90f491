import GazetteerCore

/// A row of a POI CSV file, validated into the poi table's row.
extension POIRow {
    /// The POI columns of one file, looked up once for all its rows.
    struct CSVColumns {
        let id, name, type, typecode, address, phone, lng, lat, adcode, towncode: CSVTable.Column

        init(_ t: CSVTable) {
            (id, name, type, typecode, address) = (t.column("id"), t.column("name"), t.column("type"), t.column("typecode"), t.column("address"))
            (phone, lng, lat, adcode, towncode) = (t.column("phone"), t.column("lng"), t.column("lat"), t.column("adcode"), t.column("towncode"))
        }
    }

    init(csv row: CSVTable.Row, coordinateSystem: CoordinateSystem) throws(ImportError) {
        try self.init(csv: row, columns: CSVColumns(row.table), coordinateSystem: coordinateSystem)
    }

    init(csv row: CSVTable.Row, columns c: CSVColumns, coordinateSystem: CoordinateSystem) throws(ImportError) {
        try row.checkFieldCount()
        let id = try row.required(c.id)
        let name = try row.required(c.name)
        let type = row[c.type]
        let typecode = row[c.typecode]
        if let t = typecode, t.utf8.count != 6 || !t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            throw row.error("typecode", .malformed(value: t, expected: "a 6-digit category code such as 141201"))
        }
        let address = row[c.address]
        let phone = row[c.phone]
        let location = try row.converted(row.coordinate(lng: c.lng, lat: c.lat, required: true)!, from: coordinateSystem)
        let adcode = try row.code(c.adcode, digits: Self.adcodeDigits)
        let towncode = try row.code(c.towncode, digits: Self.towncodeDigits)
        self.init(id: id, name: name, type: type, typecode: typecode, address: address, phone: phone,
                  location: location, adcode: adcode, towncode: towncode)
    }

    /// Made once, not per row.
    private static let adcodeDigits: Set<Int> = [6]
    private static let towncodeDigits: Set<Int> = [9, 12]
}
