// What the SSE2 and AVX2 IDCTs share: the weights and how a weight that
// does not fit in an int16 is split for pmaddwd.
#ifndef PRORES_DECODE_PRORES_IDCT_SSE2_H
#define PRORES_DECODE_PRORES_IDCT_SSE2_H
#include <stdint.h>

// A weight w as w' + k * 65536 with w' an int16: w * x = w' * x + (k * x << 16)
// modulo 2^32, so weights above 32767 (the 12-bit ones) take a second
// pmaddwd. Constant-folded away for weights that fit.
static inline __attribute__((always_inline)) int16_t pd_low_part(int w) { return (int16_t)(w - (w > 32767 ? 65536 : w < -32768 ? -65536 : 0)); }
static inline __attribute__((always_inline)) int16_t pd_high_part(int w) { return (int16_t)(w > 32767 ? 1 : w < -32768 ? -1 : 0); }

struct pd_weights { int w1, w2, w3, w4, w5, w6, w7; };

#define PD_WEIGHTS_10 ((struct pd_weights){22725, 21407, 19265, 16384, 12873, 8867, 4520})
// Where FFmpeg's x86 SIMD IDCT parts from its C code (prores_idct.c):
// a dequantised row[0] of 32767 (its +1 wraps), and row 0 of the row
// pass's output above 32759 once 8192 is added (its +8200 wraps there).
#define PD_AGREEMENT_ROUNDING_LIMIT 32767
#define PD_AGREEMENT_BIAS_LIMIT (32767 - 8)

#define PD_WEIGHTS_12 ((struct pd_weights){45451, 42813, 38531, 32767, 25746, 17734, 9041})

#endif
