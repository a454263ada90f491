import GazetteerSQLite

/// The region and POI cells a large batch reverse geocode reads (`RegionCells`, `POICells`),
/// built by the importer inside its own transaction and kept in `batch_cells`, each row
/// tagged with the `data_generation` it was built for. Building them costs a batch a third of
/// its CPU on 200,000 points (every boundary decoded and indexed, every edge marked, every POI
/// box placed); reading them back costs a copy.
///
/// A row is read only when its generation is the database's: any other writer that changes
/// the data raises the generation (an older binary, which knows nothing of this table,
/// included), and the batch then builds the cells in memory as it always did. A database
/// without the table (imported by an older binary) is read the same way.
package enum StoredBatchCells {
    /// The table, for a database made before it existed; schema.sql makes it in a new one.
    package static let createTable = """
        CREATE TABLE IF NOT EXISTS batch_cells (
            kind       TEXT PRIMARY KEY,
            generation INTEGER NOT NULL,
            data       BLOB NOT NULL
        )
        """

    package enum Kind: String, CaseIterable {
        case region, poi
    }

    /// The stored region cells, if built for the data `db`'s transaction sees.
    package static func regionCells(_ db: Connection) -> RegionCells? {
        stored(.region, db) { RegionCells(encoded: $0) }
    }

    /// The stored POI cells, if built for the data `db`'s transaction sees.
    package static func poiCells(_ db: Connection) -> POICells? {
        stored(.poi, db) { POICells(encoded: $0) }
    }

    /// Nil for a missing table or row, a stale row, or a blob that does not decode: each means
    /// "build them", never a failed batch. Read piece by piece into the cells' own arrays.
    private static func stored<T>(_ kind: Kind, _ db: Connection, _ decode: (BlobReader) -> T?) -> T? {
        guard let generation = try? RegionCache.dataGeneration(db),
              let statement = try? db.cachedStatement("SELECT rowid, generation FROM batch_cells WHERE kind = ?"),
              let row = try? statement.first([.text(kind.rawValue)], { (rowid: $0.int64(0), generation: $0.int64(1)) }),
              row.generation == generation,
              let blob = try? BlobReader(db, table: "batch_cells", column: "data", rowid: row.rowid)
        else { return nil }
        return decode(blob)
    }

    /// Brings the stored cells up to an import that changed the data from generation `before`
    /// to `after`, on the import's connection inside its transaction (so a failed import leaves
    /// them as they were). Cells whose source did not change and that were current are only
    /// re-tagged; the others are built from the data as it now stands.
    package static func refresh(_ db: Connection, from before: Int64, to after: Int64, regionsChanged: Bool, poisChanged: Bool) throws {
        try db.execute(createTable)
        for kind in Kind.allCases {
            let changed = kind == .region ? regionsChanged : poisChanged
            let stored = try db.cachedStatement("SELECT generation FROM batch_cells WHERE kind = ?").first([.text(kind.rawValue)]) { $0.int64(0) }
            if !changed, stored == before {
                try db.cachedStatement("UPDATE batch_cells SET generation = ? WHERE kind = ?").run([.integer(after), .text(kind.rawValue)])
                continue
            }
            let data: [UInt8]?
            switch kind {
            case .region: data = try RegionLocator(cache: RegionCache(), db: db).buildCells()?.encoded
            case .poi: data = try POICells(loading: db).encoded
            }
            if let data {
                try db.cachedStatement("INSERT OR REPLACE INTO batch_cells (kind, generation, data) VALUES (?, ?, ?)")
                    .run([.text(kind.rawValue), .integer(after), .blob(data)])
            } else {
                try db.cachedStatement("DELETE FROM batch_cells WHERE kind = ?").run([.text(kind.rawValue)])
            }
        }
    }
}
