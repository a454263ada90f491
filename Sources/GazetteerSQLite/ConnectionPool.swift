import Foundation

/// Read connections for one database file, lent to one caller at a time so that many
/// threads can query at once without sharing a connection (and its cached statements).
///
/// Bounded: at most `capacity` connections are open at once (each holds its own page and
/// statement caches); a caller beyond that waits for one to come back instead of opening more.
/// A connection comes back only outside any transaction: one that cannot leave its transaction
/// is closed rather than lent again still inside it.
package final class ConnectionPool: @unchecked Sendable {
    /// Opens one more connection, with whatever checks the layer above wants made.
    package typealias Opener = @Sendable () throws -> Connection

    package let capacity: Int
    private let opener: Opener
    // Guarded by `condition` (an NSCondition, whose pthread mutex ThreadSanitizer sees).
    private let condition = NSCondition()
    private var idle: [Connection]
    private var open: Int

    /// Twice the cores, at least 4: every core can query while others wait on I/O.
    package static let defaultCapacity = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// Opens the first connection right away so a bad file fails at once, not on first query.
    package init(capacity: Int = ConnectionPool.defaultCapacity, opener: @escaping Opener) throws {
        precondition(capacity >= 1, "a pool needs room for one connection")
        self.capacity = capacity
        self.opener = opener
        idle = [try opener()]
        open = 1
    }

    /// Runs `body` with a connection of its own, waiting for one when all are lent.
    package func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }

    /// How many connections are open now, lent or idle.
    package var openCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return open
    }

    private func borrow() throws -> Connection {
        condition.lock()
        while idle.isEmpty && open >= capacity { condition.wait() }
        if let c = idle.popLast() {
            condition.unlock()
            return c
        }
        open += 1
        condition.unlock()
        do {
            return try opener()
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ connection: Connection) {
        if connection.isInTransaction {
            // The body's own cleanup could not end it (a failed COMMIT): try once more, and
            // never lend a connection that is still inside a transaction.
            try? connection.execute("ROLLBACK")
        }
        let reusable = !connection.isInTransaction
        condition.lock()
        if reusable { idle.append(connection) } else { open -= 1 }
        condition.signal()
        condition.unlock()
    }
}
