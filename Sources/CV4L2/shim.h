#ifndef DUALCAM_CV4L2_SHIM_H
#define DUALCAM_CV4L2_SHIM_H
// The VIDIOC_* request codes are _IOWR(...) macros and v4l2_ioctl is variadic;
// Swift imports neither, so they are exposed here as inline functions.
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

#include <fcntl.h>

// v4l2_open is variadic (it takes open()'s mode), so Swift needs a fixed signature.
static inline int dc_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int dc_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }
static inline unsigned long dc_vidioc_querycap(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long dc_vidioc_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long dc_vidioc_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long dc_vidioc_enum_frameintervals(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
static inline unsigned long dc_vidioc_g_fmt(void) { return VIDIOC_G_FMT; }
static inline unsigned long dc_vidioc_s_fmt(void) { return VIDIOC_S_FMT; }
static inline unsigned long dc_vidioc_g_parm(void) { return VIDIOC_G_PARM; }
static inline unsigned long dc_vidioc_s_parm(void) { return VIDIOC_S_PARM; }
static inline unsigned long dc_vidioc_reqbufs(void) { return VIDIOC_REQBUFS; }
static inline unsigned long dc_vidioc_querybuf(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long dc_vidioc_qbuf(void) { return VIDIOC_QBUF; }
static inline unsigned long dc_vidioc_dqbuf(void) { return VIDIOC_DQBUF; }
static inline unsigned long dc_vidioc_streamon(void) { return VIDIOC_STREAMON; }
static inline unsigned long dc_vidioc_streamoff(void) { return VIDIOC_STREAMOFF; }
static inline void *dc_map_failed(void) { return MAP_FAILED; }
static inline uint32_t dc_fourcc(char a, char b, char c, char d) { return v4l2_fourcc(a, b, c, d); }

#endif
