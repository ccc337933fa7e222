// The SSE2 kernel's layout (blake3_sse2.c) on eight chunks, one a lane of
// a 256-bit vector, for CPUs with AVX2 (chosen at run time). AVX2's byte
// shuffle makes the rotations by 16 and 8 one instruction each. A vector's
// low half holds chunks 0-3, its high half chunks 4-7, so every 128-bit
// half is transposed as the SSE2 kernel transposes its vectors.
#include "blake3_lanes.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)

#define INLINE static inline __attribute__((always_inline))

INLINE __m256i rotr16(__m256i x) {
    return _mm256_shuffle_epi8(x, _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                                   2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
}
INLINE __m256i rotr8(__m256i x) {
    return _mm256_shuffle_epi8(x, _mm256_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12,
                                                   1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12));
}
INLINE __m256i rotr12(__m256i x) { return _mm256_or_si256(_mm256_srli_epi32(x, 12), _mm256_slli_epi32(x, 20)); }
INLINE __m256i rotr7(__m256i x) { return _mm256_or_si256(_mm256_srli_epi32(x, 7), _mm256_slli_epi32(x, 25)); }

#define VEC __m256i
#define OP(name) _mm256_##name
#define XOR _mm256_xor_si256
#include "blake3_rounds.h"

// Message word j of block `block` of the eight chunks into m[j] (lane k: chunk k).
INLINE void load_block(const uint8_t *const chunks[8], int block, __m256i m[16]) {
    for (int q = 0; q < 4; q++) {
        __m256i *words = m + 4 * q;
        size_t at = BLAKE3_BLOCK_BYTES * block + 16 * q;
        for (int k = 0; k < 4; k++) {
            words[k] = _mm256_loadu2_m128i((const __m128i *)(chunks[k + 4] + at), (const __m128i *)(chunks[k] + at));
        }
        transpose(words);
    }
}

void pd_blake3_chunks8_avx2(const uint8_t *const chunks[8], uint64_t counter, uint32_t cvs[64]) {
    uint32_t low[8], high[8];
    for (int k = 0; k < 8; k++) low[k] = (uint32_t)(counter + k), high[k] = (uint32_t)((counter + k) >> 32);
    __m256i counter_low = _mm256_loadu_si256((const __m256i *)low), counter_high = _mm256_loadu_si256((const __m256i *)high);
    __m256i h[8];
    for (int i = 0; i < 8; i++) h[i] = _mm256_set1_epi32((int)blake3_iv[i]);
    for (int block = 0; block < BLAKE3_BLOCKS_PER_CHUNK; block++) {
        __m256i m[16];
        load_block(chunks, block, m);
        compress(h, m, counter_low, counter_high, blake3_block_flags(block));
    }
    // Lanes back to chunks: h[k] is then words 0-3 of chunk k (low half)
    // and of chunk k + 4 (high half), h[4 + k] their words 4-7.
    transpose(h);
    transpose(h + 4);
    for (int k = 0; k < 4; k++) {
        _mm256_storeu2_m128i((__m128i *)(cvs + 8 * (k + 4)), (__m128i *)(cvs + 8 * k), h[k]);
        _mm256_storeu2_m128i((__m128i *)(cvs + 8 * (k + 4) + 4), (__m128i *)(cvs + 8 * k + 4), h[4 + k]);
    }
}

#pragma clang attribute pop
#endif
