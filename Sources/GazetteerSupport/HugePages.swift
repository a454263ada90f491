#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel to back a large table with 2 MiB pages where it can (transparent huge
/// pages, in their `madvise` mode the common default). A batch reads its cell tables (megabytes)
/// at random, one entry per point: with 4 KiB pages nearly every read also missed the TLB, and
/// filling a table took a page fault per 4 KiB. Call it on memory not yet touched; it only
/// advises, so where the kernel says no (or on other systems) nothing changes but the speed.
package enum HugePages {
    private static let size = 2 << 20

    package static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard let base = buffer.baseAddress, buffer.count >= size else { return }
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(size - 1)
        guard end > start, let from = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(from, end - start, 14)  // MADV_HUGEPAGE
        #endif
    }

    /// `count` zeros of a plain integer type, on huge pages where the kernel gives them.
    package static func zeroed<T: FixedWidthInteger & BitwiseCopyable>(_ type: T.Type, count: Int) -> [T] {
        array(count) { zero(UnsafeMutableRawBufferPointer($0)) }
    }

    /// An array of `count` elements, all of which `fill` initializes, on huge pages where the
    /// kernel gives them.
    package static func array<T>(_ count: Int, _ fill: (UnsafeMutableBufferPointer<T>) -> Void) -> [T] {
        [T](unsafeUninitializedCapacity: count) { buffer, done in
            advise(UnsafeMutableRawBufferPointer(buffer))
            fill(UnsafeMutableBufferPointer(rebasing: buffer[..<count]))
            done = count
        }
    }

    /// `byteCount` uninitialized bytes, on huge pages where the kernel gives them; the caller
    /// deallocates them. Aligned to a huge page when that large: an advice covers only the
    /// whole huge pages inside, and a table of 4 MiB at a page boundary held one.
    package static func allocate(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: byteCount >= size ? size : 16)
        advise(bytes)
        return bytes
    }

    /// `count` zeros of a plain integer type, on huge pages where the kernel gives them; the
    /// caller deallocates them.
    package static func zeroedBuffer<T: FixedWidthInteger & BitwiseCopyable>(_ type: T.Type, count: Int) -> UnsafeMutableBufferPointer<T> {
        let bytes = allocate(byteCount: count * MemoryLayout<T>.stride)
        zero(bytes)
        return bytes.bindMemory(to: T.self)
    }

    /// Zeros `bytes` as bytes (a `memset`): `initialize(repeating: 0)` on a generic buffer, not
    /// specialized across modules, stored each element through its type's value witness (a call
    /// per element, some 13 ms of a batch's start on a million POIs).
    private static func zero(_ bytes: UnsafeMutableRawBufferPointer) {
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }
}
