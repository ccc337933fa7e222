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

#define AVX2 __attribute__((target("avx2"), always_inline)) static inline

AVX2 __m256i pair256(int a, int b) { return _mm256_set_epi16(b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a); }

AVX2 __m256i madd256(__m256i p, int wa, int wb) {
    __m256i sum = _mm256_madd_epi16(p, pair256(pd_low_part(wa), pd_low_part(wb)));
    if (pd_high_part(wa) != 0 || pd_high_part(wb) != 0) {
        sum = _mm256_add_epi32(sum, _mm256_slli_epi32(_mm256_madd_epi16(p, pair256(pd_high_part(wa), pd_high_part(wb))), 16));
    }
    return sum;
}

AVX2 __m256i narrow256(__m256i lo, __m256i hi, int shift) {
    lo = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_srai_epi32(lo, shift), 16), 16);
    hi = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_srai_epi32(hi, shift), 16), 16);
    return _mm256_packs_epi32(lo, hi);
}

AVX2 void pass256(const __m256i x[8], __m256i out[8], struct pd_weights w, int bias, int shift, int low_only) {
    __m256i halves[2][8];
    for (int h = 0; h < 2; h++) {
        __m256i p02 = h ? _mm256_unpackhi_epi16(x[0], x[2]) : _mm256_unpacklo_epi16(x[0], x[2]);
        __m256i p46 = h ? _mm256_unpackhi_epi16(x[4], x[6]) : _mm256_unpacklo_epi16(x[4], x[6]);
        __m256i p13 = h ? _mm256_unpackhi_epi16(x[1], x[3]) : _mm256_unpacklo_epi16(x[1], x[3]);
        __m256i p57 = h ? _mm256_unpackhi_epi16(x[5], x[7]) : _mm256_unpacklo_epi16(x[5], x[7]);
        __m256i b = _mm256_set1_epi32(bias);
        __m256i a0 = _mm256_add_epi32(madd256(p02, w.w4, w.w2), b);
        __m256i a1 = _mm256_add_epi32(madd256(p02, w.w4, w.w6), b);
        __m256i a2 = _mm256_add_epi32(madd256(p02, w.w4, -w.w6), b);
        __m256i a3 = _mm256_add_epi32(madd256(p02, w.w4, -w.w2), b);
        __m256i b0 = madd256(p13, w.w1, w.w3);
        __m256i b1 = madd256(p13, w.w3, -w.w7);
        __m256i b2 = madd256(p13, w.w5, -w.w1);
        __m256i b3 = madd256(p13, w.w7, -w.w5);
        if (!low_only) {
            a0 = _mm256_add_epi32(a0, madd256(p46, w.w4, w.w6));
            a1 = _mm256_add_epi32(a1, madd256(p46, -w.w4, -w.w2));
            a2 = _mm256_add_epi32(a2, madd256(p46, -w.w4, w.w2));
            a3 = _mm256_add_epi32(a3, madd256(p46, w.w4, -w.w6));
            b0 = _mm256_add_epi32(b0, madd256(p57, w.w5, w.w7));
            b1 = _mm256_add_epi32(b1, madd256(p57, -w.w1, -w.w5));
            b2 = _mm256_add_epi32(b2, madd256(p57, w.w7, w.w3));
            b3 = _mm256_add_epi32(b3, madd256(p57, w.w3, -w.w1));
        }
        halves[h][0] = _mm256_add_epi32(a0, b0); halves[h][7] = _mm256_sub_epi32(a0, b0);
        halves[h][1] = _mm256_add_epi32(a1, b1); halves[h][6] = _mm256_sub_epi32(a1, b1);
        halves[h][2] = _mm256_add_epi32(a2, b2); halves[h][5] = _mm256_sub_epi32(a2, b2);
        halves[h][3] = _mm256_add_epi32(a3, b3); halves[h][4] = _mm256_sub_epi32(a3, b3);
    }
    for (int i = 0; i < 8; i++) out[i] = narrow256(halves[0][i], halves[1][i], shift);
}

AVX2 void transpose256(__m256i m[8]) {
    __m256i a0 = _mm256_unpacklo_epi16(m[0], m[1]), a1 = _mm256_unpackhi_epi16(m[0], m[1]);
    __m256i a2 = _mm256_unpacklo_epi16(m[2], m[3]), a3 = _mm256_unpackhi_epi16(m[2], m[3]);
    __m256i a4 = _mm256_unpacklo_epi16(m[4], m[5]), a5 = _mm256_unpackhi_epi16(m[4], m[5]);
    __m256i a6 = _mm256_unpacklo_epi16(m[6], m[7]), a7 = _mm256_unpackhi_epi16(m[6], m[7]);
    __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
    __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
    __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
    __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
    m[0] = _mm256_unpacklo_epi64(b0, b4); m[1] = _mm256_unpackhi_epi64(b0, b4);
    m[2] = _mm256_unpacklo_epi64(b1, b5); m[3] = _mm256_unpackhi_epi64(b1, b5);
    m[4] = _mm256_unpacklo_epi64(b2, b6); m[5] = _mm256_unpackhi_epi64(b2, b6);
    m[6] = _mm256_unpacklo_epi64(b3, b7); m[7] = _mm256_unpackhi_epi64(b3, b7);
}

AVX2 int all_lanes(__m256i v) { return _mm256_movemask_epi8(_mm256_cmpeq_epi16(v, _mm256_setzero_si256())) == -1; }

// Returns 0, having written nothing, where either block is one value
// throughout (the caller then uses the SSE2 code on each).
AVX2 int idct_put2(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a,
                                                     uint16_t *out_b, ptrdiff_t stride, struct pd_weights w, int row_shift,
                                                     int column_shift, int depth) {
    __m256i x[8], y[8];
    __m256i q[8];
    for (int k = 0; k < 8; k++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(coefficients + 8 * k));
        __m128i b = _mm_loadu_si128((const __m128i *)(coefficients + 64 + 8 * k));
        q[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(matrix + 8 * k)));
        x[k] = _mm256_mullo_epi16(_mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1), q[k]);
    }
    __m256i zero = _mm256_setzero_si256();
    __m256i ac = _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(x[1], x[2]), _mm256_or_si256(x[3], x[4])),
                                 _mm256_or_si256(_mm256_or_si256(x[5], x[6]), x[7]));
    // Either block one value throughout: its row 0 aside, all zero.
    __m256i rest = _mm256_or_si256(ac, _mm256_srli_si256(x[0], 2));
    int rest_zero = _mm256_movemask_epi8(_mm256_cmpeq_epi16(rest, zero));
    if ((rest_zero & 0xFFFF) == 0xFFFF || ((unsigned)rest_zero >> 16) == 0xFFFF) return 0;
    __m256i dc_only = _mm256_cmpeq_epi16(ac, zero);
    __m256i dc = _mm256_add_epi16(_mm256_srai_epi16(x[0], 1), _mm256_and_si256(x[0], _mm256_set1_epi16(1)));
    int high_columns_zero = all_lanes(_mm256_or_si256(_mm256_or_si256(x[4], x[5]), _mm256_or_si256(x[6], x[7])));
    __m256i any = _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(x[0], x[1]), _mm256_or_si256(x[2], x[3])),
                                  _mm256_or_si256(_mm256_or_si256(x[4], x[5]), _mm256_or_si256(x[6], x[7])));
    int high_rows_zero = ((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(any, zero)) & 0xFF00FF00u) == 0xFF00FF00u;
    if (high_columns_zero) {
        pass256(x, y, w, 1 << (row_shift - 1), row_shift, 1);
    } else {
        pass256(x, y, w, 1 << (row_shift - 1), row_shift, 0);
    }
    __m256i row0 = _mm256_set_epi16(0, 0, 0, 0, 0, 0, 0, 8192, 0, 0, 0, 0, 0, 0, 0, 8192);
    for (int i = 0; i < 8; i++) {
        y[i] = _mm256_add_epi16(_mm256_or_si256(_mm256_andnot_si256(dc_only, y[i]), _mm256_and_si256(dc_only, dc)), row0);
    }
    transpose256(y);
    if (high_rows_zero) {
        pass256(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 1);
    } else {
        pass256(y, x, w, w.w4 * ((1 << (column_shift - 1)) / w.w4), column_shift, 0);
    }
    __m256i low = _mm256_set1_epi16(4), high = _mm256_set1_epi16((int16_t)((1 << depth) - 5));
    for (int j = 0; j < 8; j++) {
        __m256i v = _mm256_max_epi16(_mm256_min_epi16(x[j], high), low);
        _mm_storeu_si128((__m128i *)(out_a + j * stride), _mm256_castsi256_si128(v));
        _mm_storeu_si128((__m128i *)(out_b + j * stride), _mm256_extracti128_si256(v, 1));
    }
    return 1;
}

// One AVX2 function a bit depth, so that its weights are constants there.
__attribute__((target("avx2"))) static int idct_put2_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a,
                                                        uint16_t *out_b, ptrdiff_t stride) {
    return idct_put2(coefficients, matrix, out_a, out_b, stride, PD_WEIGHTS_10, 15, 18, 10);
}

__attribute__((target("avx2"))) static int idct_put2_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a,
                                                        uint16_t *out_b, ptrdiff_t stride) {
    return idct_put2(coefficients, matrix, out_a, out_b, stride, PD_WEIGHTS_12, 16, 17, 12);
}

void pd_idct_put2_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride) {
    if (__builtin_cpu_supports("avx2") && idct_put2_10(coefficients, matrix, out_a, out_b, stride)) return;
    pd_idct_put_10(coefficients, matrix, out_a, stride);
    pd_idct_put_10(coefficients + 64, matrix, out_b, stride);
}

void pd_idct_put2_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride) {
    if (__builtin_cpu_supports("avx2") && idct_put2_12(coefficients, matrix, out_a, out_b, stride)) return;
    pd_idct_put_12(coefficients, matrix, out_a, stride);
    pd_idct_put_12(coefficients + 64, matrix, out_b, stride);
}

#endif
