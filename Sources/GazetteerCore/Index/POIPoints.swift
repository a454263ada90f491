import GazetteerSQLite

/// Every POI's exact coordinates by rowid, in memory. A search ranked by distance measures up
/// to a thousand matches of a common word, and each read from the database is a B-tree
/// descent (about a microsecond); from here it is an array read. The coordinates are the
/// R*Tree's auxiliary `lng`, `lat` (`poi_rtree_rowid.a0`, `a1`), the ones search measured
/// from before, so distances and their order stay the same.
///
/// Sixteen bytes per rowid up to the largest: loaded only where rowids are dense (as an
/// import leaves them) and only once searches have paid for the load (see
/// `RegionCache.notePOIsMeasured`).
package struct POIPoints: Sendable {
    /// Longitude and latitude of rowid `i` at `2i`, `2i + 1`; NaN where no POI has that rowid.
    private let values: [Double]

    /// Rowids beyond twice the number of POIs (plus slack) mean a sparse table: not loaded.
    package static func worthLoading(maxRowid: Int64, count: Int64) -> Bool {
        maxRowid >= 0 && maxRowid <= 2 * count + 1_024
    }

    /// Nil when the rowids are too sparse to keep as an array.
    package init?(loading db: Connection) throws {
        let bounds = try db.makeStatement("SELECT max(rowid), count(*) FROM poi_rtree_rowid").first { ($0.int64(0), $0.int64(1)) }
        guard let (maxRowid, count) = bounds, Self.worthLoading(maxRowid: maxRowid, count: count) else { return nil }
        var values = [Double](repeating: .nan, count: 2 * (Int(maxRowid) + 1))
        let statement = try db.makeStatement("SELECT rowid, a0, a1 FROM poi_rtree_rowid")
        try values.withUnsafeMutableBufferPointer { out in
            while try statement.step() {
                let rowid = Int(statement.int64(0))
                // A NULL coordinate (never written by an import) stays NaN: not measured.
                guard rowid >= 0, 2 * rowid + 1 < out.count, !statement.isNull(1), !statement.isNull(2) else { continue }
                out[2 * rowid] = statement.double(1)
                out[2 * rowid + 1] = statement.double(2)
            }
        }
        self.values = values
    }

    /// The POI's coordinates, or nil when no POI has this rowid (as a LEFT JOIN finds none).
    @inline(__always)
    package func coordinate(_ rowid: Int64) -> Coordinate? {
        guard rowid >= 0, Int(rowid) < values.count / 2 else { return nil }
        let lng = values[2 * Int(rowid)]
        return lng.isNaN ? nil : Coordinate(longitude: lng, latitude: values[2 * Int(rowid) + 1])
    }
}
