// Chooses the widest kernel this CPU runs (AVX2 where it has it), chunk
// group by chunk group.
#include "blake3_chunks.h"
#include "blake3_lanes.h"

#if defined(__x86_64__)
void pd_blake3_hash_chunks(const uint8_t *const *chunks, size_t count, uint64_t counter, uint32_t *cvs) {
    size_t i = 0;
    if (__builtin_cpu_supports("avx2")) {
        for (; i + 8 <= count; i += 8) pd_blake3_chunks8_avx2(chunks + i, counter + i, cvs + 8 * i);
    }
    for (; i + 4 <= count; i += 4) pd_blake3_chunks4_sse2(chunks + i, counter + i, cvs + 8 * i);
}
#endif
