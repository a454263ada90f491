import Foundation
import GazetteerCore
import GazetteerSQLite

/// The read side of a gazetteer database: the queries an app or server makes. Safe to share
/// between threads and tasks; each query borrows its own connection.
public final class Repository: Sendable {
    /// The database file.
    public let path: String
    let pool: ConnectionPool
    let regions = RegionCache()

    /// Opens an existing gazetteer database for queries.
    ///
    /// - Throws: `GazetteerError` when the file is missing, not a database, or of another
    ///   schema version.
    public init(path: String) throws(GazetteerError) {
        self.path = path
        do {
            pool = try ConnectionPool { try Schema.open(path: path, mode: .readOnly) }
        } catch let error as GazetteerError {
            throw error
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// Creates an empty gazetteer database at `path` (or checks the one there), so that
    /// `Repository(path:)` and imports can use it.
    public static func create(at path: String) throws(GazetteerError) {
        _ = try Schema.open(path: path, mode: .readWrite)
    }

    /// Keeps what the queries cached (regions, boundaries' indexes, cells) for the rest of the
    /// process, even once the repository is dropped: a command about to exit need not free them.
    package func keepCachesUntilExit() {
        _ = Unmanaged.passRetained(regions)
    }

    /// Runs `body` with a pooled connection, turning SQLite failures into `GazetteerError`.
    func read<T>(_ body: (Connection) throws -> T) throws(GazetteerError) -> T {
        do {
            // One read transaction per query: every statement sees the same snapshot (never
            // half of an import), and the file is locked once rather than per statement.
            return try pool.withConnection { db in
                try db.read {
                    try regions.validate(db)
                    return try body(db)
                }
            }
        } catch {
            throw mapped(error)
        }
    }

    /// A failure inside `read` as the `GazetteerError` a query throws.
    func mapped(_ error: any Error) -> GazetteerError {
        switch error {
        case let error as GazetteerError: error
        case let error as SQLiteError: Schema.map(error, path: path)
        default: .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// Counts, versions and provenance of the data.
    public func info() throws(GazetteerError) -> DatabaseInfo {
        try read { db in
            var counts = Dictionary(uniqueKeysWithValues: RegionLevel.allCases.map { ($0.name, 0) })
            let perLevel = try db.cachedStatement("SELECT level, count(*) FROM region GROUP BY level").rows { ($0.int(0), $0.int(1)) }
            for (level, count) in perLevel {
                if let l = RegionLevel(rawValue: level) { counts[l.name] = count }
            }
            let meta = Dictionary(
                try db.cachedStatement("SELECT key, value FROM meta").rows { ($0.text(0), $0.text(1)) },
                uniquingKeysWith: { a, _ in a })
            func count(_ sql: String) throws -> Int {
                if case .integer(let n) = try db.scalar(sql) { return Int(n) }
                return 0
            }
            let pageCount = try count("PRAGMA page_count")
            let pageSize = try count("PRAGMA page_size")
            return DatabaseInfo(
                path: path,
                regionCounts: counts,
                boundaryCount: try count("SELECT count(*) FROM region WHERE boundary IS NOT NULL"),
                approximateTownCentres: try count("SELECT count(*) FROM region WHERE level = 3 AND center_approx = 1 AND lng IS NOT NULL"),
                poiCount: try count("SELECT count(*) FROM poi"),
                schemaVersion: Int(meta["schema_version"] ?? "") ?? Schema.version,
                datasetVersion: meta["dataset_version"] ?? "",
                datasetSources: meta["dataset_sources"] ?? "",
                coordinateSystem: meta["coordinate_system"] ?? "GCJ-02",
                sqliteVersion: Connection.sqliteVersion,
                sizeBytes: Int64(pageCount * pageSize))
        }
    }
}
