#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, set for a batch that fills and drops buffers of megabytes on every core.
///
/// By default glibc grows each arena's heap a little at a time and gives freed memory at its top
/// back to the kernel. Each growth is a system call that holds the process's memory map
/// lock, which every page fault on every other thread waits for, and memory given back is
/// faulted in again by the next block. Growing by 64 MiB at once and never trimming took
/// a million-point batch from 59,000 page faults to 49,000 and its whole time by about 5 %
/// (BENCHMARKS.md, fifteenth pass); the memory is only reserved until touched. The same as
/// `GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864`,
/// which a process cannot set for itself once started. Elsewhere nothing changes.
package enum MallocTuning {
    package static func forBatch() {
        #if canImport(Glibc)
        // `mallopt` is in malloc.h, which the Glibc module does not bring in.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1, topPad: Int32 = -2  // M_TRIM_THRESHOLD, M_TOP_PAD
        _ = mallopt(trimThreshold, 1 << 30)
        _ = mallopt(topPad, 64 << 20)
        #endif
    }
}
