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
/// The borrowed memory must stay as it is until `write(to:)` has run.
package struct SplicedOutput {
    /// The bytes of its own; append freely. Appended bytes go out after every piece borrowed
    /// before them and before every piece borrowed after.
    package var bytes: [UInt8] = []
    /// Each piece: borrowed memory (`base` set), or `bytes[offset..<offset + count]`.
    private var pieces: [(base: UnsafePointer<UInt8>?, offset: Int, count: Int)] = []
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

    /// Everything, in order, in one array (tests; a batch writes with `write(to:)`).
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

    /// Writes everything, in order, to file descriptor `fd`.
    /// - Returns: the `errno` of a failed write, or 0.
    package mutating func write(to fd: Int32) -> Int32 {
        close()
        let most = 1024  // IOV_MAX on Linux and macOS
        return bytes.withUnsafeBufferPointer { own in
            withUnsafeTemporaryAllocation(of: iovec.self, capacity: most) { vectors in
                var next = 0
                while next < pieces.count {
                    var n = 0
                    while n < most, next + n < pieces.count {
                        let p = pieces[next + n]
                        let base = p.base ?? UnsafePointer(own.baseAddress! + p.offset)
                        vectors[n] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: p.count)
                        n += 1
                    }
                    next += n
                    // A pipe may take part of it: go on from where it stopped.
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
                }
                return 0
            }
        }
    }
}
