import GazetteerCore

extension Repository {
    /// Whether the database holds any region, and the dataset version it was built from: what
    /// deciding to rebuild the default database needs, on every command that opens it. `info()`
    /// counts every row, tens of milliseconds a call.
    public func readiness() throws(GazetteerError) -> (hasRegions: Bool, datasetVersion: String) {
        try read { db in
            let any = try db.scalar("SELECT EXISTS (SELECT 1 FROM region)")
            let version = try db.cachedStatement("SELECT value FROM meta WHERE key = 'dataset_version'").first([]) { $0.text(0) }
            if case .integer(let n) = any { return (n != 0, version ?? "") }
            return (false, version ?? "")
        }
    }
}
