import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide memory settings that suit image pipelines.
///
/// Every decoded photo, colour step and resize allocates a fresh buffer of 10–15 MB. glibc serves blocks that large
/// with `mmap` and returns them with `munmap` when freed (or trims them off the heap), so every new buffer costs a
/// page fault and a kernel zero-fill per 4 KiB page: on the benchmark photos that is a third of the literal
/// pipeline's time (decode 13.5 → 9 ms, sepia 8.7 → 4.2 ms, resize 18 → 13 ms measured). Raising glibc's mmap and
/// trim thresholds keeps freed buffers in malloc's arenas for the next photo; Pillow does the same with its own
/// block arena. Peak memory stays bounded by the number of photos in flight, not by the number processed.
///
/// A library should not change process-wide allocator settings behind its host's back, so this is opt-in:
/// `flowrun`'s `main` calls it once at start-up, and so does the benchmark.
package enum ImageMemory {
    private static let configured = Mutex(false)

    /// Keeps large freed buffers for reuse instead of returning them to the kernel. Idempotent; a no-op where
    /// glibc is not the allocator.
    package static func keepLargeBuffersForReuse() {
        configured.withLock { done in
            guard !done else { return }
            done = true
            #if canImport(Glibc)
                // <malloc.h> is not part of Swift's Glibc module: look `mallopt` up instead of adding a C target.
                // M_TRIM_THRESHOLD (-1) and M_MMAP_THRESHOLD (-3) are glibc's stable option numbers.
                typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
                guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
                let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
                _ = mallopt(-3, 256 << 20)
                _ = mallopt(-1, 512 << 20)
            #endif
        }
    }
}
