#ifndef PRORES_DECODE_STREAMING_COPY_H
#define PRORES_DECODE_STREAMING_COPY_H
#include <stddef.h>

/// Copies `bytes` from `from` to `to` with non-temporal (streaming) stores
/// where the CPU has them (x86-64), so the destination's cache lines are
/// neither read for ownership nor kept in the cache; a plain memcpy
/// elsewhere. Ends with a store fence: the bytes are visible to other
/// threads (and devices) in order once it returns.
void pd_copy_streaming(void *to, const void *from, size_t bytes);

#endif
