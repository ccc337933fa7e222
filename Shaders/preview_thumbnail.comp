#version 450
// A `check --previews` thumbnail made where the converted frame lives, so
// that only the thumbnail comes back to the host. One invocation an output
// pixel. The same box filter as the CPU's PreviewImage.downscaled, in
// float32: each output pixel is the area-weighted mean of the source pixels
// its footprint [o·W/w, (o+1)·W/w) covers (a partly covered pixel weighs by
// the fraction covered), colour premultiplied by alpha (clamped to [0, 1]),
// then divided by the mean alpha again (0 where that is 0).
//
// The footprints are measured in integers: in units of 1/w of a source
// pixel, output cell o spans [o·W, (o+1)·W) and source pixel i spans
// [i·w, (i+1)·w), so every overlap is exact and a weight is overlap / W.
// The host keeps W·w below 2^32 (both below 2^16).
//
// Source: RGBA16F (two words a pixel, R|G<<16 then B|A<<16), rows of
// sourceWidth pixels, no padding. Output: RGBA float32 (straight alpha),
// rows of targetWidth pixels; the host rounds it to half floats.

// Bindings and push constants: the host's KernelInterface (ProResGPU/SurfacePasses).
// @interface

// The source cells output cell `o` covers: [first, end).
uvec2 footprint(uint o, uint source, uint target) {
    uint first = o * source / target;
    uint end = min(((o + 1u) * source + target - 1u) / target, source);
    return uvec2(first, end);
}

// Overlap of source cell i with output cell o, in units of 1/target of a source cell.
uint overlap(uint i, uint o, uint source, uint target) {
    return min((i + 1u) * target, (o + 1u) * source) - max(i * target, o * source);
}

void main() {
    uint ox = gl_GlobalInvocationID.x, oy = gl_GlobalInvocationID.y;
    if (ox >= pc.targetWidth || oy >= pc.targetHeight) return;
    uvec2 columns = footprint(ox, pc.sourceWidth, pc.targetWidth);
    uvec2 rows = footprint(oy, pc.sourceHeight, pc.targetHeight);
    vec4 sum = vec4(0.0);  // premultiplied colour, alpha
    for (uint sy = rows.x; sy < rows.y; sy++) {
        float wy = float(overlap(sy, oy, pc.sourceHeight, pc.targetHeight)) / float(pc.sourceHeight);
        vec4 row = vec4(0.0);
        for (uint sx = columns.x; sx < columns.y; sx++) {
            float wx = float(overlap(sx, ox, pc.sourceWidth, pc.targetWidth)) / float(pc.sourceWidth);
            uint p = (sy * pc.sourceWidth + sx) * 2u;
            vec2 rg = unpackHalf2x16(source.words[p]);
            vec2 ba = unpackHalf2x16(source.words[p + 1u]);
            float alpha = clamp(ba.y, 0.0, 1.0) * wx;
            row += vec4(vec3(rg, ba.x) * alpha, alpha);
        }
        sum += row * wy;
    }
    vec3 colour = sum.a > 0.0 ? sum.rgb / sum.a : vec3(0.0);
    thumbnail.pixels[oy * pc.targetWidth + ox] = vec4(colour, sum.a);
}
