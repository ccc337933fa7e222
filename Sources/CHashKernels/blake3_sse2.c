// BLAKE3 on four chunks at once with SSE2 (baseline x86-64), written from
// the spec's description of SIMD implementations: vector i holds state word
// i of the four chunks, one chunk a lane, so each G is the same vector code
// in every lane and no lane waits for another. Why C: Swift's SIMD types
// have no lane shuffles (the transposes, the rotation by 16), and in debug
// builds each of their operations is a call.
#include "blake3_lanes.h"

#if defined(__x86_64__)
#include <emmintrin.h>

#define INLINE static inline __attribute__((always_inline))

// Rotations right: by 16 as two 16-bit shuffles, the others as shifts.
INLINE __m128i rotr16(__m128i x) { return _mm_shufflehi_epi16(_mm_shufflelo_epi16(x, 0xB1), 0xB1); }
INLINE __m128i rotr12(__m128i x) { return _mm_or_si128(_mm_srli_epi32(x, 12), _mm_slli_epi32(x, 20)); }
INLINE __m128i rotr8(__m128i x) { return _mm_or_si128(_mm_srli_epi32(x, 8), _mm_slli_epi32(x, 24)); }
INLINE __m128i rotr7(__m128i x) { return _mm_or_si128(_mm_srli_epi32(x, 7), _mm_slli_epi32(x, 25)); }

INLINE __m128i add3(__m128i a, __m128i b, __m128i c) { return _mm_add_epi32(_mm_add_epi32(a, b), c); }

// The quarter-round G (spec §2.2) on state words a, b, c, d of every lane.
INLINE void g(__m128i v[16], int a, int b, int c, int d, __m128i x, __m128i y) {
    v[a] = add3(v[a], v[b], x);
    v[d] = rotr16(_mm_xor_si128(v[d], v[a]));
    v[c] = _mm_add_epi32(v[c], v[d]);
    v[b] = rotr12(_mm_xor_si128(v[b], v[c]));
    v[a] = add3(v[a], v[b], y);
    v[d] = rotr8(_mm_xor_si128(v[d], v[a]));
    v[c] = _mm_add_epi32(v[c], v[d]);
    v[b] = rotr7(_mm_xor_si128(v[b], v[c]));
}

// One round: G on the columns, then on the diagonals.
INLINE void round_lanes(__m128i v[16], const __m128i m[16], int r) {
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

// Rows in, columns out: r[k] word j becomes r[j] word k.
INLINE void transpose(__m128i r[4]) {
    __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpackhi_epi32(r[0], r[1]);
    __m128i t2 = _mm_unpacklo_epi32(r[2], r[3]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm_unpacklo_epi64(t0, t2);
    r[1] = _mm_unpackhi_epi64(t0, t2);
    r[2] = _mm_unpacklo_epi64(t1, t3);
    r[3] = _mm_unpackhi_epi64(t1, t3);
}

// Message word j of block `block` of the four chunks into m[j] (lane k: chunk k).
INLINE void load_block(const uint8_t *const chunks[4], int block, __m128i m[16]) {
    for (int q = 0; q < 4; q++) {
        __m128i *words = m + 4 * q;
        for (int k = 0; k < 4; k++) words[k] = _mm_loadu_si128((const __m128i *)(chunks[k] + BLAKE3_BLOCK_BYTES * block + 16 * q));
        transpose(words);
    }
}

// The compression function's new CV (its first 8 output words) in h.
INLINE void compress(__m128i h[8], const __m128i m[16], __m128i counter_low, __m128i counter_high, uint32_t flags) {
    __m128i v[16] = {
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
        _mm_set1_epi32((int)blake3_iv[0]), _mm_set1_epi32((int)blake3_iv[1]),
        _mm_set1_epi32((int)blake3_iv[2]), _mm_set1_epi32((int)blake3_iv[3]),
        counter_low, counter_high, _mm_set1_epi32(BLAKE3_BLOCK_BYTES), _mm_set1_epi32((int)flags),
    };
    // Unrolled, each message word read is a fixed slot, not a schedule look-up.
#pragma clang loop unroll(full)
    for (int r = 0; r < 7; r++) round_lanes(v, m, r);
    for (int i = 0; i < 8; i++) h[i] = _mm_xor_si128(v[i], v[i + 8]);
}

void pd_blake3_chunks4_sse2(const uint8_t *const chunks[4], uint64_t counter, uint32_t cvs[32]) {
    // Each lane's own chunk counter, its high word carrying where the low one wraps.
    __m128i counter_low = _mm_setr_epi32((int)(uint32_t)counter, (int)(uint32_t)(counter + 1),
                                         (int)(uint32_t)(counter + 2), (int)(uint32_t)(counter + 3));
    __m128i counter_high = _mm_setr_epi32((int)(uint32_t)(counter >> 32), (int)(uint32_t)((counter + 1) >> 32),
                                          (int)(uint32_t)((counter + 2) >> 32), (int)(uint32_t)((counter + 3) >> 32));
    __m128i h[8];
    for (int i = 0; i < 8; i++) h[i] = _mm_set1_epi32((int)blake3_iv[i]);
    for (int block = 0; block < BLAKE3_BLOCKS_PER_CHUNK; block++) {
        __m128i m[16];
        load_block(chunks, block, m);
        compress(h, m, counter_low, counter_high, blake3_block_flags(block));
    }
    // Lanes back to chunks: words 0-3 of each CV, then words 4-7.
    transpose(h);
    transpose(h + 4);
    for (int k = 0; k < 4; k++) {
        _mm_storeu_si128((__m128i *)(cvs + 8 * k), h[k]);
        _mm_storeu_si128((__m128i *)(cvs + 8 * k + 4), h[4 + k]);
    }
}
#endif
