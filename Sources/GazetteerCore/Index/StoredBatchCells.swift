import GazetteerSQLite

/// The region cells a large batch reverse geocode reads (`RegionCells`), built by the importer
/// inside its own transaction and kept in `batch_cells`, the row tagged with the
/// `data_generation` it was built for. Building them costs a batch a third of its CPU on
/// 200,000 points (every boundary decoded and indexed, every edge marked); reading them back
/// costs a copy.
///
/// The POI cells are not stored: a batch builds them from the R*Tree at its start, as before.
/// Storing them made every POI import rebuild and write them (on 1M POIs: 1.5 s, 115 MiB of
/// peak memory and 37 MB of file more), and an import of POIs alone must cost what it did. A
/// 'poi' row an earlier build stored is never read, and the next import deletes it.
///
/// A row is read only when its generation is the database's: any other writer that changes
/// the data raises the generation (an older binary, which knows nothing of this table,
/// included), and the batch then builds the cells in memory as it always did. A database
/// without the table (imported by an older binary) is read the same way.
package enum StoredBatchCells {
    /// The one kind stored (the `kind` column, so that another could be added beside it), named
    /// after what builds the cells: the cells come from the data and from this binary's rules
    /// (the grid, the slack, how a cell is labelled), and the data generation tags only the
    /// data. A binary whose cells would come out otherwise has another kind, so it never reads
    /// an older binary's cells, and its next import replaces them. Bump `RegionCells.builder`
    /// with any change to how cells are built or labelled.
    package static let region = "region cells \(RegionCells.builder), grid \(RegionCells.cellDegrees)°, slack \(RegionLocator.slack) m"

    static let row = StoredDerived(table: "batch_cells", kind: region)

    /// The stored region cells, if built for the data `db`'s transaction sees. Nil for a missing
    /// table or row, a stale row, a row that says the cells cannot be built (empty), or a blob
    /// that does not decode: each means "build them", never a failed batch. Read piece by piece
    /// into the cells' own arrays.
    package static func regionCells(_ db: Connection) -> RegionCells? {
        row.blob(db).flatMap { RegionCells(encoded: $0) }
    }

    /// Brings the stored cells up to an import that changed the data from generation `before`
    /// to `after` (`StoredDerived.refresh`): only re-tagged when no region or boundary changed
    /// (a POI-only import costs an UPDATE); else built from the data as it now stands. Cells
    /// that cannot be built (a boundary that does not decode, a grid too large) are stored as
    /// an empty row of this generation. The boundaries decoded for them stay in `regions`, for
    /// the import's other derived data (`StoredNameTable.refresh`).
    package static func refresh(_ db: Connection, from before: Int64, to after: Int64, regionsChanged: Bool,
                                regions: RegionCache = RegionCache()) throws {
        try row.refresh(db, from: before, to: after, rebuild: regionsChanged) {
            (try? RegionLocator(cache: regions, db: db).buildCells())?.encoded
        }
    }
}
