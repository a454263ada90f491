import Dispatch
import Foundation
import Synchronization
import Testing
@testable import GazetteerSupport

/// `WorkPieces.run` calls each piece once and returns only when all have returned, alone or
/// inside another `concurrentPerform` (as a batch's preparation calls it).
@Suite(.tags(.fast)) struct WorkPiecesTests {
    final class Tally: Sendable {
        let calls: Mutex<[Int]>
        let running = Atomic<Int>(0)
        init(_ n: Int) { calls = Mutex([Int](repeating: 0, count: n)) }
        var counts: [Int] { calls.withLock { $0 } }
    }

    @Test(arguments: [0, 1, 2, 7, 64])
    func everyPieceRunsOnceBeforeItReturns(pieces: Int) {
        let tally = Tally(pieces)
        WorkPieces.run(pieces) { piece in
            tally.running.add(1, ordering: .relaxed)
            // Long enough that workers take pieces too, and a return before they finish shows.
            usleep(2_000)
            tally.calls.withLock { $0[piece] += 1 }
            tally.running.subtract(1, ordering: .relaxed)
        }
        #expect(tally.counts == Array(repeating: 1, count: pieces))
        #expect(tally.running.load(ordering: .relaxed) == 0)
    }

    @Test func insideConcurrentPerform() {
        let tallies = (0..<3).map { _ in Tally(8) }
        DispatchQueue.concurrentPerform(iterations: 3) { task in
            WorkPieces.run(8) { piece in tallies[task].calls.withLock { $0[piece] += 1 } }
        }
        for tally in tallies { #expect(tally.counts == Array(repeating: 1, count: 8)) }
    }
}
