import Foundation

/// A value behind a pthread read-write lock: any number of readers at once, one writer
/// alone. The region cache is read several times per reverse geocode by every batch thread
/// and written only while it fills; behind a plain mutex the readers queued for each other
/// (strace: one futex call per five points of a two-thread batch).
package final class ReadMostly<Value> {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    /// Out of line, and lent to readers by pointer: handed to `body` as a value, it was copied
    /// at every read by this generic code (which the callers' module does not specialize),
    /// retaining and releasing everything it holds (the region cache: some twenty tables).
    private let value: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with shared access to the value, which it must not keep the pointer to or
    /// write through: other readers may run at the same time.
    package func read<T>(_ body: (UnsafePointer<Value>) throws -> T) rethrows -> T {
        Contended.acquire({ pthread_rwlock_tryrdlock(lock) == 0 }, orWait: { pthread_rwlock_rdlock(lock) })
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Runs `body` with exclusive access.
    package func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        Contended.acquire({ pthread_rwlock_trywrlock(lock) == 0 }, orWait: { pthread_rwlock_wrlock(lock) })
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value.pointee)
    }
}

/// As for `Locked`: shared between threads only when the value may be.
extension ReadMostly: @unchecked Sendable where Value: Sendable {}
