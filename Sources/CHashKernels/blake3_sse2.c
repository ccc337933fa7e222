// BLAKE3 on four chunks at once with SSE2 (baseline x86-64), written from
// the spec's description of SIMD implementations: vector i holds state word
// i of the four chunks, one chunk a lane, so each G is the same vector code
// in every lane and no lane waits for another. Why C: Swift's SIMD types
// have no lane shuffles (the transposes, the rotation by 16), and in debug
// builds each of their operations is a call. The rounds are in
// blake3_rounds.h, shared with the AVX2 kernel; here are SSE2's rotations,
// loads and stores.
#include "blake3_lanes.h"

#if defined(__x86_64__)
#include <emmintrin.h>

#define INLINE static inline __attribute__((always_inline))

// Rotations right: by 16 as two 16-bit shuffles, the others as shifts.
INLINE __m128i rotr16(__m128i x) { return _mm_shufflehi_epi16(_mm_shufflelo_epi16(x, 0xB1), 0xB1); }
INLINE __m128i rotr12(__m128i x) { return _mm_or_si128(_mm_srli_epi32(x, 12), _mm_slli_epi32(x, 20)); }
INLINE __m128i rotr8(__m128i x) { return _mm_or_si128(_mm_srli_epi32(x, 8), _mm_slli_epi32(x, 24)); }
INLINE __m128i rotr7(__m128i x) { return _mm_or_si128(_mm_srli_epi32(x, 7), _mm_slli_epi32(x, 25)); }

#define VEC __m128i
#define OP(name) _mm_##name
#define XOR _mm_xor_si128
#include "blake3_rounds.h"

// Message word j of block `block` of the four chunks into m[j] (lane k: chunk k).
INLINE void load_block(const uint8_t *const chunks[4], int block, __m128i m[16]) {
    for (int q = 0; q < 4; q++) {
        __m128i *words = m + 4 * q;
        for (int k = 0; k < 4; k++) words[k] = _mm_loadu_si128((const __m128i *)(chunks[k] + BLAKE3_BLOCK_BYTES * block + 16 * q));
        transpose(words);
    }
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
