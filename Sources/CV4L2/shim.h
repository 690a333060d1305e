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
#include <string.h>

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
static inline unsigned long dc_vidioc_query_ext_ctrl(void) { return VIDIOC_QUERY_EXT_CTRL; }
static inline unsigned long dc_vidioc_queryctrl(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long dc_vidioc_querymenu(void) { return VIDIOC_QUERYMENU; }

// One control's current value through the extended-control ioctls, whose argument holds
// a pointer to an array and a union Swift would have to reach through; `wide` picks the
// 64-bit member (V4L2_CTRL_TYPE_INTEGER64). The error is left in errno.
static inline int dc_v4l2_get_control(int fd, uint32_t id, int wide, int64_t *value) {
    struct v4l2_ext_control control;
    struct v4l2_ext_controls controls;
    memset(&control, 0, sizeof control);
    memset(&controls, 0, sizeof controls);
    control.id = id;
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    int result = v4l2_ioctl(fd, VIDIOC_G_EXT_CTRLS, &controls);
    if (result == 0) *value = wide ? control.value64 : (int64_t)control.value;
    return result;
}

static inline int dc_v4l2_set_control(int fd, uint32_t id, int wide, int64_t value) {
    struct v4l2_ext_control control;
    struct v4l2_ext_controls controls;
    memset(&control, 0, sizeof control);
    memset(&controls, 0, sizeof controls);
    control.id = id;
    if (wide) control.value64 = value; else control.value = (int32_t)value;
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    return v4l2_ioctl(fd, VIDIOC_S_EXT_CTRLS, &controls);
}
// One menu entry (a packed struct with a union); `name` gets 32 bytes, NUL-terminated.
static inline int dc_v4l2_query_menu(int fd, uint32_t id, uint32_t index, char *name, int64_t *value) {
    struct v4l2_querymenu entry;
    memset(&entry, 0, sizeof entry);
    entry.id = id;
    entry.index = index;
    int result = v4l2_ioctl(fd, VIDIOC_QUERYMENU, &entry);
    if (result == 0) {
        memcpy(name, entry.name, sizeof entry.name);
        name[sizeof entry.name - 1] = 0;
        *value = entry.value;
    }
    return result;
}

static inline void *dc_map_failed(void) { return MAP_FAILED; }
static inline uint32_t dc_fourcc(char a, char b, char c, char d) { return v4l2_fourcc(a, b, c, d); }

#endif
