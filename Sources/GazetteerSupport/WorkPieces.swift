import Dispatch
import Foundation
import Synchronization

/// Work split into pieces, run on the calling thread and on whichever worker threads come free.
///
/// Not `concurrentPerform`: called inside another `concurrentPerform` (as a batch's preparation
/// calls what it readies), libdispatch runs the inner one on the caller alone. Here the caller
/// takes pieces until none is left, so the work never waits for a thread to start, and a worker
/// that frees up (another task of the outer one done) takes the pieces still waiting.
package enum WorkPieces {
    /// Calls `body(piece)` once for each piece in `0..<count`, and returns when all have returned.
    /// `body` may run on several threads at once; a worker that starts after the last piece was
    /// taken never calls it.
    package static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        let shared = Shared(count: count, body: body)
        for _ in 1..<Swift.min(count, ProcessInfo.processInfo.activeProcessorCount) {
            DispatchQueue.global().async { shared.takePieces() }
        }
        shared.takePieces()
        shared.allDone.wait()
    }

    private final class Shared: Sendable {
        let count: Int
        let body: @Sendable (Int) -> Void
        let taken = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        /// Signalled once, by whichever thread finishes the last piece.
        let allDone = DispatchSemaphore(value: 0)

        init(count: Int, body: @escaping @Sendable (Int) -> Void) {
            (self.count, self.body) = (count, body)
        }

        func takePieces() {
            while true {
                let piece = taken.add(1, ordering: .relaxed).oldValue
                guard piece < count else { return }
                body(piece)
                if finished.add(1, ordering: .acquiringAndReleasing).newValue == count { allDone.signal() }
            }
        }
    }
}
