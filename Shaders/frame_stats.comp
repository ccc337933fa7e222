#version 450
// Per-frame picture statistics of packed surfaces (Apple y416 or v216,
// 16-bit MSB-aligned words, little-endian), read where the decoder wrote
// them: Y' min/max/sum, dark Y' samples (at or below blackdetect's
// threshold), alpha at 0 and at its largest code, codes outside the video
// range, for PQ/HLG the light of every GRID_STEP-th pixel of every
// GRID_STEP-th row, and the band's first row of the still grid (StillGrid:
// every 16th sample of each plane's row, two codes a word). The same numbers as PictureSums(frame:range:light:)
// on the unpacked planar frame (FrameUnpacker's mapping: code = word >> shift).
//
// One workgroup reduces one band of ROWS_PER_GROUP rows of one frame
// (gl_WorkGroupID.y) and writes one partial: the host adds the partials in
// 64 bits. The band is small enough that its 32-bit Y' sum cannot overflow
// (the host checks width · ROWS_PER_GROUP · max code < 2^32). The reduction
// runs in shared memory with barriers only, so the result does not depend on
// the subgroup size (lavapipe's is 8).
//
// Compile-time facts: V216 (else y416), ALPHA (y416 only), TRANSFER (0 no
// light, 3 PQ, 4 HLG), GAMUT (count grid pixels out of gamut, GamutMeter,
// with GAMUT_TOLERANCE), ROWS_PER_GROUP, GRID_STEP, STILL_STEP.

// The surfaces, the partials and the push block come from the host's KernelInterface.
// @interface

const uint INVOCATIONS = gl_WorkGroupSize.x;

// One accumulator a field and invocation; reduced in place.
shared uint sharedMin[INVOCATIONS];
shared uint sharedMax[INVOCATIONS];
shared uint sharedSum[INVOCATIONS];
shared uint sharedDark[INVOCATIONS];
shared uint sharedTransparent[INVOCATIONS];
shared uint sharedOpaque[INVOCATIONS];
shared uvec4 sharedOutside[INVOCATIONS];  // luma below, luma above, chroma below, chroma above
shared float sharedPeak[INVOCATIONS];
shared float sharedLight[INVOCATIONS];
shared uint sharedGamut[INVOCATIONS];

uint lumaMin = 0xFFFFFFFFu, lumaMax = 0u, lumaSum = 0u, dark = 0u;
uint transparent = 0u, opaque = 0u;
uvec4 outside = uvec4(0u);
float peak = 0.0, lightSum = 0.0;
uint gamutOutside = 0u;

void addLuma(uint y) {
    lumaMin = min(lumaMin, y);
    lumaMax = max(lumaMax, y);
    lumaSum += y;
    dark += y <= pc.darkThreshold ? 1u : 0u;
    outside.x += y < pc.lumaLow ? 1u : 0u;
    outside.y += y > pc.lumaHigh ? 1u : 0u;
}

void addChroma(uint c) {
    outside.z += c < pc.chromaLow ? 1u : 0u;
    outside.w += c > pc.chromaHigh ? 1u : 0u;
}

// e^t − 1 for |t| ≤ 0.18, from its series to t^6 (the rest is below 1e-8
// relative): no cancellation, unlike exp(t) − 1.
vec3 expm1Small(vec3 t) {
    return t * (1.0 + t * (1.0 / 2.0 + t * (1.0 / 6.0 + t * (1.0 / 24.0 + t * (1.0 / 120.0 + t * (1.0 / 720.0))))));
}

// SMPTE ST 2084 EOTF, signal clamped to [0, 1] → nits (TransferFunction.pqEOTF):
// 10000 · (max(p − c1, 0) / (c2 − c3 · p))^(1/m1), p = E^(1/m2).
// Both differences cancel: p − c1 near black (p is then within a few
// percent of c1) and c2 − c3 · p near the top (c2 − c3 = 0.164, c3 = 18.7),
// so computed from a rounded p they would carry its error many times over
// (and the outer power multiplies that by 1/m1 ≈ 6.3). Instead both small
// quantities come straight from l = log2 p = log2(E) / m2, which is in
// [log2 c1, 0] = [−0.26, 0] wherever the result is not 0:
//     p − c1 = c1 · (2^(l − log2 c1) − 1)
//     c2 − c3 · p = (c2 − c3) + c3 · (1 − 2^l)     (two positive terms)
vec3 pq(vec3 signal) {
    const float m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
    const float c1 = 3424.0 / 4096.0, c3 = 2392.0 / 4096.0 * 32.0;
    const float c2MinusC3 = 0.1640625;           // (2413 − 2392) / 128, exact
    const float log2C1 = -0.25853301359885306;   // log2(3424 / 4096)
    const float ln2 = 0.6931471805599453;
    // E = 0 has no logarithm; any tiny E gives p < c1, hence 0, as E = 0 does.
    vec3 l = log2(max(clamp(signal, 0.0, 1.0), 1e-30)) / m2;
    vec3 aboveC1 = c1 * expm1Small(max(l - log2C1, 0.0) * ln2);
    vec3 belowOne = -expm1Small(max(l, log2C1) * ln2);
    return 10000.0 * pow(aboveC1 / (c2MinusC3 + c3 * belowOne), vec3(1.0 / m1));
}

// BT.2100 HLG inverse OETF then the OOTF for the nominal display (nits),
// TransferFunction.hlgInverseOETF + hlgOOTF.
vec3 hlg(vec3 signal) {
    const float a = 0.17883277, b = 1.0 - 4.0 * 0.17883277, c = 0.55991073;
    vec3 e = clamp(signal, 0.0, 1.0);
    vec3 low = e * e / 3.0;
    vec3 high = (exp((e - c) / a) + b) / 12.0;
    vec3 scene = mix(low, high, greaterThan(e, vec3(0.5)));
    vec3 weights = vec3(pc.matrixRow0.w, pc.matrixRow1.w, pc.matrixRow2.w);
    float luminance = dot(weights, scene);
    return pc.hlgPeakLuminance * pow(luminance, pc.hlgSystemGamma - 1.0) * scene;
}

// R'G'B' of one pixel, as LightLevelMeter.nits and GamutMeter have it: the
// codes are de-quantised by exact integer subtraction before one rounding
// division (not the converter's M · code/65535 + o, whose offset cancels
// most of the value near black).
vec3 nonLinear(uint y, uint cb, uint cr) {
    // yBlack, yExcursion, cCentre, cExcursion in 16-bit MSB-aligned codes,
    // as CodeQuantisation has them; integers below 2^24, so exact in float.
    vec4 q = pc.quantisation;
    vec3 codes = vec3(uvec3(y, cb, cr) << pc.shift);
    vec3 n = vec3((codes.x - q.x) / q.y, (codes.y - q.z) / q.w, (codes.z - q.z) / q.w);
    return vec3(dot(pc.matrixRow0.xyz, n), dot(pc.matrixRow1.xyz, n), dot(pc.matrixRow2.xyz, n));
}

#if TRANSFER != 0
float nits(vec3 signal) {
#if TRANSFER == 3  // PQ
    vec3 linear = pq(signal);
#else
    vec3 linear = hlg(signal);
#endif
    return max(max(linear.x, linear.y), max(linear.z, 0.0));
}
#endif

// One pixel of the light grid: its light and whether it is out of gamut.
void addGridPixel(uint y, uint cb, uint cr) {
#if TRANSFER != 0 || defined(GAMUT)
    vec3 signal = nonLinear(y, cb, cr);
#endif
#if TRANSFER != 0
    float light = nits(signal);
    peak = max(peak, light);
    lightSum += light;
#endif
#ifdef GAMUT
    bool outside = any(lessThan(signal, vec3(-GAMUT_TOLERANCE))) || any(greaterThan(signal, vec3(1.0 + GAMUT_TOLERANCE)));
    gamutOutside += outside ? 1u : 0u;
#endif
}

void measureRow(uint frameBase, uint row) {
    uint base = frameBase + row * pc.wordsPerRow;
    bool gridRow = row % GRID_STEP == 0u;
#ifdef V216
    // Pair k: Cb | Y'0 << 16, Cr | Y'1 << 16. The planar frame has one Cb
    // and one Cr a pair, and Y'1 only when 2k + 1 < width.
    uint pairs = (pc.width + 1u) >> 1;
    for (uint k = gl_LocalInvocationID.x; k < pairs; k += INVOCATIONS) {
        uint cby0 = surfaces.words[base + 2u * k], cry1 = surfaces.words[base + 2u * k + 1u];
        uint y0 = (cby0 >> 16) >> pc.shift, cb = (cby0 & 0xFFFFu) >> pc.shift, cr = (cry1 & 0xFFFFu) >> pc.shift;
        addLuma(y0);
        if (2u * k + 1u < pc.width) addLuma((cry1 >> 16) >> pc.shift);
        addChroma(cb);
        addChroma(cr);
        // Grid columns are multiples of GRID_STEP (even): always Y'0.
        if (gridRow && (2u * k) % GRID_STEP == 0u) addGridPixel(y0, cb, cr);
    }
#else
    // Pixel x: A | Y' << 16, Cb | Cr << 16.
    for (uint x = gl_LocalInvocationID.x; x < pc.width; x += INVOCATIONS) {
        uint ay = surfaces.words[base + 2u * x], cbcr = surfaces.words[base + 2u * x + 1u];
        uint y = (ay >> 16) >> pc.shift, cb = (cbcr & 0xFFFFu) >> pc.shift, cr = (cbcr >> 16) >> pc.shift;
        addLuma(y);
        addChroma(cb);
        addChroma(cr);
#ifdef ALPHA
        uint alpha = (ay & 0xFFFFu) >> pc.shift;
        transparent += alpha == 0u ? 1u : 0u;
        opaque += alpha >= pc.alphaMax ? 1u : 0u;
#endif
        if (gridRow && x % GRID_STEP == 0u) addGridPixel(y, cb, cr);
    }
#endif
}

// The still grid's row: Y' every STILL_STEP-th sample, then Cb, Cr (4:2:2
// rows half as wide) and alpha likewise.
uint gridLuma() { return (pc.width + STILL_STEP - 1u) / STILL_STEP; }
uint gridChroma() {
#ifdef V216
    return ((pc.width + 1u) / 2u + STILL_STEP - 1u) / STILL_STEP;
#else
    return gridLuma();
#endif
}
uint gridSamples() {
#ifdef ALPHA
    return 2u * gridLuma() + 2u * gridChroma();
#else
    return gridLuma() + 2u * gridChroma();
#endif
}

// Sample s of the grid row that starts at word `base`.
uint gridSample(uint base, uint s) {
    uint luma = gridLuma(), chroma = gridChroma();
    uint plane = s < luma ? 0u : s < luma + chroma ? 1u : s < luma + 2u * chroma ? 2u : 3u;
    uint before = plane == 0u ? 0u : plane == 3u ? luma + 2u * chroma : luma + (plane - 1u) * chroma;
    uint x = (s - before) * STILL_STEP;
#ifdef V216
    // Luma x is even: Y'0 of pair x/2; chroma x is its own pair.
    if (plane == 0u) return (surfaces.words[base + x] >> 16) >> pc.shift;
    return (surfaces.words[base + 2u * x + plane - 1u] & 0xFFFFu) >> pc.shift;
#else
    uint ay = surfaces.words[base + 2u * x], cbcr = surfaces.words[base + 2u * x + 1u];
    uint word = plane == 0u ? ay >> 16 : plane == 1u ? cbcr & 0xFFFFu : plane == 2u ? cbcr >> 16 : ay & 0xFFFFu;
    return word >> pc.shift;
#endif
}

// The band's first row is a still grid row (ROWS_PER_GROUP is the grid's
// row step): its samples, two a word, after the partial's first four uvec4s.
void writeGrid(uint frameBase, uint band, uint at) {
    uint base = frameBase + band * ROWS_PER_GROUP * pc.wordsPerRow;
    uint samples = gridSamples();
    for (uint w = gl_LocalInvocationID.x; 2u * w < samples; w += INVOCATIONS) {
        uint low = gridSample(base, 2u * w);
        uint high = 2u * w + 1u < samples ? gridSample(base, 2u * w + 1u) : 0u;
        partials.words[at + 4u + w / 4u][w % 4u] = low | high << 16;
    }
}

void main() {
    uint frame = gl_WorkGroupID.y;
    uint band = gl_WorkGroupID.x;
    uint frameBase = frame * pc.frameStrideWords;
    uint lastRow = min(pc.height, (band + 1u) * ROWS_PER_GROUP);
    for (uint row = band * ROWS_PER_GROUP; row < lastRow; row++) measureRow(frameBase, row);
    // The partial's uvec4s (FrameStatisticsPass.Partial).
    uint at = (4u + (gridSamples() + 7u) / 8u) * (frame * gl_NumWorkGroups.x + band);
    writeGrid(frameBase, band, at);

    uint i = gl_LocalInvocationID.x;
    sharedMin[i] = lumaMin;
    sharedMax[i] = lumaMax;
    sharedSum[i] = lumaSum;
    sharedDark[i] = dark;
    sharedTransparent[i] = transparent;
    sharedOpaque[i] = opaque;
    sharedOutside[i] = outside;
    sharedPeak[i] = peak;
    sharedLight[i] = lightSum;
    sharedGamut[i] = gamutOutside;
    barrier();
    for (uint span = INVOCATIONS >> 1; span > 0u; span >>= 1) {
        if (i < span) {
            sharedMin[i] = min(sharedMin[i], sharedMin[i + span]);
            sharedMax[i] = max(sharedMax[i], sharedMax[i + span]);
            sharedSum[i] += sharedSum[i + span];
            sharedDark[i] += sharedDark[i + span];
            sharedTransparent[i] += sharedTransparent[i + span];
            sharedOpaque[i] += sharedOpaque[i + span];
            sharedOutside[i] += sharedOutside[i + span];
            sharedPeak[i] = max(sharedPeak[i], sharedPeak[i + span]);
            sharedLight[i] += sharedLight[i + span];
            sharedGamut[i] += sharedGamut[i + span];
        }
        barrier();
    }
    if (i == 0u) {
        partials.words[at] = uvec4(sharedMin[0], sharedMax[0], sharedSum[0], sharedDark[0]);
        partials.words[at + 1u] = uvec4(sharedTransparent[0], sharedOpaque[0],
                                        floatBitsToUint(sharedPeak[0]), floatBitsToUint(sharedLight[0]));
        partials.words[at + 2u] = sharedOutside[0];
        partials.words[at + 3u] = uvec4(sharedGamut[0], 0u, 0u, 0u);
    }
}
