#ifndef PRORES_DECODE_PRORES_IDCT_H
#define PRORES_DECODE_PRORES_IDCT_H
#include <stddef.h>
#include <stdint.h>

/// x86-64 only (the Swift decoder has its own SIMD code elsewhere):
/// FFmpeg's ProRes dequantisation, integer IDCT (its C code at 10 or 12
/// bits: 32-bit wrapping sums, int16 intermediates, the row pass's DC-only
/// shortcut, +8192 on row 0) and clip to [4, 2^depth - 5], on one block.
/// `coefficients` and `matrix` (the scaled matrix, each entry an int16)
/// are transposed: natural column * 8 + row. Writes 8 rows of 8 samples
/// at `out`, `stride` samples apart. Returns 1 where the block's
/// intermediates leave the range where FFmpeg's C IDCT and its x86 SIMD
/// IDCT (10-bit only) agree, so that FFmpeg's x86 decoder may give other
/// samples; else 0 (always 0 at 12 bits).
int pd_idct_put_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride);
int pd_idct_put_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out, ptrdiff_t stride);

/// Two consecutive blocks (`coefficients`, then `coefficients + 64`) with
/// one matrix, out to `out_a` and `out_b`: the same samples as two
/// `pd_idct_put_*` calls, on AVX2 where the CPU has it; returns 1 where
/// either block may differ from FFmpeg's x86 SIMD IDCT.
int pd_idct_put2_10(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride);
int pd_idct_put2_12(const int16_t *coefficients, const int16_t *matrix, uint16_t *out_a, uint16_t *out_b, ptrdiff_t stride);

#endif
