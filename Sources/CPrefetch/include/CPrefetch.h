#ifndef GAZETTEER_CPREFETCH_H
#define GAZETTEER_CPREFETCH_H

/// Asks the processor to bring the cache line holding `address` in for a write, and goes on
/// without waiting for it: a load would hold up everything after it until the line came.
/// Swift has no spelling of the instruction; inlined into the Swift caller by the importer.
static inline void gazetteer_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
