import Foundation

/// Taking a lock another thread holds only for a moment: tried again a few dozen times before
/// sleeping on it. A large batch's threads meet on the shared caches' locks thousands of times,
/// each held for a dictionary look-up or insert (well under a microsecond), where a sleep and
/// its wake-up cost a context switch and tens of microseconds.
enum Contended {
    static let tries = 64

    /// Returns once `attempt` succeeds, or after `wait` (which blocks until it has the lock).
    @inline(__always)
    static func acquire(_ attempt: () -> Bool, orWait wait: () -> Void) {
        for _ in 0..<tries where attempt() { return }
        wait()
    }
}

extension NSLock {
    /// `lock()`, tried a few dozen times before sleeping (see `Contended`).
    @inline(__always)
    package func lockBriefly() {
        Contended.acquire({ self.try() }, orWait: { self.lock() })
    }

    /// `withLock`, the lock taken as `lockBriefly` takes it.
    @inline(__always)
    package func withBriefLock<T>(_ body: () throws -> T) rethrows -> T {
        lockBriefly()
        defer { unlock() }
        return try body()
    }
}
