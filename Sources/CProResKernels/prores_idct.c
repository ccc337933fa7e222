// The ProRes IDCT on SSE2, bit-exact with FFmpeg's C code (not its SIMD
// code, which saturates where the C code wraps). Why C: the Swift decoder's
// SIMD8<Int32> version needs 32-bit multiplies, which baseline x86-64 lacks
// (1,128 instructions a block, 72% of a 1080p HQ frame's decoding);
// pmaddwd multiplies int16 pairs and adds them into 32 bits, wrapping
// exactly as the C code's sums do, so each pass is a few dozen of them.
// The passes are in prores_idct_passes.h, shared with the AVX2 kernel;
// the column pass's results are output rows, stored as they are.
#include "prores_idct.h"
#include "prores_idct_sse2.h"

#if defined(__SSE2__)
#include <emmintrin.h>

#define VEC __m128i
#define OP(name) _mm_##name
#define VAND _mm_and_si128
#include "prores_idct_passes.h"

// FFmpeg's x86 SIMD IDCT (10-bit only) parts from its C code in three
// places: its row pass adds the rounding as row[0] + 1 in int16 (wrapping
// at 32767, where the C code adds it in 32 bits); it packs the row pass's
// results saturating (the C code stores them wrapped); and it adds the
// column bias 8192 + 8 in int16 at once (the C code adds 8192 in int16,
// then 8 in 32 bits, so that only C's sum passes 32767 for row-pass
// values 24568 to 24575). Its column pass's results always fit (a 32-bit
// sum >> 18). `may_differ` tells whether a block meets any of the three.
static inline __attribute__((always_inline)) int idct_put(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride,
                            struct pd_weights w, int row_shift, int column_shift, int depth) {
    __m128i x[8], y[8];
    int checked = depth == 10;
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
        return checked && (int16_t)_mm_cvtsi128_si32(x[0]) == PD_AGREEMENT_ROUNDING_LIMIT;
    }
    // Natural columns 4-7 all zero: the row pass leaves their products out;
    // rows 4-7 all zero (lanes 4-7 of every vector): so are the column
    // pass's, as those rows come out of the row pass zero.
    int high_columns_zero = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_or_si128(_mm_or_si128(x[4], x[5]), _mm_or_si128(x[6], x[7])), zero))
                            == 0xFFFF;
    __m128i any = _mm_or_si128(_mm_or_si128(_mm_or_si128(x[0], x[1]), _mm_or_si128(x[2], x[3])),
                               _mm_or_si128(_mm_or_si128(x[4], x[5]), _mm_or_si128(x[6], x[7])));
    int high_rows_zero = (_mm_movemask_epi8(_mm_cmpeq_epi16(any, zero)) & 0xFF00) == 0xFF00;
    __m128i agree = _mm_set1_epi32(-1);
    __m128i *row_check = checked ? &agree : NULL;
    if (high_columns_zero) {
        pass(x, y, w, 1 << (row_shift - 1), row_shift, 1, row_check);
    } else {
        pass(x, y, w, 1 << (row_shift - 1), row_shift, 0, row_check);
    }
    // Row 0 (lane 0) gets +8192 before the columns, as int16.
    __m128i row0 = _mm_set_epi16(0, 0, 0, 0, 0, 0, 0, 8192);
    for (int i = 0; i < 8; i++) {
        y[i] = _mm_add_epi16(_mm_or_si128(_mm_andnot_si128(dc_only, y[i]), _mm_and_si128(dc_only, dc)), row0);
    }
    transpose(y);
    int may_differ = 0;
    if (checked) {
        __m128i rounding = _mm_cmpeq_epi16(x[0], _mm_set1_epi16(PD_AGREEMENT_ROUNDING_LIMIT));
        __m128i bias = _mm_cmpgt_epi16(y[0], _mm_set1_epi16(PD_AGREEMENT_BIAS_LIMIT));
        may_differ = _mm_movemask_epi8(_mm_or_si128(rounding, bias)) != 0 || _mm_movemask_epi8(agree) != 0xFFFF;
    }
    // The column bias (1 << (COL_SHIFT - 1)) / W4 goes into the DC term: W4 * bias.
    if (high_rows_zero) {
        pass(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 1, NULL);
    } else {
        pass(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 0, NULL);
    }
    __m128i low = _mm_set1_epi16(4), high = _mm_set1_epi16((int16_t)((1 << depth) - 5));
    for (int j = 0; j < 8; j++) {
        _mm_storeu_si128((__m128i *)(out + j * stride), _mm_max_epi16(_mm_min_epi16(x[j], high), low));
    }
    return may_differ;
}

int pd_idct_put_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride) {
    return idct_put(coefficients, matrix, out, stride, PD_WEIGHTS_10, 15, 18, 10);
}

int pd_idct_put_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride) {
    return idct_put(coefficients, matrix, out, stride, PD_WEIGHTS_12, 16, 17, 12);
}

#endif
