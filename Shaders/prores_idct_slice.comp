#version 450
#extension GL_EXT_shader_16bit_storage : require
// ProRes dequantisation, inverse DCT and output, one workgroup per SLICE
// (PRORES_DECODE_TRANSFORM=slice; prores_idct.comp is the organisation
// with one workgroup per macroblock). The arithmetic is that shader's,
// function for function (the kernel tests hold both to one reference):
// FFmpeg's simple_idct with its "extra shift" constants, every
// intermediate wrapped to 16 bits, the row pass's DC-only shortcut, the
// +8192 bias on row 0, the clip to [4, 2^depth - 5], and the concealment
// values for components the entropy pass could not decode.
//
// What the slice organisation changes is the memory traffic:
// - the entropy pass stored a slice's components one after another, each
//   in coded order (scan position × blocks + block), so invocation i of a
//   loop reads element i: whole warps read consecutive coefficients. The
//   scan position's natural index comes from a constant table whose index
//   is nearly uniform across a warp (no per-workgroup table copy);
// - dequantised values go to shared memory in natural order, in a layout
//   swizzled so that these stores, the row pass (a row each) and the column
//   pass (a column each) touch 32 different banks a warp (`at`);
// - the output is written by the whole workgroup along the slice's rows
//   (up to 128 pixels: 512 bytes of v216, 1 KiB of y416 a row).
//
// Dispatch: x = slice within a row of SLICES_PER_ROW workgroups, y = that
// row (the frame's slice index is y × SLICES_PER_ROW + x), z = frame.
//
// Variants as for prores_idct.comp (the host's KernelInterface defines
// CHROMA444, DEPTH and SLICES_PER_ROW with the bindings below).
// @interface

#if CHROMA444
#define BLOCKS 12u
#define CHROMA_BLOCKS_LOG2 2u
#else
#define BLOCKS 8u
#define CHROMA_BLOCKS_LOG2 1u
#endif
// Each invocation loops over a slice's coefficients, rows, columns and
// output units; a multiple of 32 (the swizzle assumes warps of aligned
// blocks). An 8-macroblock slice has 512 (4:2:2) or 768 (4:4:4) rows.
#define INVOCATIONS 256u
layout(local_size_x = INVOCATIONS) in;

#if DEPTH == 12
const int W1 = 45451, W2 = 42813, W3 = 38531, W4 = 32767, W5 = 25746, W6 = 17734, W7 = 9041;
const int ROW_SHIFT = 16, COL_SHIFT = 17;
#else
const int W1 = 22725, W2 = 21407, W3 = 19265, W4 = 16384, W5 = 12873, W6 = 8867, W7 = 4520;
const int ROW_SHIFT = 15, COL_SHIFT = 18;  // 13 + the extra shift 2, 18
#endif
const int COLUMN_BIAS = (1 << (COL_SHIFT - 1)) / W4;
const int CLIP_LOW = 4, CLIP_HIGH = (1 << DEPTH) - 5;
const uint FILL_LUMA = 16u << (DEPTH - 8), FILL_CHROMA = 1u << (DEPTH - 1), NO_CHROMA = 511u << (DEPTH - 10);
const uint FILL_ALPHA = (1u << DEPTH) - 1u;

// Natural (row-major) index of each scan position: progressive, then interlaced.
const uint scans[128] = uint[128](
     0u,  1u,  8u,  9u,  2u,  3u, 10u, 11u, 16u, 17u, 24u, 25u, 18u, 19u, 26u, 27u,
     4u,  5u, 12u, 20u, 13u,  6u,  7u, 14u, 21u, 28u, 29u, 22u, 15u, 23u, 30u, 31u,
    32u, 33u, 40u, 48u, 41u, 34u, 35u, 42u, 49u, 56u, 57u, 50u, 43u, 36u, 37u, 44u,
    51u, 58u, 59u, 52u, 45u, 38u, 39u, 46u, 53u, 60u, 61u, 54u, 47u, 55u, 62u, 63u,
     0u,  8u,  1u,  9u, 16u, 24u, 17u, 25u,  2u, 10u,  3u, 11u, 18u, 26u, 19u, 27u,
    32u, 40u, 33u, 34u, 41u, 48u, 56u, 49u, 42u, 35u, 43u, 50u, 57u, 58u, 51u, 59u,
     4u, 12u,  5u,  6u, 13u, 20u, 28u, 21u, 14u,  7u, 15u, 22u, 29u, 36u, 44u, 37u,
    30u, 23u, 31u, 38u, 45u, 52u, 60u, 53u, 46u, 39u, 47u, 54u, 61u, 62u, 55u, 63u);

// The slice's blocks in component order (Y' blocks, then Cb, then Cr, each
// in the entropy pass's block order), 64 samples each. 32-bit entries hold
// the 16-bit intermediates (as FFmpeg's int16_t block): 24 KiB for an
// 8-macroblock 4:4:4 slice.
shared int block[(BLOCKS * 64u) << 3];

// Where sample (x, y) of block b lives. The bank of an entry is
// 8 × ((b + y) mod 4) + (x + y + b / 4) mod 8, so that 32 blocks' samples
// at one position (the coefficient stores), 4 blocks × 8 rows at one
// column (row pass) and 4 blocks × 8 columns at one row (column pass) each
// fall into 32 different banks.
uint at(uint b, uint y, uint x) { return b * 64u + (((y + b) & 7u) << 3) + ((x + y + (b >> 2)) & 7u); }

int toInt16(int v) { return (v << 16) >> 16; }

uint quantMatrix(uint frame, bool chroma, uint i) {
    uint word = chroma ? frameChromaMatrix(frame, i >> 2) : frameLumaMatrix(frame, i >> 2);
    return (word >> ((i & 3u) * 8u)) & 0xFFu;
}

void rowTransform(inout int r[8]) {
    if ((r[1] | r[2] | r[3] | r[4] | r[5] | r[6] | r[7]) == 0) {
        int dc = toInt16((r[0] + 1) >> 1);
        for (int i = 0; i < 8; i++) r[i] = dc;
        return;
    }
    int a0 = W4 * r[0] + (1 << (ROW_SHIFT - 1));
    int a1 = a0, a2 = a0, a3 = a0;
    a0 += W2 * r[2]; a1 += W6 * r[2]; a2 -= W6 * r[2]; a3 -= W2 * r[2];
    int b0 = W1 * r[1] + W3 * r[3];
    int b1 = W3 * r[1] - W7 * r[3];
    int b2 = W5 * r[1] - W1 * r[3];
    int b3 = W7 * r[1] - W5 * r[3];
    a0 += W4 * r[4] + W6 * r[6];
    a1 += -W4 * r[4] - W2 * r[6];
    a2 += -W4 * r[4] + W2 * r[6];
    a3 += W4 * r[4] - W6 * r[6];
    b0 += W5 * r[5] + W7 * r[7];
    b1 += -W1 * r[5] - W5 * r[7];
    b2 += W7 * r[5] + W3 * r[7];
    b3 += W3 * r[5] - W1 * r[7];
    r[0] = toInt16((a0 + b0) >> ROW_SHIFT); r[7] = toInt16((a0 - b0) >> ROW_SHIFT);
    r[1] = toInt16((a1 + b1) >> ROW_SHIFT); r[6] = toInt16((a1 - b1) >> ROW_SHIFT);
    r[2] = toInt16((a2 + b2) >> ROW_SHIFT); r[5] = toInt16((a2 - b2) >> ROW_SHIFT);
    r[3] = toInt16((a3 + b3) >> ROW_SHIFT); r[4] = toInt16((a3 - b3) >> ROW_SHIFT);
}

void columnTransform(inout int c[8]) {
    int a0 = W4 * (c[0] + COLUMN_BIAS);
    int a1 = a0, a2 = a0, a3 = a0;
    a0 += W2 * c[2]; a1 += W6 * c[2]; a2 -= W6 * c[2]; a3 -= W2 * c[2];
    int b0 = W1 * c[1] + W3 * c[3];
    int b1 = W3 * c[1] - W7 * c[3];
    int b2 = W5 * c[1] - W1 * c[3];
    int b3 = W7 * c[1] - W5 * c[3];
    a0 += W4 * c[4]; a1 -= W4 * c[4]; a2 -= W4 * c[4]; a3 += W4 * c[4];
    b0 += W5 * c[5]; b1 -= W1 * c[5]; b2 += W7 * c[5]; b3 += W3 * c[5];
    a0 += W6 * c[6]; a1 -= W2 * c[6]; a2 += W2 * c[6]; a3 -= W6 * c[6];
    b0 += W7 * c[7]; b1 -= W5 * c[7]; b2 += W3 * c[7]; b3 -= W1 * c[7];
    int o[8] = int[8](a0 + b0, a1 + b1, a2 + b2, a3 + b3, a3 - b3, a2 - b2, a1 - b1, a0 - b0);
    for (int i = 0; i < 8; i++) c[i] = clamp(toInt16(o[i] >> COL_SHIFT), CLIP_LOW, CLIP_HIGH);
}

uint widen(uint v) { return v << (16 - DEPTH); }

void main() {
    uint frame = gl_WorkGroupID.z;
    uint local = gl_WorkGroupID.y * SLICES_PER_ROW + gl_WorkGroupID.x;
    if (local >= frameSliceCount(frame)) return;
    uint slice = frameFirstSlice(frame) + local;
    Slice s = loadSlice(slice);
    uint log2Mbs = sliceLog2Macroblocks(s);
    uint t = gl_LocalInvocationID.x;

    uint flags = status.flags[slice];
    // The host learns of failures from here (see prores_idct.comp).
    if (t == 0u) report.flags[slice] = flags;
    bool lumaOK = sliceValid(s) != 0u && (flags & 1u) == 0u;
    bool cbOK = lumaOK && (flags & 2u) == 0u;
    bool crOK = cbOK && (flags & 4u) == 0u;
    bool noChroma = sliceCbSize(s) + sliceCrSize(s) == 0u;
    uint alphaBits = frameAlphaBits(frame);
    bool alphaOK = crOK && alphaBits != 0u && sliceAlphaSize(s) != 0u;

    // Blocks of each component, and where the chroma blocks start.
    uint lumaBlocks = 4u << log2Mbs, chromaLog2 = log2Mbs + CHROMA_BLOCKS_LOG2;
    uint cbStart = lumaBlocks, crStart = cbStart + (1u << chromaLog2), blocks = crStart + (1u << chromaLog2);
    // Samples of decoded components: Y' alone, Y' and Cb, or all three.
    uint decodedBlocks = !lumaOK ? 0u : !cbOK || noChroma ? cbStart : !crOK ? crStart : blocks;

    // Dequantisation: element e of the slice's coefficients (its components
    // one after another, as the blocks here) to its block in natural order.
    uint qscale = sliceQscale(s);
    uint first = sliceFirstCoefficient(s);
    uint scanBase = sliceInterlaced(s) != 0u ? 64u : 0u;
    for (uint e = t; e < decodedBlocks * 64u; e += INVOCATIONS) {
        bool chroma = e >= cbStart * 64u;
        uint inComponent = chroma ? (e - cbStart * 64u) & ((64u << chromaLog2) - 1u) : e;
        uint log2Blocks = chroma ? chromaLog2 : log2Mbs + 2u;
        uint componentStart = chroma ? (e >= crStart * 64u ? crStart : cbStart) : 0u;
        uint b = componentStart + (inComponent & ((1u << log2Blocks) - 1u));
        uint n = scans[scanBase + (inComponent >> log2Blocks)];
        int q = toInt16(int(quantMatrix(frame, chroma, n) * qscale));
        block[at(b, n >> 3, n & 7u)] = toInt16(int(coefficients.values[first + e]) * q);
    }
    barrier();
    for (uint r = t; r < decodedBlocks * 8u; r += INVOCATIONS) {
        uint b = r >> 3, row = r & 7u;
        int v[8];
        for (uint i = 0u; i < 8u; i++) v[i] = block[at(b, row, i)];
        rowTransform(v);
        for (uint i = 0u; i < 8u; i++) block[at(b, row, i)] = row == 0u ? toInt16(v[i] + 8192) : v[i];
    }
    barrier();
    for (uint c = t; c < decodedBlocks * 8u; c += INVOCATIONS) {
        uint b = c >> 3, column = c & 7u;
        int v[8];
        for (uint i = 0u; i < 8u; i++) v[i] = block[at(b, i, column)];
        columnTransform(v);
        for (uint i = 0u; i < 8u; i++) block[at(b, i, column)] = v[i];
    }
    barrier();

    // Output along the slice's rows; x is the pixel within the slice.
    uint sliceX = sliceColumn(s) * 16u;
    uint fieldRow0 = sliceRow(s) << 4;
    bool interlaced = sliceInterlaced(s) != 0u;
    uint parity = sliceFieldParity(s);
    uint outputBase = frameSurfaceOffset(frame);
    uint widthLog2 = log2Mbs + 4u;
#if CHROMA444
    uint alphaBase = first + blocks * 64u;
    for (uint unit = t; unit < (16u << widthLog2); unit += INVOCATIONS) {
        uint x = unit & ((1u << widthLog2) - 1u), y = unit >> widthLog2;
        uint px = sliceX + x;
        uint frameRow = interlaced ? (fieldRow0 + y) * 2u + parity : fieldRow0 + y;
        if (px >= pc.width || frameRow >= pc.height) continue;
        uint mb = x >> 4, mx = x & 15u;
        uint luma = lumaOK ? uint(block[at(mb * 4u + (y >> 3) * 2u + (mx >> 3), y & 7u, mx & 7u)]) : FILL_LUMA;
        uint chromaBlock = mb * 4u + (mx >> 3) * 2u + (y >> 3);
        uint cb = noChroma && lumaOK ? NO_CHROMA : cbOK ? uint(block[at(cbStart + chromaBlock, y & 7u, mx & 7u)]) : FILL_CHROMA;
        uint cr = noChroma && lumaOK ? NO_CHROMA : crOK ? uint(block[at(crStart + chromaBlock, y & 7u, mx & 7u)]) : FILL_CHROMA;
        uint alpha16 = 65535u;
        if (alphaBits != 0u) {
            // Alpha is stored raster per slice: 16 rows of the slice's width.
            uint alpha = alphaOK ? uint(int(coefficients.values[alphaBase + unit])) : FILL_ALPHA;
            alpha16 = (alpha << (16 - DEPTH)) | (alpha >> (2 * DEPTH - 16));
        }
        surface.units[outputBase + frameRow * pc.unitsPerRow + px] = uvec2(alpha16 | (widen(luma) << 16), widen(cb) | (widen(cr) << 16));
    }
#else
    uint pairsLog2 = widthLog2 - 1u;
    for (uint unit = t; unit < (16u << pairsLog2); unit += INVOCATIONS) {
        uint x = (unit & ((1u << pairsLog2) - 1u)) * 2u, y = unit >> pairsLog2;
        uint px = sliceX + x;
        uint frameRow = interlaced ? (fieldRow0 + y) * 2u + parity : fieldRow0 + y;
        if (px >= pc.width || frameRow >= pc.height) continue;
        uint mb = x >> 4, mx = x & 15u;
        uint lumaBlock = mb * 4u + (y >> 3) * 2u + (mx >> 3);
        uint y0 = lumaOK ? uint(block[at(lumaBlock, y & 7u, mx & 7u)]) : FILL_LUMA;
        uint y1 = px + 1u >= pc.width ? y0 : lumaOK ? uint(block[at(lumaBlock, y & 7u, (mx + 1u) & 7u)]) : FILL_LUMA;
        uint chromaBlock = mb * 2u + (y >> 3);
        uint cb = noChroma && lumaOK ? NO_CHROMA : cbOK ? uint(block[at(cbStart + chromaBlock, y & 7u, mx >> 1)]) : FILL_CHROMA;
        uint cr = noChroma && lumaOK ? NO_CHROMA : crOK ? uint(block[at(crStart + chromaBlock, y & 7u, mx >> 1)]) : FILL_CHROMA;
        surface.units[outputBase + frameRow * pc.unitsPerRow + px / 2u] = uvec2(widen(cb) | (widen(y0) << 16), widen(cr) | (widen(y1) << 16));
    }
#endif
}
