import NIOCore
import NIOPosix

/// Runs blocking work (a synchronous SQLite query) on a thread pool, off the event loops and
/// off Swift's cooperative pool, and waits for it at most `limit`.
///
/// Why a thread pool: `Repository` is synchronous. A query takes microseconds to milliseconds,
/// which would be tolerable on the cooperative pool, but a slow one (a broad search, a cold page
/// cache on a big file) would hold one of only a few cooperative threads, and a time limit could
/// not free the client. On `NIOThreadPool` the waiting task is suspended, never blocked.
///
/// Returns nil when the limit passed first. The work is not interrupted (SQLite cannot be, from
/// here) and runs to its end on the pool, but nobody waits for it; work still queued when its
/// time is up is not started at all, so an overloaded server sheds load instead of piling it up.
func runBlocking<T: Sendable>(
    within limit: Duration, on pool: NIOThreadPool = .singleton,
    _ work: @escaping @Sendable () -> T
) async -> T? {
    let loop = MultiThreadedEventLoopGroup.singleton.any()
    let promise = loop.makePromise(of: T?.self)
    let (seconds, attoseconds) = limit.components
    let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    // Whichever comes first completes the promise; NIO ignores the second completion.
    let timer = loop.scheduleTask(deadline: deadline) { promise.succeed(nil) }
    pool.submit { state in
        guard state == .active, NIODeadline.now() < deadline else {
            promise.succeed(nil)
            return
        }
        promise.succeed(work())
    }
    let result = try? await promise.futureResult.get()
    timer.cancel()
    return result ?? nil
}
