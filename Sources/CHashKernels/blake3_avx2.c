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

INLINE __m256i add3(__m256i a, __m256i b, __m256i c) { return _mm256_add_epi32(_mm256_add_epi32(a, b), c); }

INLINE void g(__m256i v[16], int a, int b, int c, int d, __m256i x, __m256i y) {
    v[a] = add3(v[a], v[b], x);
    v[d] = rotr16(_mm256_xor_si256(v[d], v[a]));
    v[c] = _mm256_add_epi32(v[c], v[d]);
    v[b] = rotr12(_mm256_xor_si256(v[b], v[c]));
    v[a] = add3(v[a], v[b], y);
    v[d] = rotr8(_mm256_xor_si256(v[d], v[a]));
    v[c] = _mm256_add_epi32(v[c], v[d]);
    v[b] = rotr7(_mm256_xor_si256(v[b], v[c]));
}

INLINE void round_lanes(__m256i v[16], const __m256i m[16], int r) {
    const uint8_t *s = blake3_schedule[r];
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

// In each 128-bit half: rows in, columns out (r[k] word j becomes r[j] word k).
INLINE void transpose_halves(__m256i r[4]) {
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm256_unpacklo_epi64(t0, t2);
    r[1] = _mm256_unpackhi_epi64(t0, t2);
    r[2] = _mm256_unpacklo_epi64(t1, t3);
    r[3] = _mm256_unpackhi_epi64(t1, t3);
}

// Message word j of block `block` of the eight chunks into m[j] (lane k: chunk k).
INLINE void load_block(const uint8_t *const chunks[8], int block, __m256i m[16]) {
    for (int q = 0; q < 4; q++) {
        __m256i *words = m + 4 * q;
        size_t at = BLAKE3_BLOCK_BYTES * block + 16 * q;
        for (int k = 0; k < 4; k++) {
            words[k] = _mm256_loadu2_m128i((const __m128i *)(chunks[k + 4] + at), (const __m128i *)(chunks[k] + at));
        }
        transpose_halves(words);
    }
}

INLINE void compress(__m256i h[8], const __m256i m[16], __m256i counter_low, __m256i counter_high, uint32_t flags) {
    __m256i v[16] = {
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
        _mm256_set1_epi32((int)blake3_iv[0]), _mm256_set1_epi32((int)blake3_iv[1]),
        _mm256_set1_epi32((int)blake3_iv[2]), _mm256_set1_epi32((int)blake3_iv[3]),
        counter_low, counter_high, _mm256_set1_epi32(BLAKE3_BLOCK_BYTES), _mm256_set1_epi32((int)flags),
    };
    // Unrolled, each message word read is a fixed slot, not a schedule
    // look-up: 4% faster.
#pragma clang loop unroll(full)
    for (int r = 0; r < 7; r++) round_lanes(v, m, r);
    for (int i = 0; i < 8; i++) h[i] = _mm256_xor_si256(v[i], v[i + 8]);
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
    transpose_halves(h);
    transpose_halves(h + 4);
    for (int k = 0; k < 4; k++) {
        _mm256_storeu2_m128i((__m128i *)(cvs + 8 * (k + 4)), (__m128i *)(cvs + 8 * k), h[k]);
        _mm256_storeu2_m128i((__m128i *)(cvs + 8 * (k + 4) + 4), (__m128i *)(cvs + 8 * k + 4), h[4 + k]);
    }
}

#pragma clang attribute pop
#endif
