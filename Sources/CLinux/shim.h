#ifndef DUALCAM_CLINUX_SHIM_H
#define DUALCAM_CLINUX_SHIM_H
// Linux process controls that Swift cannot call directly: prctl is variadic.
#include <sys/prctl.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif

// Turns transparent huge pages off for this process and its children (Linux 3.15+).
// Returns 0, or -1 with errno set.
static inline int dc_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

#endif
