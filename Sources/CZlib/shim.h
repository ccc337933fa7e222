// zlib behind one thin shim, imported by ProResFFmpeg alone: the deflate
// streams and checksums of the PNGs it writes. deflateInit2 is a macro
// Swift cannot import: the inline function below stands in for it.
#ifndef PRORES_DECODE_CZLIB_SHIM_H
#define PRORES_DECODE_CZLIB_SHIM_H

#include <zlib.h>

/// A raw deflate stream (no zlib header or trailer: the caller frames the
/// pieces), a 32 KiB window, zlib's default memory level and strategy.
static inline int pd_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

#endif
