// What the SSE2 and AVX2 kernels share: BLAKE3's constants (spec §2.1,
// §2.2, Table 3) and the two kernels' entry points.
#ifndef PRORES_DECODE_BLAKE3_LANES_H
#define PRORES_DECODE_BLAKE3_LANES_H
#include <stdint.h>

enum { BLAKE3_CHUNK_START = 1, BLAKE3_CHUNK_END = 2, BLAKE3_BLOCK_BYTES = 64, BLAKE3_BLOCKS_PER_CHUNK = 16 };

/// The IV (SHA-256's): the key of unkeyed hashing and state words 8-11.
static const uint32_t blake3_iv[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                      0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};

/// The message word each G input takes in each of the 7 rounds: round r
/// uses the block permuted r times by sigma = 2 6 3 10 7 0 4 13 1 11 12 5 9
/// 14 15 8 (spec Table 2), written out so that no round moves words.
static const uint8_t blake3_schedule[7][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8},
    {3, 4, 10, 12, 13, 2, 7, 14, 6, 5, 9, 0, 11, 15, 8, 1},
    {10, 7, 12, 9, 14, 3, 13, 15, 4, 0, 11, 2, 5, 8, 1, 6},
    {12, 13, 9, 11, 15, 10, 14, 8, 7, 2, 5, 3, 0, 1, 6, 4},
    {9, 14, 11, 5, 8, 12, 15, 1, 13, 3, 0, 10, 2, 6, 4, 7},
    {11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13},
};

/// The block flags of a whole chunk's block `block`: CHUNK_START on the
/// first, CHUNK_END on the last, never ROOT.
static inline uint32_t blake3_block_flags(int block) {
    return (block == 0 ? BLAKE3_CHUNK_START : 0) | (block == BLAKE3_BLOCKS_PER_CHUNK - 1 ? BLAKE3_CHUNK_END : 0);
}

void pd_blake3_chunks4_sse2(const uint8_t *const chunks[4], uint64_t counter, uint32_t cvs[32]);
void pd_blake3_chunks8_avx2(const uint8_t *const chunks[8], uint64_t counter, uint32_t cvs[64]);

#endif
