#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output made of bytes of its own and of pieces of memory kept elsewhere (`RegeoLines`' lines),
/// written with `writev` in order: a batch's line is mostly the same few hundred bytes as every
/// other point's of its address, so it is named by reference instead of copied, and only the
/// point's location is written here.
///
/// The borrowed memory must stay as it is until `write(to:)` (or `write(_:spans:to:)`) has run.
package struct SplicedOutput {
    /// The bytes of its own; append freely. Appended bytes go out after every piece borrowed
    /// before them and before every piece borrowed after.
    package var bytes: [UInt8] = []
    /// Each piece: borrowed memory (`base` set), or `bytes[offset..<offset + count]`.
    private var pieces: [Piece] = []
    private typealias Piece = (base: UnsafePointer<UInt8>?, offset: Int, count: Int)
    /// Where the bytes not yet in a piece start.
    private var pending = 0

    package init() {}

    /// Keeps the capacity, drops the contents.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
        pending = 0
    }

    package mutating func reserve(bytes b: Int, pieces p: Int) {
        bytes.reserveCapacity(b)
        pieces.reserveCapacity(p)
    }

    /// Adds `count` bytes at `base`, after everything added so far.
    package mutating func borrow(_ base: UnsafePointer<UInt8>, count: Int) {
        close()
        pieces.append((base, 0, count))
    }

    /// Makes the bytes appended since the last piece a piece of their own.
    private mutating func close() {
        if bytes.count > pending {
            pieces.append((nil, pending, bytes.count - pending))
            pending = bytes.count
        }
    }

    /// Everything, in order, in one array (tests; a batch writes with `write(_:spans:to:)`).
    package var joined: [UInt8] {
        var all: [UInt8] = []
        bytes.withUnsafeBufferPointer { own in
            for p in pieces {
                all.append(contentsOf: UnsafeBufferPointer(start: p.base ?? own.baseAddress! + p.offset, count: p.count))
            }
            all.append(contentsOf: own[pending...])
        }
        return all
    }

    /// Makes the bytes appended so far a piece, and says how many pieces there are: the pieces
    /// between two marks are what was added between them (a `Span`).
    package mutating func mark() -> Int {
        close()
        return pieces.count
    }

    /// What was added between two `mark()`s (`span(_:_:output:)`), as `write(_:spans:to:)`
    /// reads it: up to three pieces held in the span itself, so that spans read in order are
    /// read one after the other (where looking each up in its output missed the cache); more
    /// are named by where they are in the output.
    package struct Span {
        fileprivate var output: Int32 = 0
        /// How many of `pieces` are held, or -1: pieces `first..<end` of the output.
        fileprivate var held: Int32 = 0
        fileprivate var first: Int32 = 0, end: Int32 = 0
        fileprivate var pieces: (HeldPiece, HeldPiece, HeldPiece) = (HeldPiece(), HeldPiece(), HeldPiece())

        package init() {}
    }

    fileprivate struct HeldPiece {
        var base: UnsafePointer<UInt8>? = nil
        var offset: Int32 = 0, count: Int32 = 0
    }

    /// Pieces `first..<end` (between two `mark()`s) as output `output` of a `write(_:spans:to:)`.
    package func span(_ first: Int, _ end: Int, output: Int) -> Span {
        var span = Span()
        span.output = Int32(output)
        var fits = end - first <= 3
        for i in first..<end where fits { fits = pieces[i].offset <= Int32.max && pieces[i].count <= Int32.max }
        guard fits else {
            (span.held, span.first, span.end) = (-1, Int32(first), Int32(end))
            return span
        }
        span.held = Int32(end - first)
        func held(_ i: Int) -> HeldPiece {
            i < end ? HeldPiece(base: pieces[i].base, offset: Int32(pieces[i].offset), count: Int32(pieces[i].count)) : HeldPiece()
        }
        span.pieces = (held(first), held(first + 1), held(first + 2))
        return span
    }

    /// Writes everything, in order, to file descriptor `fd`.
    /// - Returns: the `errno` of a failed write, or 0.
    package mutating func write(to fd: Int32) -> Int32 {
        close()
        var whole = Span()
        (whole.held, whole.first, whole.end) = (-1, 0, Int32(pieces.count))
        let all = [whole]
        return withUnsafeMutablePointer(to: &self) { me in
            all.withUnsafeBufferPointer { Self.write(UnsafeMutableBufferPointer(start: me, count: 1), spans: $0, to: fd) }
        }
    }

    /// Writes the pieces of `outputs` that `spans` name, in the spans' order, to file descriptor
    /// `fd`: a batch answers its points in another order than its lines'. Each output's pieces
    /// must be closed (`mark()` after the last bytes appended).
    /// - Returns: the `errno` of a failed write, or 0.
    package static func write(_ outputs: UnsafeMutableBufferPointer<SplicedOutput>, spans: UnsafeBufferPointer<Span>, to fd: Int32) -> Int32 {
        var held: [(own: UnsafePointer<UInt8>?, pieces: UnsafeBufferPointer<Piece>)] = []
        held.reserveCapacity(outputs.count)
        // Every output's bytes and pieces held still (each in the closures of the one before)
        // while they are written.
        func pinned(_ k: Int) -> Int32 {
            guard k == outputs.count else {
                return outputs[k].bytes.withUnsafeBufferPointer { bytes in
                    outputs[k].pieces.withUnsafeBufferPointer { pieces in
                        held.append((bytes.baseAddress, pieces))
                        return pinned(k + 1)
                    }
                }
            }
            return withUnsafeTemporaryAllocation(of: iovec.self, capacity: 1024) { vectors in  // IOV_MAX on Linux and macOS
                var n = 0
                func add(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
                    vectors[n] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: count)
                    n += 1
                    guard n == vectors.count else { return 0 }
                    n = 0
                    return writeAll(fd, vectors, vectors.count)
                }
                for span in spans {
                    let (own, pieces) = held[Int(span.output)]
                    if span.held >= 0 {
                        func addHeld(_ p: HeldPiece) -> Int32 { add(p.base ?? own! + Int(p.offset), Int(p.count)) }
                        if span.held > 0, case let failed = addHeld(span.pieces.0), failed != 0 { return failed }
                        if span.held > 1, case let failed = addHeld(span.pieces.1), failed != 0 { return failed }
                        if span.held > 2, case let failed = addHeld(span.pieces.2), failed != 0 { return failed }
                        continue
                    }
                    for i in Int(span.first)..<Int(span.end) {
                        let p = pieces[i]
                        if case let failed = add(p.base ?? own! + p.offset, p.count), failed != 0 { return failed }
                    }
                }
                return writeAll(fd, vectors, n)
            }
        }
        return pinned(0)
    }

    /// Writes the first `n` of `vectors` whole: a pipe may take part of them, so it goes on
    /// from where the last write stopped.
    private static func writeAll(_ fd: Int32, _ vectors: UnsafeMutableBufferPointer<iovec>, _ n: Int) -> Int32 {
        var first = 0
        while first < n {
            let written = writev(fd, vectors.baseAddress! + first, Int32(n - first))
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            var left = written
            while first < n, left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base = vectors[first].iov_base! + left
                vectors[first].iov_len -= left
            }
        }
        return 0
    }
}
