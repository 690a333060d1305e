#ifndef DUALCAM_CFFMPEG_SHIM_H
#define DUALCAM_CFFMPEG_SHIM_H
// FFmpeg's error codes, sentinels and logging are macros or variadic functions,
// which Swift cannot import; these inline wrappers expose them as plain functions.
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libswscale/swscale.h>

static inline int dc_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int dc_averror_eof(void) { return AVERROR_EOF; }
static inline int dc_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t dc_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational dc_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline void dc_av_log(int level, const char *message) { av_log(NULL, level, "%s", message); }
static inline void dc_av_strerror(int code, char *buffer, size_t size) { av_strerror(code, buffer, size); }
static inline int dc_pkt_flag_key(void) { return AV_PKT_FLAG_KEY; }
static inline int dc_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }
static inline int dc_fmt_globalheader(void) { return AVFMT_GLOBALHEADER; }
static inline int dc_fmt_nofile(void) { return AVFMT_NOFILE; }
static inline int dc_frame_flag_key(void) { return AV_FRAME_FLAG_KEY; }

#endif
