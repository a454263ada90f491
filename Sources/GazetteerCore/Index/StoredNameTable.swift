import GazetteerSQLite

/// The geocoder's name table (`NameTable`), built by the importer inside its own transaction
/// and kept in `geocode_names` (`StoredDerived`: tagged with the data generation and with the
/// rules that built it). Building it from the regions is most of what every command that
/// geocodes does before its first address (some 270 million instructions: 45,000 rows read
/// and decoded, 200,000 keys marked); reading it back costs a copy.
package enum StoredNameTable {
    /// The rules: `NameTable.builder`, and a hash of the former-name and functional-zone tables
    /// this binary compiles in, whose names the table holds too, so a binary built with other
    /// tables never reads another's.
    package static let kind: String = {
        var key = NameKey()
        for bytes in [PackageResources.former_names_tsv, PackageResources.functional_zones_tsv] {
            key.append(bytes: bytes)
        }
        return "names \(NameTable.builder), tables \(String(key.value, radix: 16))"
    }()

    static let row = StoredDerived(table: "geocode_names", kind: kind)

    /// The table for the data `db`'s transaction sees, if stored for it by an importer with
    /// these rules; nil means "build it", never a failure.
    package static func names(_ db: Connection) -> NameTable? {
        row.blob(db).flatMap { NameTable(encoded: $0) }
    }

    /// Brings the stored table up to an import that changed the data from generation `before`
    /// to `after` (`StoredDerived.refresh`): re-tagged when no region changed, else built.
    package static func refresh(_ db: Connection, from before: Int64, to after: Int64, regionsChanged: Bool) throws {
        try row.refresh(db, from: before, to: after, rebuild: regionsChanged) { (try? NameTable(loading: db))?.encoded }
    }
}
