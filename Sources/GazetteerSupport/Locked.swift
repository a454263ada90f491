import Foundation

/// A value behind a pthread mutex (NSLock). Used instead of `Synchronization.Mutex`, whose
/// Linux futex ThreadSanitizer cannot see: with it, every locked access was reported as a race.
package final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lockBriefly()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Safe to share between threads only when the value itself may cross them: the lock orders
/// access, but a non-Sendable value (a class with shared state) could still escape it.
extension Locked: @unchecked Sendable where Value: Sendable {}
