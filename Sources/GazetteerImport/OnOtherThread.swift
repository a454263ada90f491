import Foundation

/// A value worked out on a thread of its own while the caller goes on with other work (the
/// import's connection builds indexes meanwhile); `wait` returns it once it is there.
final class OnOtherThread<Value: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var value: Value?

    /// Runs `work` on `input`, which is handed over: the new thread holds the only reference
    /// to it, so an array can be sorted in place rather than copied first.
    init<Input>(handing input: consuming Input, _ work: @escaping @Sendable (inout Input) -> Value) {
        let handoff = Handoff(input)
        Thread.detachNewThread { [self] in
            var taken = handoff.take()
            let result = work(&taken)
            condition.lock()
            value = result
            condition.broadcast()
            condition.unlock()
        }
    }

    func wait() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }

    /// Holds the input until the new thread takes it (the only access after `init`).
    private final class Handoff<Input>: @unchecked Sendable {
        private var input: Input?
        init(_ input: consuming Input) { self.input = input }
        func take() -> Input { input.take()! }
    }
}
