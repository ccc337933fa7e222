#version 450
#extension GL_EXT_shader_16bit_storage : require
// ProRes dequantisation, inverse DCT and output: one workgroup per
// macroblock, the macroblocks of a slice next to each other in the dispatch
// (they read the same coefficient region, which the entropy pass stored in
// coded order: scan position × blocks + block), 8 invocations per 8x8 block
// (a row each, then a column each),
// writing the decoder's native packed layout straight into the surface:
// v216 for 4:2:2 (Cb Y'0 Cr Y'1), y416 for 4:4:4 (A Y' Cb Cr), 16-bit
// MSB-aligned.
//
// Bit-exact with FFmpeg's software decoder: the integer IDCT of its ProRes
// path (simple_idct, "extra shift" 10-bit or 12-bit constants), with every
// intermediate stored as a 16-bit integer as there (the products wrap, the
// row pass has its DC-only shortcut, the column pass its +8192 bias), and
// the clip to [4, 2^depth - 5]. Slices the entropy pass could not decode get
// the values FFmpeg leaves there when concealing (video black, neutral
// chroma, opaque), component by component in its order.
//
// Variants (facts of the stream, defined by the host's KernelInterface like
// every binding, push constant and table accessor below it): CHROMA444 1
// (4 chroma blocks a macroblock, y416 output, alpha) or 0 (4:2:2, 2 chroma
// blocks, v216); DEPTH 12 or 10.
// @interface

#if CHROMA444
#define BLOCKS 12u
#define CHROMA_BLOCKS_LOG2 2u
layout(local_size_x = 96) in;
#else
#define BLOCKS 8u
#define CHROMA_BLOCKS_LOG2 1u
layout(local_size_x = 64) in;
#endif

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


// The block samples between the passes. For 4:2:2, sample (x, y) of block
// b lives at sampleIndex(b, x, y): each group of 4 blocks (what a
// 32-invocation subgroup works on in both passes) is 8 rows of 32 words,
// row y holding every block's row y, the blocks' 8-word spans rotated by y
// and the words XOR-swizzled by y. So the row pass's stores (x fixed), the
// column pass's loads and stores (y fixed) and the packing's loads each hit
// 32 different banks; the plain layout (b * 64 + y * 8 + x) made the row
// pass's stores 8-way and the column pass's 4-way bank conflicts. On the
// H200 the transform of a 4K HQ frame went from 59.6 to 55.5 µs, 8K from
// 253 to 239. 4:4:4 keeps the plain layout: its swizzle (rotations that
// differ by 2 for the packing's pairs of blocks) made its transform slower
// there (86 to 96 µs a 4K XQ frame, alpha 98 to 106).
shared int block[BLOCKS * 64u];

#if CHROMA444
uint sampleIndex(uint b, uint x, uint y) { return b * 64u + y * 8u + x; }
#else
// The packing reads 4 rows of luma blocks b and b + 1 (their rows of
// opposite parity share a rotation, told apart by the XOR) or of one chroma
// block.
uint sampleIndex(uint b, uint x, uint y) { return (b >> 2) * 256u + y * 32u + (((b & 3u) + y) & 3u) * 8u + (x ^ y); }
#endif

// Scan position of each coefficient in natural (row-major) order:
// progressive, then interlaced. Copied into shared memory per workgroup.
const uint inverseScans[128] = uint[128](
     0u,  1u,  4u,  5u, 16u, 17u, 21u, 22u,  2u,  3u,  6u,  7u, 18u, 20u, 23u, 28u,
     8u,  9u, 12u, 13u, 19u, 24u, 27u, 29u, 10u, 11u, 14u, 15u, 25u, 26u, 30u, 31u,
    32u, 33u, 37u, 38u, 45u, 46u, 53u, 54u, 34u, 36u, 39u, 44u, 47u, 52u, 55u, 60u,
    35u, 40u, 43u, 48u, 51u, 56u, 59u, 61u, 41u, 42u, 49u, 50u, 57u, 58u, 62u, 63u,
     0u,  2u,  8u, 10u, 32u, 34u, 35u, 41u,  1u,  3u,  9u, 11u, 33u, 36u, 40u, 42u,
     4u,  6u, 12u, 14u, 37u, 39u, 43u, 49u,  5u,  7u, 13u, 15u, 38u, 44u, 48u, 50u,
    16u, 18u, 19u, 25u, 45u, 47u, 51u, 57u, 17u, 20u, 24u, 26u, 46u, 52u, 56u, 58u,
    21u, 23u, 27u, 30u, 53u, 55u, 59u, 62u, 22u, 28u, 29u, 31u, 54u, 60u, 61u, 63u);
shared uint inverseScan[128];
// SLICES_PER_ROW (defined by the host): slices a row of workgroups holds
// (x = slice in the row << log2 macroblocks + macroblock).

int toInt16(int v) { return (v << 16) >> 16; }

uint quantMatrix(uint frame, bool chroma, uint i) {
    uint word = chroma ? frameChromaMatrix(frame, i >> 2) : frameLumaMatrix(frame, i >> 2);
    return (word >> ((i & 3u) * 8u)) & 0xFFu;
}

// Returns whether FFmpeg's x86 SIMD IDCT (10-bit only) may part from this
// row: it adds the rounding as r[0] + 1 in int16 (wrapping at 32767) and
// packs the results saturating where this code, as FFmpeg's C code,
// stores them wrapped.
bool rowTransform(inout int r[8]) {
    bool differs = DEPTH == 10 && r[0] == 32767;
    if ((r[1] | r[2] | r[3] | r[4] | r[5] | r[6] | r[7]) == 0) {
        int dc = toInt16((r[0] + 1) >> 1);
        for (int i = 0; i < 8; i++) r[i] = dc;
        return differs;
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
    int o[8] = int[8](a0 + b0, a1 + b1, a2 + b2, a3 + b3, a3 - b3, a2 - b2, a1 - b1, a0 - b0);
    for (int i = 0; i < 8; i++) {
        int shifted = o[i] >> ROW_SHIFT;
        r[i] = toInt16(shifted);
        differs = differs || (DEPTH == 10 && r[i] != shifted);
    }
    return differs;
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

uint sampleAt(uint blockIndex, uint x, uint y) { return uint(block[sampleIndex(blockIndex, x, y)]); }

uint widen(uint v) { return v << (16 - DEPTH); }

void main() {
    uint frame = gl_WorkGroupID.z;
    uint local = gl_WorkGroupID.y * SLICES_PER_ROW + (gl_WorkGroupID.x >> pc.log2MaxMbs);
    if (local >= frameSliceCount(frame)) return;
    uint slice = frameFirstSlice(frame) + local;
    Slice s = loadSlice(slice);
    uint log2Mbs = sliceLog2Macroblocks(s);
    uint mb = gl_WorkGroupID.x & ((1u << pc.log2MaxMbs) - 1u);
    if (mb >= (1u << log2Mbs)) return;
    for (uint i = gl_LocalInvocationID.x; i < 128u; i += gl_WorkGroupSize.x) inverseScan[i] = inverseScans[i];
    barrier();

    uint flags = status.flags[slice];
    // The host learns of failures from here, not from a copy of `status`
    // after the pass: a copy is transfer work, and the next batch's first
    // barrier would wait for it (and so for this pass) before its entropy
    // decoding could start.
    // OR'd in, as other macroblocks of the slice may set the may-differ
    // bit (16; bits 0-3 are the components that failed).
    if (mb == 0u && gl_LocalInvocationID.x == 0u) atomicOr(report.flags[slice], flags);
    bool lumaOK = sliceValid(s) != 0u && (flags & 1u) == 0u;
    bool cbOK = lumaOK && (flags & 2u) == 0u;
    bool crOK = cbOK && (flags & 4u) == 0u;
    bool noChroma = sliceCbSize(s) + sliceCrSize(s) == 0u;
    uint alphaBits = frameAlphaBits(frame);
    bool alphaOK = crOK && alphaBits != 0u && sliceAlphaSize(s) != 0u;

    uint t = gl_LocalInvocationID.x;
    uint blockIndex = t >> 3, row = t & 7u;
    bool chroma = blockIndex >= 4u;
    bool decoded = chroma ? (blockIndex < 4u + (1u << CHROMA_BLOCKS_LOG2) ? cbOK : crOK) && !noChroma : lumaOK;
    if (decoded) {
        uint qscale = sliceQscale(s);
        uint base = sliceFirstCoefficient(s);
        uint inComponent, log2Blocks;
        if (!chroma) {
            inComponent = (mb << 2) + blockIndex;
            log2Blocks = log2Mbs + 2u;
        } else {
            base += 64u << (log2Mbs + 2u);
            uint c = blockIndex - 4u;
            if (c >= (1u << CHROMA_BLOCKS_LOG2)) {
                base += 64u << (log2Mbs + CHROMA_BLOCKS_LOG2);
                c -= 1u << CHROMA_BLOCKS_LOG2;
            }
            inComponent = (mb << CHROMA_BLOCKS_LOG2) + c;
            log2Blocks = log2Mbs + CHROMA_BLOCKS_LOG2;
        }
        uint scanBase = sliceInterlaced(s) != 0u ? 64u : 0u;
        int r[8];
        for (uint i = 0u; i < 8u; i++) {
            int q = toInt16(int(quantMatrix(frame, chroma, row * 8u + i) * qscale));
            uint position = (inverseScan[scanBase + row * 8u + i] << log2Blocks) + inComponent;
            r[i] = toInt16(int(coefficients.values[base + position]) * q);
        }
        bool differs = rowTransform(r);
        for (uint i = 0u; i < 8u; i++) {
            int stored = row == 0u ? toInt16(r[i] + 8192) : r[i];
            // FFmpeg's x86 SIMD code adds 8192 + 8 in int16 at once; its C
            // code adds the 8 in 32 bits, so only C's sum passes 32767 here.
            differs = differs || (DEPTH == 10 && row == 0u && stored > 32767 - COLUMN_BIAS);
            block[sampleIndex(blockIndex, i, row)] = stored;
        }
        // The host reads it per frame (`decodersMayDiffer`).
        if (differs) atomicOr(report.flags[slice], 16u);
    }
    barrier();
    if (decoded) {
        int c[8];
        for (uint i = 0u; i < 8u; i++) c[i] = block[sampleIndex(blockIndex, row, i)];
        columnTransform(c);
        for (uint i = 0u; i < 8u; i++) block[sampleIndex(blockIndex, row, i)] = c[i];
    }
    barrier();

    uint mbX = sliceColumn(s) + mb;
    uint fieldRow0 = sliceRow(s) << 4;
    bool interlaced = sliceInterlaced(s) != 0u;
    uint parity = sliceFieldParity(s);
    uint outputBase = frameSurfaceOffset(frame);
#if CHROMA444
    uint alphaBase = sliceFirstCoefficient(s) + (64u << (log2Mbs + 2u)) + 2u * (64u << (log2Mbs + 2u));
    uint alphaStride = 16u << log2Mbs;
    for (uint unit = t; unit < 256u; unit += 96u) {
        uint x = unit & 15u, y = unit >> 4;
        uint px = mbX * 16u + x;
        uint frameRow = interlaced ? (fieldRow0 + y) * 2u + parity : fieldRow0 + y;
        if (px >= pc.width || frameRow >= pc.height) continue;
        uint luma = lumaOK ? sampleAt((y >> 3) * 2u + (x >> 3), x & 7u, y & 7u) : FILL_LUMA;
        uint chromaBlock = (x >> 3) * 2u + (y >> 3);
        uint cb = noChroma && lumaOK ? NO_CHROMA : cbOK ? sampleAt(4u + chromaBlock, x & 7u, y & 7u) : FILL_CHROMA;
        uint cr = noChroma && lumaOK ? NO_CHROMA : crOK ? sampleAt(8u + chromaBlock, x & 7u, y & 7u) : FILL_CHROMA;
        uint alpha16 = 65535u;
        if (alphaBits != 0u) {
            uint alpha = alphaOK ? uint(int(coefficients.values[alphaBase + y * alphaStride + mb * 16u + x])) : FILL_ALPHA;
            alpha16 = (alpha << (16 - DEPTH)) | (alpha >> (2 * DEPTH - 16));
        }
        surface.units[outputBase + frameRow * pc.unitsPerRow + px] = uvec2(alpha16 | (widen(luma) << 16), widen(cb) | (widen(cr) << 16));
    }
#else
    for (uint unit = t; unit < 128u; unit += 64u) {
        uint pair = unit & 7u, y = unit >> 3;
        uint px = mbX * 16u + pair * 2u;
        uint frameRow = interlaced ? (fieldRow0 + y) * 2u + parity : fieldRow0 + y;
        if (px >= pc.width || frameRow >= pc.height) continue;
        uint x = pair * 2u;
        uint y0 = lumaOK ? sampleAt((y >> 3) * 2u + (x >> 3), x & 7u, y & 7u) : FILL_LUMA;
        uint y1 = px + 1u >= pc.width ? y0 : lumaOK ? sampleAt((y >> 3) * 2u + ((x + 1u) >> 3), (x + 1u) & 7u, y & 7u) : FILL_LUMA;
        uint cb = noChroma && lumaOK ? NO_CHROMA : cbOK ? sampleAt(4u + (y >> 3), pair, y & 7u) : FILL_CHROMA;
        uint cr = noChroma && lumaOK ? NO_CHROMA : crOK ? sampleAt(6u + (y >> 3), pair, y & 7u) : FILL_CHROMA;
        surface.units[outputBase + frameRow * pc.unitsPerRow + px / 2u] = uvec2(widen(cb) | (widen(y0) << 16), widen(cr) | (widen(y1) << 16));
    }
#endif
}
