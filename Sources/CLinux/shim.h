#ifndef DUALCAM_CLINUX_SHIM_H
#define DUALCAM_CLINUX_SHIM_H
// Linux process controls that Swift cannot call directly (prctl is variadic), and
// glibc's allocator settings.
#include <malloc.h>
#include <sys/prctl.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif

// Turns transparent huge pages off for this process and its children (Linux 3.15+).
// Returns 0, or -1 with errno set.
static inline int dc_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

// Fixes glibc's mmap threshold at `bytes`. By default the threshold rises each time a
// large mmapped block is freed (up to 32 MB), after which a codec's frame and packet
// buffers come from the heap, whose holes are not given back: resident memory then crept
// up take after take (tools/bench/soak.sh). Fixed, every block this large is mmapped and
// returned to the system when freed. Returns 1 on success.
static inline int dc_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#endif
