// The one place prores-decode touches FFmpeg's headers. Macros that Swift
// cannot import are re-exported here as constants or inline functions.
#ifndef PRORES_DECODE_CFFMPEG_SHIM_H
#define PRORES_DECODE_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/md5.h>
#include <libavutil/pixdesc.h>

static const int64_t PD_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
static const int PD_AVERROR_EOF = AVERROR_EOF;
static const int PD_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int PD_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
static const int PD_AVERROR_ENOMEM = AVERROR(ENOMEM);
static const int PD_AV_TIME_BASE = AV_TIME_BASE;

static inline int pd_averror(int posix_errno) { return AVERROR(posix_errno); }

/// AVERROR codes that wrap a POSIX errno are negated errno values.
static inline int pd_averror_to_errno(int averror) {
    return (averror < 0 && averror > -4096) ? -averror : 0;
}

static inline uint32_t pd_mktag(char a, char b, char c, char d) {
    return MKTAG(a, b, c, d);
}

/// Declares our get_buffer2 thread-safe. FFmpeg 5.x otherwise marshals
/// every allocation from its frame threads back to the submitting thread.
static inline void pd_mark_callbacks_thread_safe(AVCodecContext *context) {
#if FF_API_THREAD_SAFE_CALLBACKS
    #pragma clang diagnostic push
    #pragma clang diagnostic ignored "-Wdeprecated-declarations"
    context->thread_safe_callbacks = 1;
    #pragma clang diagnostic pop
#else
    (void)context;
#endif
}

/// A stream's side data of one type, or NULL. FFmpeg 6.1 moved stream side
/// data into the codec parameters and deprecated av_stream_get_side_data.
static inline const uint8_t *pd_stream_side_data(const AVStream *stream, enum AVPacketSideDataType type) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data, type);
    return sd ? sd->data : NULL;
#else
    return av_stream_get_side_data(stream, type, NULL);
#endif
}

#endif
