import CLinux

/// Transparent huge pages, turned off for the whole agent process.
///
/// libx264 asks for huge pages (madvise MADV_HUGEPAGE) on each of its large buffers, and
/// the kernel then backs them in whole 2 MB pages, much of which x264 never touches: at
/// 1080p that rounding is 7.2 MB of resident memory (smaps at the agent's peak, and the
/// same from libx264 driven alone), for byte-identical output and no more CPU time.
/// The setting belongs to this process (its threads and any children it starts) and
/// changes nothing else on the machine.
enum HugePages {
    /// Call before the first encoder opens: pages already faulted in huge stay huge.
    /// Best effort: a kernel without the option only costs the memory above.
    static func disable() {
        _ = dc_disable_transparent_huge_pages()
    }
}

/// Large blocks always from mmap and few arenas, so that memory goes back to the system
/// after each take (see dc_tune_allocator): over 90 takes on one rig the agents' resident
/// memory grew 1.9 MB with the fixed mmap threshold, 3-5 MB without, and sat 8 MB lower
/// (tools/bench/soak.sh 100).
enum Allocator {
    static func tune() {
        _ = dc_tune_allocator(128 * 1024, 4)
    }
}
