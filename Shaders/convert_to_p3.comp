#version 450
// Y'CbCr (Apple y416 or v216, 16-bit MSB-aligned, little-endian) → RGBA16F
// extended linear Display P3 (D65), straight alpha. Nothing is clamped except
// the PQ/HLG signal domain, so HDR values above 1.0 and out-of-gamut values
// below 0 survive. All colour maths was done on the CPU (ConversionSpec);
// this shader only applies the matrices and the transfer curve it is handed.
//
// Built in variants (ShaderCompiler defines): PAIRS, for even widths,
// converts two pixels per invocation with wide loads and a 16-byte store, so
// memory transactions are full, with V216 choosing that layout's reads;
// without PAIRS, one pixel per invocation for any width.

// The variant's buffers (PAIRS: wide loads and 16-byte stores; V216: that
// layout's reads) and the push block come from the host's KernelInterface.
// @interface

const uint TRANSFER_LINEAR = 0u, TRANSFER_BT1886 = 1u, TRANSFER_SRGB = 2u, TRANSFER_PQ = 3u, TRANSFER_HLG = 4u;

// BT.1886 with black 0 is a pure 2.4 power; mirrored below 0 and continued
// above 1 so that footroom, headroom and matrix overshoot survive.
vec3 bt1886(vec3 v) { return sign(v) * pow(abs(v), vec3(2.4)); }

vec3 srgb(vec3 v) {
    vec3 a = abs(v);
    vec3 curve = mix(a / 12.92, pow((a + 0.055) / 1.055, vec3(2.4)), greaterThan(a, vec3(0.04045)));
    return sign(v) * curve;
}

// SMPTE ST 2084: signal in [0, 1] (absolute code range) → nits.
vec3 pq(vec3 v) {
    const float m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
    const float c1 = 3424.0 / 4096.0, c2 = 2413.0 / 4096.0 * 32.0, c3 = 2392.0 / 4096.0 * 32.0;
    vec3 p = pow(clamp(v, 0.0, 1.0), vec3(1.0 / m2));
    return 10000.0 * pow(max(p - c1, 0.0) / (c2 - c3 * p), vec3(1.0 / m1));
}

// BT.2100 HLG: inverse OETF per channel, then the OOTF, which mixes channels
// through the scene luminance.
vec3 hlg(vec3 v, vec3 weights) {
    const float a = 0.17883277, b = 0.28466892, c = 0.55991073;
    vec3 e = clamp(v, 0.0, 1.0);
    vec3 low = e * e / 3.0;
    vec3 high = (exp((e - c) / a) + b) / 12.0;
    vec3 scene = mix(low, high, greaterThan(e, vec3(0.5)));
    float luminance = max(dot(weights, scene), 0.0);
    return pc.hlgPeakLuminance * pow(luminance, pc.hlgSystemGamma - 1.0) * scene;
}

vec4 convert(uint y, uint cb, uint cr, uint alpha) {
    mat3 m = mat3(pc.ycbcrColumn0.xyz, pc.ycbcrColumn1.xyz, pc.ycbcrColumn2.xyz);
    vec3 o = vec3(pc.ycbcrColumn0.w, pc.ycbcrColumn1.w, pc.ycbcrColumn2.w);
    vec3 signal = m * (vec3(y, cb, cr) / 65535.0) + o;
    vec3 linear;
    switch (pc.transfer) {
    case TRANSFER_BT1886: linear = bt1886(signal); break;
    case TRANSFER_SRGB: linear = srgb(signal); break;
    case TRANSFER_PQ: linear = pq(signal) / pc.referenceWhite; break;
    case TRANSFER_HLG:
        linear = hlg(signal, vec3(pc.gamutColumn0.w, pc.gamutColumn1.w, pc.gamutColumn2.w)) / pc.referenceWhite;
        break;
    default: linear = signal; break;
    }
    mat3 g = mat3(pc.gamutColumn0.xyz, pc.gamutColumn1.xyz, pc.gamutColumn2.xyz);
    return vec4(g * linear, float(alpha) / 65535.0);
}

// Clamped to half float's largest finite value: never inf in an output.
uvec2 packed(vec4 rgba) {
    rgba = clamp(rgba, -65504.0, 65504.0);
    return uvec2(packHalf2x16(rgba.rg), packHalf2x16(rgba.ba));
}

#ifdef PAIRS
void main() {
    uint pair = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    uint pairsPerRow = pc.width >> 1;
    if (pair >= pairsPerRow || row >= pc.height) return;
#ifdef V216
    // Both pixels of a v216 pair share its chroma, exactly as the y416
    // packing repeats it, so both layouts convert to identical values.
    uvec2 p = src.pairs[(row * pc.sourceWordsPerRow >> 1) + pair];
    vec4 first = convert(p.x >> 16, p.x & 0xFFFFu, p.y & 0xFFFFu, 0xFFFFu);
    vec4 second = convert(p.y >> 16, p.x & 0xFFFFu, p.y & 0xFFFFu, 0xFFFFu);
#else
    uvec4 q = src.quads[(row * pc.sourceWordsPerRow >> 2) + pair];
    vec4 first = convert(q.x >> 16, q.y & 0xFFFFu, q.y >> 16, q.x & 0xFFFFu);
    vec4 second = convert(q.z >> 16, q.w & 0xFFFFu, q.w >> 16, q.z & 0xFFFFu);
#endif
    dst.pixelPairs[row * pairsPerRow + pair] = uvec4(packed(first), packed(second));
}
#else
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (x >= pc.width || row >= pc.height) return;
    uint y, cb, cr, alpha;
    if (pc.layoutKind == 0u) {
        uint base = row * pc.sourceWordsPerRow + 2u * x;
        uint ay = src.words[base], cbcr = src.words[base + 1u];
        alpha = ay & 0xFFFFu;
        y = ay >> 16;
        cb = cbcr & 0xFFFFu;
        cr = cbcr >> 16;
    } else {
        uint base = row * pc.sourceWordsPerRow + 2u * (x >> 1);
        uint cby0 = src.words[base], cry1 = src.words[base + 1u];
        cb = cby0 & 0xFFFFu;
        cr = cry1 & 0xFFFFu;
        y = (x & 1u) == 0u ? (cby0 >> 16) : (cry1 >> 16);
        alpha = 0xFFFFu;
    }
    dst.pixels[row * pc.width + x] = packed(convert(y, cb, cr, alpha));
}
#endif
