// The ProRes IDCT of prores_idct.c on two blocks at once, one in each
// 128-bit half of AVX2's registers. Every AVX2 instruction used here
// (unpack, pmaddwd, shifts, packs) works within each half, so each half
// does exactly what the SSE2 code does to one block: the same wrapping
// sums, int16 truncations and row-pass DC shortcut, bit for bit. The two
// exact shortcuts for zero terms apply where both blocks allow them;
// a block that is one value throughout goes to the SSE2 code, whose
// shortcut handles it.
#include "prores_idct.h"
#include "prores_idct_sse2.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)

#define AVX2 static inline __attribute__((always_inline))
#define VEC __m256i
#define OP(name) _mm256_##name
#define VAND _mm256_and_si256
#include "prores_idct_passes.h"

AVX2 int all_lanes(__m256i v) { return _mm256_movemask_epi8(_mm256_cmpeq_epi16(v, _mm256_setzero_si256())) == -1; }

// Returns -1, having written nothing, where either block is one value
// throughout (the caller then uses the SSE2 code on each); else whether
// either block may differ from FFmpeg's x86 SIMD IDCT (prores_idct.c says
// where), 1 or 0.
AVX2 int idct_put2(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride,
                   struct pd_weights w, int row_shift, int column_shift, int depth) {
    __m256i x[8], y[8];
    for (int k = 0; k < 8; k++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(coefficients + 8 * k));
        __m128i b = _mm_loadu_si128((const __m128i *)(coefficients + 64 + 8 * k));
        __m256i q = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(matrix + 8 * k)));
        x[k] = _mm256_mullo_epi16(_mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1), q);
    }
    __m256i zero = _mm256_setzero_si256();
    __m256i ac = _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(x[1], x[2]), _mm256_or_si256(x[3], x[4])),
                                 _mm256_or_si256(_mm256_or_si256(x[5], x[6]), x[7]));
    // Either block one value throughout: its row 0 aside, all zero.
    __m256i rest = _mm256_or_si256(ac, _mm256_srli_si256(x[0], 2));
    int rest_zero = _mm256_movemask_epi8(_mm256_cmpeq_epi16(rest, zero));
    if ((rest_zero & 0xFFFF) == 0xFFFF || ((unsigned)rest_zero >> 16) == 0xFFFF) return -1;
    __m256i dc_only = _mm256_cmpeq_epi16(ac, zero);
    __m256i dc = _mm256_add_epi16(_mm256_srai_epi16(x[0], 1), _mm256_and_si256(x[0], _mm256_set1_epi16(1)));
    int high_columns_zero = all_lanes(_mm256_or_si256(_mm256_or_si256(x[4], x[5]), _mm256_or_si256(x[6], x[7])));
    __m256i any = _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(x[0], x[1]), _mm256_or_si256(x[2], x[3])),
                                  _mm256_or_si256(_mm256_or_si256(x[4], x[5]), _mm256_or_si256(x[6], x[7])));
    int high_rows_zero = ((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(any, zero)) & 0xFF00FF00u) == 0xFF00FF00u;
    int checked = depth == 10;
    __m256i agree = _mm256_set1_epi32(-1);
    __m256i *row_check = checked ? &agree : NULL;
    if (high_columns_zero) {
        pass(x, y, w, 1 << (row_shift - 1), row_shift, 1, row_check);
    } else {
        pass(x, y, w, 1 << (row_shift - 1), row_shift, 0, row_check);
    }
    __m256i row0 = _mm256_set_epi16(0, 0, 0, 0, 0, 0, 0, 8192, 0, 0, 0, 0, 0, 0, 0, 8192);
    for (int i = 0; i < 8; i++) {
        y[i] = _mm256_add_epi16(_mm256_or_si256(_mm256_andnot_si256(dc_only, y[i]), _mm256_and_si256(dc_only, dc)), row0);
    }
    transpose(y);
    int may_differ = 0;
    if (checked) {
        __m256i rounding = _mm256_cmpeq_epi16(x[0], _mm256_set1_epi16(PD_AGREEMENT_ROUNDING_LIMIT));
        __m256i bias = _mm256_cmpgt_epi16(y[0], _mm256_set1_epi16(PD_AGREEMENT_BIAS_LIMIT));
        may_differ = _mm256_movemask_epi8(_mm256_or_si256(rounding, bias)) != 0 || _mm256_movemask_epi8(agree) != -1;
    }
    if (high_rows_zero) {
        pass(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 1, NULL);
    } else {
        pass(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 0, NULL);
    }
    __m256i low = _mm256_set1_epi16(4), high = _mm256_set1_epi16((int16_t)((1 << depth) - 5));
    for (int j = 0; j < 8; j++) {
        __m256i v = _mm256_max_epi16(_mm256_min_epi16(x[j], high), low);
        _mm_storeu_si128((__m128i *)(out_a + j * stride), _mm256_castsi256_si128(v));
        _mm_storeu_si128((__m128i *)(out_b + j * stride), _mm256_extracti128_si256(v, 1));
    }
    return may_differ;
}

// One AVX2 function a bit depth, so that its weights are constants there.
static int idct_put2_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride) {
    return idct_put2(coefficients, matrix, out_a, out_b, stride, PD_WEIGHTS_10, 15, 18, 10);
}

static int idct_put2_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride) {
    return idct_put2(coefficients, matrix, out_a, out_b, stride, PD_WEIGHTS_12, 16, 17, 12);
}

#pragma clang attribute pop

int pd_idct_put2_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride) {
    int handled = __builtin_cpu_supports("avx2") ? idct_put2_10(coefficients, matrix, out_a, out_b, stride) : -1;
    if (handled >= 0) return handled;
    int a = pd_idct_put_10(coefficients, matrix, out_a, stride);
    return pd_idct_put_10(coefficients + 64, matrix, out_b, stride) | a;
}

int pd_idct_put2_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride) {
    int handled = __builtin_cpu_supports("avx2") ? idct_put2_12(coefficients, matrix, out_a, out_b, stride) : -1;
    if (handled >= 0) return handled;
    int a = pd_idct_put_12(coefficients, matrix, out_a, stride);
    return pd_idct_put_12(coefficients + 64, matrix, out_b, stride) | a;
}

#endif
