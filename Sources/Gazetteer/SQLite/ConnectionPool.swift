/// Read connections for one database file, lent to one caller at a time so that many
/// threads can query at once without sharing a connection (and its cached statements).
final class ConnectionPool: Sendable {
    let path: String
    let mode: Connection.Mode
    private let idle: Locked<[Connection]>

    /// Opens the first connection right away so a bad file fails at once, not on first query.
    init(path: String, mode: Connection.Mode) throws(GazetteerError) {
        self.path = path
        self.mode = mode
        let first = try Schema.open(path: path, mode: mode)
        idle = Locked([first])
    }

    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let borrowed = idle.withLock { $0.popLast() }
        let connection = try borrowed ?? Schema.open(path: path, mode: mode)
        defer { idle.withLock { $0.append(connection) } }
        return try body(connection)
    }
}
