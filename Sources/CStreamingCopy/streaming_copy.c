// Our own C: Swift has no non-temporal store. Why it is wanted: the file
// reader copies every sample out of the page cache into memory the GPU's
// DMA reads; a plain copy reads each destination line from memory before
// overwriting it and leaves it in the cache, a third more memory traffic
// on a path that is bound by memory bandwidth.
#include "streaming_copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

void pd_copy_streaming(void *to, const void *from, size_t bytes) {
    unsigned char *d = to;
    const unsigned char *s = from;
    // Streaming stores need 16-byte aligned destinations: copy the head plainly.
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > bytes) head = bytes;
    memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, bytes);
    _mm_sfence();
}
#else
void pd_copy_streaming(void *to, const void *from, size_t bytes) { memcpy(to, from, bytes); }
#endif
