#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, set for a batch that fills and drops buffers of megabytes on every core.
///
/// By default glibc makes each arena's heap writable a little at a time: some 5,800 `mprotect`
/// calls in a million-point batch, each holding the process's memory map lock, which every
/// page fault on the other cores waits for. With 64 MiB of padding (`M_TOP_PAD`) an arena grows
/// in a dozen steps and large blocks come from its top rather than from fresh mappings: page
/// faults fell from about 49,000 to 44,000 and the whole batch by about 5 % (BENCHMARKS.md,
/// "Fifteenth pass"). As any `mallopt` does, it also fixes glibc's mmap threshold at 128 KiB.
/// The cost is memory: what one thread's arena holds another's cannot reuse, and the batch's
/// peak rises by about 50 MiB (505 to 555 MiB on the 1M-POI database). The same as
/// `GLIBC_TUNABLES=glibc.malloc.top_pad=67108864`, which a process cannot set for itself once
/// started. Elsewhere (other C libraries, `dlsym` failing) nothing changes.
package enum MallocTuning {
    package static func forBatch() {
        #if canImport(Glibc)
        // `mallopt` is in malloc.h, which the Glibc module does not bring in.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let topPad: Int32 = -2  // M_TOP_PAD
        _ = mallopt(topPad, 64 << 20)
        #endif
    }
}
