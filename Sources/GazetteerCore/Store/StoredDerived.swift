import GazetteerSQLite

/// A row of data the importer derives from the rest of the database and stores, inside its own
/// transaction, so that readers need not build it at their start. Tagged twice: with the
/// `data_generation` it was built for (any other writer that changes the data, an older binary
/// included, raises it, and the row is then stale), and with a kind that names the rules that
/// built it (a binary whose rules differ reads none of another's, and its next import replaces
/// them). A reader that finds no current row builds in memory, as it did before the table.
package struct StoredDerived: Sendable {
    package let table: String
    package let kind: String

    /// The table, for a database made before it existed; schema.sql makes it in a new one.
    package var createTable: String {
        """
        CREATE TABLE IF NOT EXISTS \(table) (
            kind       TEXT PRIMARY KEY,
            generation INTEGER NOT NULL,
            data       BLOB NOT NULL
        )
        """
    }

    /// The stored data, if built for the data `db`'s transaction sees. Nil for a missing table
    /// or row, a stale row, or a row that says the data could not be built (empty): each means
    /// "build it", never a failure.
    package func blob(_ db: Connection) -> BlobReader? {
        guard let generation = try? RegionCache.dataGeneration(db),
              let statement = try? db.cachedStatement("SELECT rowid, generation, length(data) FROM \(table) WHERE kind = ?"),
              let row = try? statement.first([.text(kind)], { (rowid: $0.int64(0), generation: $0.int64(1), bytes: $0.int64(2)) }),
              row.generation == generation, row.bytes > 0
        else { return nil }
        return try? BlobReader(db, table: table, column: "data", rowid: row.rowid)
    }

    /// Brings the row up to an import that changed the data from generation `before` to
    /// `after`, on the import's connection inside its transaction (so a failed import leaves it
    /// as it was). A row that was current is only re-tagged unless `rebuild`; else `build`
    /// makes the data from the database as it now stands. Data that cannot be built (nil) is
    /// stored as an empty row of this generation: the import goes on, readers build it (or do
    /// without) as before, and later imports re-tag that row rather than trying again. Rows of
    /// other kinds are never read, so they are deleted rather than kept stale.
    package func refresh(_ db: Connection, from before: Int64, to after: Int64, rebuild: Bool, build: () -> [UInt8]?) throws {
        try db.execute(createTable)
        try db.cachedStatement("DELETE FROM \(table) WHERE kind <> ?").run([.text(kind)])
        let stored = try db.cachedStatement("SELECT generation FROM \(table) WHERE kind = ?").first([.text(kind)]) { $0.int64(0) }
        if !rebuild, stored == before {
            try db.cachedStatement("UPDATE \(table) SET generation = ? WHERE kind = ?").run([.integer(after), .text(kind)])
        } else {
            try db.cachedStatement("INSERT OR REPLACE INTO \(table) (kind, generation, data) VALUES (?, ?, ?)")
                .run([.text(kind), .integer(after), .blob(build() ?? [])])
        }
    }
}
