// The ProRes IDCT on SSE2, bit-exact with FFmpeg's C code (not its SIMD
// code, which saturates where the C code wraps). Why C: the Swift decoder's
// SIMD8<Int32> version needs 32-bit multiplies, which baseline x86-64 lacks
// (1,128 instructions a block, 72% of a 1080p HQ frame's decoding);
// pmaddwd multiplies int16 pairs and adds them into 32 bits, wrapping
// exactly as the C code's sums do, so each pass is a few dozen of them.
//
// Data layout: lanes hold rows in the row pass (the block comes in
// transposed, so vector k is natural column k of all rows) and columns in
// the column pass (after one 8x8 transpose, vector j is row j), whose
// results are output rows stored as they are.
#include "prores_idct.h"
#include "prores_idct_sse2.h"

#if defined(__SSE2__)
#include <emmintrin.h>

static inline __attribute__((always_inline)) __m128i pair(int a, int b) { return _mm_set_epi16(b, a, b, a, b, a, b, a); }

// wa * x + wb * y (32-bit, wrapping) for the interleaved pairs in p.
static inline __attribute__((always_inline)) __m128i madd(__m128i p, int wa, int wb) {
    __m128i sum = _mm_madd_epi16(p, pair(pd_low_part(wa), pd_low_part(wb)));
    if (pd_high_part(wa) != 0 || pd_high_part(wb) != 0) {
        sum = _mm_add_epi32(sum, _mm_slli_epi32(_mm_madd_epi16(p, pair(pd_high_part(wa), pd_high_part(wb))), 16));
    }
    return sum;
}

// The int16 truncation of (v >> shift) for 8 lanes in two halves.
static inline __attribute__((always_inline)) __m128i narrow(__m128i lo, __m128i hi, int shift) {
    lo = _mm_srai_epi32(_mm_slli_epi32(_mm_srai_epi32(lo, shift), 16), 16);
    hi = _mm_srai_epi32(_mm_slli_epi32(_mm_srai_epi32(hi, shift), 16), 16);
    return _mm_packs_epi32(lo, hi);
}

// One pass on 8 vectors x[k] (lane = the row or column being transformed,
// k = the element), `bias` added to the even part; out[i] = element i.
// `low_only`: x[4..7] are all zero, so their products are left out (a
// skipped zero term changes no sum).
static inline __attribute__((always_inline)) void pass(const __m128i x[8], __m128i out[8], struct pd_weights w, int bias, int shift,
                                                     int low_only) {
    __m128i halves[2][8];
    for (int h = 0; h < 2; h++) {
        __m128i p02 = h ? _mm_unpackhi_epi16(x[0], x[2]) : _mm_unpacklo_epi16(x[0], x[2]);
        __m128i p46 = h ? _mm_unpackhi_epi16(x[4], x[6]) : _mm_unpacklo_epi16(x[4], x[6]);
        __m128i p13 = h ? _mm_unpackhi_epi16(x[1], x[3]) : _mm_unpacklo_epi16(x[1], x[3]);
        __m128i p57 = h ? _mm_unpackhi_epi16(x[5], x[7]) : _mm_unpacklo_epi16(x[5], x[7]);
        __m128i b = _mm_set1_epi32(bias);
        __m128i a0 = _mm_add_epi32(madd(p02, w.w4, w.w2), b);
        __m128i a1 = _mm_add_epi32(madd(p02, w.w4, w.w6), b);
        __m128i a2 = _mm_add_epi32(madd(p02, w.w4, -w.w6), b);
        __m128i a3 = _mm_add_epi32(madd(p02, w.w4, -w.w2), b);
        __m128i b0 = madd(p13, w.w1, w.w3);
        __m128i b1 = madd(p13, w.w3, -w.w7);
        __m128i b2 = madd(p13, w.w5, -w.w1);
        __m128i b3 = madd(p13, w.w7, -w.w5);
        if (!low_only) {
            a0 = _mm_add_epi32(a0, madd(p46, w.w4, w.w6));
            a1 = _mm_add_epi32(a1, madd(p46, -w.w4, -w.w2));
            a2 = _mm_add_epi32(a2, madd(p46, -w.w4, w.w2));
            a3 = _mm_add_epi32(a3, madd(p46, w.w4, -w.w6));
            b0 = _mm_add_epi32(b0, madd(p57, w.w5, w.w7));
            b1 = _mm_add_epi32(b1, madd(p57, -w.w1, -w.w5));
            b2 = _mm_add_epi32(b2, madd(p57, w.w7, w.w3));
            b3 = _mm_add_epi32(b3, madd(p57, w.w3, -w.w1));
        }
        halves[h][0] = _mm_add_epi32(a0, b0); halves[h][7] = _mm_sub_epi32(a0, b0);
        halves[h][1] = _mm_add_epi32(a1, b1); halves[h][6] = _mm_sub_epi32(a1, b1);
        halves[h][2] = _mm_add_epi32(a2, b2); halves[h][5] = _mm_sub_epi32(a2, b2);
        halves[h][3] = _mm_add_epi32(a3, b3); halves[h][4] = _mm_sub_epi32(a3, b3);
    }
    for (int i = 0; i < 8; i++) out[i] = narrow(halves[0][i], halves[1][i], shift);
}

static inline __attribute__((always_inline)) void transpose(__m128i m[8]) {
    __m128i a0 = _mm_unpacklo_epi16(m[0], m[1]), a1 = _mm_unpackhi_epi16(m[0], m[1]);
    __m128i a2 = _mm_unpacklo_epi16(m[2], m[3]), a3 = _mm_unpackhi_epi16(m[2], m[3]);
    __m128i a4 = _mm_unpacklo_epi16(m[4], m[5]), a5 = _mm_unpackhi_epi16(m[4], m[5]);
    __m128i a6 = _mm_unpacklo_epi16(m[6], m[7]), a7 = _mm_unpackhi_epi16(m[6], m[7]);
    __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    m[0] = _mm_unpacklo_epi64(b0, b4); m[1] = _mm_unpackhi_epi64(b0, b4);
    m[2] = _mm_unpacklo_epi64(b1, b5); m[3] = _mm_unpackhi_epi64(b1, b5);
    m[4] = _mm_unpacklo_epi64(b2, b6); m[5] = _mm_unpackhi_epi64(b2, b6);
    m[6] = _mm_unpacklo_epi64(b3, b7); m[7] = _mm_unpackhi_epi64(b3, b7);
}

static inline __attribute__((always_inline)) void idct_put(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride,
                            struct pd_weights w, int row_shift, int column_shift, int depth) {
    __m128i x[8], y[8];
    // Dequantisation: the int16 product, truncated (pmullw).
    for (int k = 0; k < 8; k++) {
        x[k] = _mm_mullo_epi16(_mm_loadu_si128((const __m128i *)(coefficients + 8 * k)),
                               _mm_loadu_si128((const __m128i *)(matrix + 8 * k)));
    }
    // Rows whose AC is all zero: every element is (dc + 1) >> 1, computed
    // without the int16 overflow of dc + 1.
    __m128i ac = _mm_or_si128(_mm_or_si128(_mm_or_si128(x[1], x[2]), _mm_or_si128(x[3], x[4])),
                              _mm_or_si128(_mm_or_si128(x[5], x[6]), x[7]));
    __m128i zero = _mm_setzero_si128();
    __m128i dc_only = _mm_cmpeq_epi16(ac, zero);
    __m128i dc = _mm_add_epi16(_mm_srai_epi16(x[0], 1), _mm_and_si128(x[0], _mm_set1_epi16(1)));
    // Rows 1-7 all zero, DC only: every row is a constant after the row
    // pass (rows 1-7 zero), so every column holds row 0's value alone and
    // the block comes out one value.
    __m128i rest = _mm_or_si128(ac, _mm_srli_si128(x[0], 2));
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(rest, zero)) == 0xFFFF) {
        int16_t top = (int16_t)(_mm_cvtsi128_si32(dc) + 8192);
        int16_t value = (int16_t)((int32_t)((uint32_t)w.w4 * (uint32_t)(top + (1 << (column_shift - 1)) / w.w4)) >> column_shift);
        int clipped = value < 4 ? 4 : value > (1 << depth) - 5 ? (1 << depth) - 5 : value;
        __m128i v = _mm_set1_epi16((int16_t)clipped);
        for (int j = 0; j < 8; j++) _mm_storeu_si128((__m128i *)(out + j * stride), v);
        return;
    }
    // Natural columns 4-7 all zero: the row pass leaves their products out;
    // rows 4-7 all zero (lanes 4-7 of every vector): so are the column
    // pass's, as those rows come out of the row pass zero.
    int high_columns_zero = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_or_si128(_mm_or_si128(x[4], x[5]), _mm_or_si128(x[6], x[7])), zero))
                            == 0xFFFF;
    __m128i any = _mm_or_si128(_mm_or_si128(_mm_or_si128(x[0], x[1]), _mm_or_si128(x[2], x[3])),
                               _mm_or_si128(_mm_or_si128(x[4], x[5]), _mm_or_si128(x[6], x[7])));
    int high_rows_zero = (_mm_movemask_epi8(_mm_cmpeq_epi16(any, zero)) & 0xFF00) == 0xFF00;
    if (high_columns_zero) {
        pass(x, y, w, 1 << (row_shift - 1), row_shift, 1);
    } else {
        pass(x, y, w, 1 << (row_shift - 1), row_shift, 0);
    }
    // Row 0 (lane 0) gets +8192 before the columns, as int16.
    __m128i row0 = _mm_set_epi16(0, 0, 0, 0, 0, 0, 0, 8192);
    for (int i = 0; i < 8; i++) {
        y[i] = _mm_add_epi16(_mm_or_si128(_mm_andnot_si128(dc_only, y[i]), _mm_and_si128(dc_only, dc)), row0);
    }
    transpose(y);
    // The column bias (1 << (COL_SHIFT - 1)) / W4 goes into the DC term: W4 * bias.
    if (high_rows_zero) {
        pass(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 1);
    } else {
        pass(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 0);
    }
    __m128i low = _mm_set1_epi16(4), high = _mm_set1_epi16((int16_t)((1 << depth) - 5));
    for (int j = 0; j < 8; j++) {
        _mm_storeu_si128((__m128i *)(out + j * stride), _mm_max_epi16(_mm_min_epi16(x[j], high), low));
    }
}

void pd_idct_put_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride) {
    idct_put(coefficients, matrix, out, stride, PD_WEIGHTS_10, 15, 18, 10);
}

void pd_idct_put_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride) {
    idct_put(coefficients, matrix, out, stride, PD_WEIGHTS_12, 16, 17, 12);
}

#endif
