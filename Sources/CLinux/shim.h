#ifndef DUALCAM_CLINUX_SHIM_H
#define DUALCAM_CLINUX_SHIM_H
// Linux process and thread controls that Swift cannot call directly (prctl and syscall
// are variadic), glibc's
// allocator settings, and UDP with kernel receive timestamps (udp_stamp.h).
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "udp_stamp.h"

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif

// Turns transparent huge pages off for this process and its children (Linux 3.15+).
// Returns 0, or -1 with errno set.
static inline int dc_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

// Sets glibc's allocator for a process that opens and closes codecs take after take:
// - the mmap threshold fixed at `mmap_threshold` bytes. By default it rises each time a
//   large mmapped block is freed (up to 32 MB), after which a codec's frame and packet
//   buffers come from the heap, whose holes are not given back: resident memory crept up
//   take after take (tools/bench/soak.sh). Fixed, every block this large is mmapped and
//   returned to the system when freed.
// - at most `arenas` malloc arenas (glibc's default is 8 per core): each codec thread
//   started in a new take could otherwise open an arena of its own, which then holds its
//   free memory.
// Returns 1 when both were taken.
static inline int dc_tune_allocator(int mmap_threshold, int arenas) {
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) && mallopt(M_ARENA_MAX, arenas);
}

// For a process that runs one batch job and ends (recompose): blocks up to
// `keep_bytes` come from the heap and stay there when freed, so a picture freed is the
// next picture's memory. With the long-running setting above every 720p picture was a
// fresh mmap the kernel zeroed and faulted in, a fifth of recompose's CPU (perf).
// Returns 1 when both were taken.
static inline int dc_keep_freed_memory(int keep_bytes) {
    return mallopt(M_MMAP_THRESHOLD, keep_bytes) && mallopt(M_TRIM_THRESHOLD, 2 * keep_bytes);
}

// Gives the free pages inside the heap back to the system (glibc keeps them for reuse
// unless they sit at its top). Returns 1 when some memory was released.
static inline int dc_trim_heap(void) {
    return malloc_trim(0);
}

// Lowers the calling thread alone (Linux nice values are per thread) to `nice` (0-19).
// Returns 0, or -1 with errno set.
static inline int dc_lower_this_thread(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

#endif
