import GazetteerSQLite

/// One row of the `poi` table (schema.sql), as the importer writes it and queries read it:
/// the one declaration of its columns and how they decode.
package struct POIRow: Sendable, Equatable {
    /// The stable id it was imported with.
    package var id: String
    package var name: String
    package var type: String?
    /// 6-digit category code, kept as text (it may start with 0).
    package var typecode: String?
    package var address: String?
    package var phone: String?
    /// In GCJ-02, as everything stored.
    package var location: Coordinate
    /// 6-digit adcode of the district (or city) it lies in.
    package var adcode: Int64?
    /// 12-digit code of its town.
    package var towncode: Int64?

    package init(id: String, name: String, type: String? = nil, typecode: String? = nil, address: String? = nil,
                 phone: String? = nil, location: Coordinate, adcode: Int64? = nil, towncode: Int64? = nil) {
        self.id = id
        self.name = name
        self.type = type
        self.typecode = typecode
        self.address = address
        self.phone = phone
        self.location = location
        self.adcode = adcode
        self.towncode = towncode
    }

    /// The columns `init(_:offset:)` reads and `values` writes, in that order.
    package static let columns = "id, name, type, typecode, address, phone, lng, lat, adcode, towncode"

    /// Decodes `columns`, starting at column `offset` of the current row of `s`.
    package init(_ s: Statement, offset o: Int32 = 0) {
        self.init(
            id: s.text(o), name: s.text(o + 1), type: s.optionalText(o + 2), typecode: s.optionalText(o + 3),
            address: s.optionalText(o + 4), phone: s.optionalText(o + 5),
            location: Coordinate(longitude: s.double(o + 6), latitude: s.double(o + 7)),
            adcode: s.optionalInt64(o + 8), towncode: s.optionalInt64(o + 9))
    }

    /// The values of `columns`.
    package var values: [SQLiteValue] {
        [.text(id), .text(name), .string(type), .string(typecode), .string(address), .string(phone),
         .real(location.longitude), .real(location.latitude), .int(adcode), .int(towncode)]
    }

    /// Binds `values` to parameters `after` + 1…10 of `s` without building the array (the
    /// importer does this per row, and several rows to one statement), the text kept in `text`
    /// (see `Statement.run(_:binding:)`).
    package func bind(to s: Statement, after o: Int32 = 0, keeping text: BoundText) throws(SQLiteError) {
        try s.bind(id, at: o + 1, keptIn: text)
        try s.bind(name, at: o + 2, keptIn: text)
        try s.bind(type, at: o + 3, keptIn: text)
        try s.bind(typecode, at: o + 4, keptIn: text)
        try s.bind(address, at: o + 5, keptIn: text)
        try s.bind(phone, at: o + 6, keptIn: text)
        try s.bind(.real(location.longitude), at: o + 7)
        try s.bind(.real(location.latitude), at: o + 8)
        try s.bind(.int(adcode), at: o + 9)
        try s.bind(.int(towncode), at: o + 10)
    }

    /// How many parameters `bind(to:after:keeping:)` binds.
    package static let columnCount: Int32 = 10

    /// The category code as the R*Tree's auxiliary column holds it (a number), if it has one.
    package var typecodeNumber: Int64? { typecode.flatMap { Int64($0) } }

    /// The public form of the row at `offset` of `s`, decoded straight from the columns (the
    /// same columns as `init(_:offset:)`): queries load thousands per batch, and going through
    /// a `POIRow` first cost every string a retain and release more.
    package static func poi(_ s: Statement, offset o: Int32 = 0, system: CoordinateSystem) -> POI {
        POI(id: s.text(o), name: s.text(o + 1), type: s.optionalText(o + 2), typecode: s.optionalText(o + 3),
            address: s.optionalText(o + 4), phone: s.optionalText(o + 5),
            location: Coordinate(longitude: s.double(o + 6), latitude: s.double(o + 7)).converted(from: .gcj02, to: system),
            adcode: s.optionalInt64(o + 8).map(String.init), townCode12: s.optionalInt64(o + 9).map(String.init))
    }
}
