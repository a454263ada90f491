import GazetteerSQLite

/// The geocoder's name table (`NameTable`) and every region's row (`RegionRows`), built by the
/// importer inside its own transaction and kept in `geocode_names` (`StoredDerived`: tagged with
/// the data generation and with the rules that built it). Building the names from the regions
/// is most of what every command that geocodes does before its first address (some 270
/// million instructions: 45,000 rows read and decoded, 200,000 keys marked), and each region
/// the geocoder meets was a query; reading them back costs a copy.
package enum StoredNameTable {
    private static let format: UInt32 = 0x4E41_4D33  // "NAM3": the rows with their areas

    /// The rules: `NameTable.builder`, the layout, and a hash of the former-name and
    /// functional-zone tables this binary compiles in, whose names the table holds too, so a
    /// binary built with other tables or rules never reads another's.
    package static let kind: String = {
        var key = NameKey()
        for bytes in [PackageResources.former_names_tsv, PackageResources.functional_zones_tsv] {
            key.append(bytes: bytes)
        }
        return "names \(NameTable.builder), format \(String(format, radix: 16)), tables \(String(key.value, radix: 16))"
    }()

    static let row = StoredDerived(table: "geocode_names", kind: kind)

    /// The names and rows for the data `db`'s transaction sees, if stored for it by an
    /// importer with these rules; nil means "build them", never a failure.
    package static func tables(_ db: Connection) -> (names: NameTable, rows: RegionRows)? {
        guard let blob = row.blob(db), var r = CellsBlobReader(blob, format: format),
              let names = NameTable(decoding: &r), let rows = RegionRows(decoding: &r), r.isAtEnd
        else { return nil }
        return (names, rows)
    }

    /// The rows alone, the names stepped over: a batch reverse geocode reads thousands of
    /// regions' rows (every town it names), each a query of some 15,000 instructions.
    package static func rows(_ db: Connection) -> RegionRows? {
        guard let blob = row.blob(db), var r = CellsBlobReader(blob, format: format),
              NameTable.skip(&r), let rows = RegionRows(decoding: &r), r.isAtEnd
        else { return nil }
        return rows
    }

    static func encoded(_ db: Connection, regions: RegionCache) throws -> [UInt8] {
        var w = CellsBlobWriter(format: format)
        try NameTable(loading: db).encode(into: &w)
        try RegionRows(loading: db, shapes: regions).encode(into: &w)
        return w.bytes
    }

    /// Brings the stored tables up to an import that changed the data from generation `before`
    /// to `after` (`StoredDerived.refresh`): re-tagged when no region changed, else built. The
    /// rows' areas come from `regions`' boundaries, decoded once for the import's region cells.
    package static func refresh(_ db: Connection, from before: Int64, to after: Int64, regionsChanged: Bool,
                                regions: RegionCache = RegionCache()) throws {
        try row.refresh(db, from: before, to: after, rebuild: regionsChanged) { try? encoded(db, regions: regions) }
    }
}
