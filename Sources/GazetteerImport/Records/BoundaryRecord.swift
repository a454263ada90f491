import GazetteerCore

/// A validated row of a boundaries CSV file.
struct BoundaryRecord {
    var code: Int64
    var geometry: MultiPolygon

    init(row: CSVTable.Row, coordinateSystem: CoordinateSystem) throws(ImportError) {
        try row.checkFieldCount()
        guard let code = try row.code("code", digits: [6, 9, 12]) else { throw row.error("code", .missingValue) }
        self.code = code
        let wkt = try row.required("geometry")
        do {
            var geometry = try MultiPolygon(wkt: wkt)
            if coordinateSystem != .gcj02 {
                geometry = MultiPolygon(polygons: geometry.polygons.map { polygon in
                    Polygon(rings: polygon.rings.map { ring in ring.map { $0.converted(from: coordinateSystem, to: .gcj02) } })
                })
            }
            self.geometry = geometry
        } catch {
            throw row.error("geometry", .invalidGeometry(error.description))
        }
        // A converted boundary must stay in range, as points must (see `Row.converted`).
        for polygon in geometry.polygons {
            for ring in polygon.rings {
                for c in ring where !c.isValid {
                    throw row.error("geometry", .outOfRange(value: "\(c.longitude),\(c.latitude)", range: "longitude -180 to 180 and latitude -90 to 90 once converted from \(coordinateSystem.rawValue) to GCJ-02"))
                }
            }
        }
    }
}
