import GazetteerCore

/// A row of a POI CSV file, validated into the poi table's row.
extension POIRow {
    init(csv row: CSVTable.Row, coordinateSystem: CoordinateSystem) throws(ImportError) {
        try row.checkFieldCount()
        let id = try row.required("id")
        let name = try row.required("name")
        let type = row["type"]
        let typecode = row["typecode"]
        if let t = typecode, t.utf8.count != 6 || !t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            throw row.error("typecode", .malformed(value: t, expected: "a 6-digit category code such as 141201"))
        }
        let address = row["address"]
        let phone = row["phone"]
        let location = try row.converted(row.coordinate(required: true)!, from: coordinateSystem)
        let adcode = try row.code("adcode", digits: Self.adcodeDigits)
        let towncode = try row.code("towncode", digits: Self.towncodeDigits)
        self.init(id: id, name: name, type: type, typecode: typecode, address: address, phone: phone,
                  location: location, adcode: adcode, towncode: towncode)
    }

    /// Made once, not per row.
    private static let adcodeDigits: Set<Int> = [6]
    private static let towncodeDigits: Set<Int> = [9, 12]
}
