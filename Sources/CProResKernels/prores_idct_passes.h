// The IDCT's passes and transpose, written once for SSE2 and AVX2. The
// file that includes this defines VEC (the vector type), OP(name) (the
// intrinsic of that width, OP(add_epi32) → _mm_add_epi32 or
// _mm256_add_epi32) and VAND (the bitwise and of that width). Every
// intrinsic here works within each 128-bit half,
// so on AVX2 each half does to its block exactly what SSE2 does to one.
//
// Data layout: lanes hold rows in the row pass (the block comes in
// transposed, so vector k is natural column k of all rows) and columns in
// the column pass (after one 8x8 transpose, vector j is row j).
#include "prores_idct_sse2.h"

#define PASSES_INLINE static inline __attribute__((always_inline))

// The int16 pair (a, b) in every 32-bit lane: pmaddwd's weights.
PASSES_INLINE VEC pair(int a, int b) { return OP(set1_epi32)((int)((uint32_t)(uint16_t)b << 16 | (uint16_t)a)); }

// wa * x + wb * y (32-bit, wrapping) for the interleaved pairs in p.
PASSES_INLINE VEC madd(VEC p, int wa, int wb) {
    VEC sum = OP(madd_epi16)(p, pair(pd_low_part(wa), pd_low_part(wb)));
    if (pd_high_part(wa) != 0 || pd_high_part(wb) != 0) {
        sum = OP(add_epi32)(sum, OP(slli_epi32)(OP(madd_epi16)(p, pair(pd_high_part(wa), pd_high_part(wb))), 16));
    }
    return sum;
}

// The int16 truncation of (v >> shift) for 8 lanes in two halves. Where
// `agree` is given, each of its 32-bit lanes is cleared where a value
// leaves the int16 range: FFmpeg's C code stores it wrapped, its x86 SIMD
// code (packssdw) saturated, so the two decoders part there.
PASSES_INLINE VEC narrow(VEC lo, VEC hi, int shift, VEC *agree) {
    VEC shifted_lo = OP(srai_epi32)(lo, shift), shifted_hi = OP(srai_epi32)(hi, shift);
    lo = OP(srai_epi32)(OP(slli_epi32)(shifted_lo, 16), 16);
    hi = OP(srai_epi32)(OP(slli_epi32)(shifted_hi, 16), 16);
    if (agree) *agree = VAND(*agree, VAND(OP(cmpeq_epi32)(lo, shifted_lo), OP(cmpeq_epi32)(hi, shifted_hi)));
    return OP(packs_epi32)(lo, hi);
}

// One pass on 8 vectors x[k] (lane = the row or column being transformed,
// k = the element), `bias` added to the even part; out[i] = element i.
// `low_only`: x[4..7] are all zero, so their products are left out (a
// skipped zero term changes no sum). `agree`: as `narrow`'s, or NULL.
PASSES_INLINE void pass(const VEC x[8], VEC out[8], struct pd_weights w, int bias, int shift, int low_only, VEC *agree) {
    VEC halves[2][8];
    for (int h = 0; h < 2; h++) {
        VEC p02 = h ? OP(unpackhi_epi16)(x[0], x[2]) : OP(unpacklo_epi16)(x[0], x[2]);
        VEC p46 = h ? OP(unpackhi_epi16)(x[4], x[6]) : OP(unpacklo_epi16)(x[4], x[6]);
        VEC p13 = h ? OP(unpackhi_epi16)(x[1], x[3]) : OP(unpacklo_epi16)(x[1], x[3]);
        VEC p57 = h ? OP(unpackhi_epi16)(x[5], x[7]) : OP(unpacklo_epi16)(x[5], x[7]);
        VEC b = OP(set1_epi32)(bias);
        VEC a0 = OP(add_epi32)(madd(p02, w.w4, w.w2), b);
        VEC a1 = OP(add_epi32)(madd(p02, w.w4, w.w6), b);
        VEC a2 = OP(add_epi32)(madd(p02, w.w4, -w.w6), b);
        VEC a3 = OP(add_epi32)(madd(p02, w.w4, -w.w2), b);
        VEC b0 = madd(p13, w.w1, w.w3);
        VEC b1 = madd(p13, w.w3, -w.w7);
        VEC b2 = madd(p13, w.w5, -w.w1);
        VEC b3 = madd(p13, w.w7, -w.w5);
        if (!low_only) {
            a0 = OP(add_epi32)(a0, madd(p46, w.w4, w.w6));
            a1 = OP(add_epi32)(a1, madd(p46, -w.w4, -w.w2));
            a2 = OP(add_epi32)(a2, madd(p46, -w.w4, w.w2));
            a3 = OP(add_epi32)(a3, madd(p46, w.w4, -w.w6));
            b0 = OP(add_epi32)(b0, madd(p57, w.w5, w.w7));
            b1 = OP(add_epi32)(b1, madd(p57, -w.w1, -w.w5));
            b2 = OP(add_epi32)(b2, madd(p57, w.w7, w.w3));
            b3 = OP(add_epi32)(b3, madd(p57, w.w3, -w.w1));
        }
        halves[h][0] = OP(add_epi32)(a0, b0); halves[h][7] = OP(sub_epi32)(a0, b0);
        halves[h][1] = OP(add_epi32)(a1, b1); halves[h][6] = OP(sub_epi32)(a1, b1);
        halves[h][2] = OP(add_epi32)(a2, b2); halves[h][5] = OP(sub_epi32)(a2, b2);
        halves[h][3] = OP(add_epi32)(a3, b3); halves[h][4] = OP(sub_epi32)(a3, b3);
    }
    for (int i = 0; i < 8; i++) out[i] = narrow(halves[0][i], halves[1][i], shift, agree);
}

// The 8x8 transpose of 16-bit elements (of each half's block on AVX2).
PASSES_INLINE void transpose(VEC m[8]) {
    VEC a0 = OP(unpacklo_epi16)(m[0], m[1]), a1 = OP(unpackhi_epi16)(m[0], m[1]);
    VEC a2 = OP(unpacklo_epi16)(m[2], m[3]), a3 = OP(unpackhi_epi16)(m[2], m[3]);
    VEC a4 = OP(unpacklo_epi16)(m[4], m[5]), a5 = OP(unpackhi_epi16)(m[4], m[5]);
    VEC a6 = OP(unpacklo_epi16)(m[6], m[7]), a7 = OP(unpackhi_epi16)(m[6], m[7]);
    VEC b0 = OP(unpacklo_epi32)(a0, a2), b1 = OP(unpackhi_epi32)(a0, a2);
    VEC b2 = OP(unpacklo_epi32)(a1, a3), b3 = OP(unpackhi_epi32)(a1, a3);
    VEC b4 = OP(unpacklo_epi32)(a4, a6), b5 = OP(unpackhi_epi32)(a4, a6);
    VEC b6 = OP(unpacklo_epi32)(a5, a7), b7 = OP(unpackhi_epi32)(a5, a7);
    m[0] = OP(unpacklo_epi64)(b0, b4); m[1] = OP(unpackhi_epi64)(b0, b4);
    m[2] = OP(unpacklo_epi64)(b1, b5); m[3] = OP(unpackhi_epi64)(b1, b5);
    m[4] = OP(unpacklo_epi64)(b2, b6); m[5] = OP(unpackhi_epi64)(b2, b6);
    m[6] = OP(unpacklo_epi64)(b3, b7); m[7] = OP(unpackhi_epi64)(b3, b7);
}
