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
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>

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
// AV_FRAME_FLAG_KEY arrived in FFmpeg 6.1; Debian 12 ships 5.1, where AVFrame.key_frame
// carries the same fact. dc_frame_flag_key is 0 there (no such bit), so test keyframes
// with dc_frame_is_key/dc_frame_set_key, which work on both.
#ifdef AV_FRAME_FLAG_KEY
static inline int dc_frame_flag_key(void) { return AV_FRAME_FLAG_KEY; }
static inline int dc_frame_is_key(const AVFrame *f) { return (f->flags & AV_FRAME_FLAG_KEY) != 0; }
static inline void dc_frame_set_key(AVFrame *f, int key) {
    if (key) f->flags |= AV_FRAME_FLAG_KEY; else f->flags &= ~AV_FRAME_FLAG_KEY;
}
#else
static inline int dc_frame_flag_key(void) { return 0; }
static inline int dc_frame_is_key(const AVFrame *f) { return f->key_frame != 0; }
static inline void dc_frame_set_key(AVFrame *f, int key) { f->key_frame = key ? 1 : 0; }
#endif

// Rounding-mode enums are OR-able flags in C; Swift cannot OR imported enum values.
static inline int64_t dc_rescale_near_inf(int64_t a, AVRational from, AVRational to) {
    return av_rescale_q_rnd(a, from, to, (enum AVRounding)(AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX));
}
static inline int dc_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int dc_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int dc_codec_flag_qscale(void) { return AV_CODEC_FLAG_QSCALE; }
static inline int dc_ff_qp2lambda(void) { return FF_QP2LAMBDA; }
static inline int dc_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int dc_averror_muxer_not_found(void) { return AVERROR_MUXER_NOT_FOUND; }
static inline int64_t dc_av_time_base(void) { return AV_TIME_BASE; }

// FFmpeg's log lines, formatted here (the callback takes a va_list, which Swift cannot
// use) and handed to dc_media_log_line, which DualCamMedia defines in Swift (@_cdecl).
// The level filter is repeated here because a custom callback replaces FFmpeg's own.
extern void dc_media_log_line(int level, const char *line);
static inline void dc_media_log_callback(void *context, int level, const char *format, va_list arguments) {
    if (level > av_log_get_level()) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(context, level, format, arguments, line, (int)sizeof line, &print_prefix);
    dc_media_log_line(level, line);
}
static inline void dc_route_av_log(void) { av_log_set_callback(dc_media_log_callback); }
static inline void dc_unroute_av_log(void) { av_log_set_callback(av_log_default_callback); }

// AVChannelLayout initialisers are macros (AV_CHANNEL_LAYOUT_MONO, ...).
static inline void dc_default_channel_layout(AVChannelLayout *layout, int channels) {
    av_channel_layout_default(layout, channels);
}

#endif
