#version 450
// A 3D LUT in place on an RGBA16F extended linear Display P3 frame, with
// tetrahedral interpolation, behind the input shaper LUTEffect documents:
// PQ-encode (1.0 = the reference white) or nothing, then map the domain to
// [0, 1] and clamp (the Cube specification's rule outside the domain), look
// up, and with PQ decode the result. Alpha is untouched.

// Bindings and push constants: the host's KernelInterface (ProResGPU/Effects).
// @interface

const float m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
const float c1 = 3424.0 / 4096.0, c2 = 2413.0 / 4096.0 * 32.0, c3 = 2392.0 / 4096.0 * 32.0;

// ST 2084 inverse EOTF: luminance / 10000 nits in [0, 1] -> signal.
vec3 pqEncode(vec3 y) {
    vec3 p = pow(clamp(y, 0.0, 1.0), vec3(m1));
    return pow((c1 + c2 * p) / (1.0 + c3 * p), vec3(m2));
}

// ST 2084 EOTF: signal in [0, 1] -> luminance / 10000 nits.
vec3 pqDecode(vec3 e) {
    vec3 p = pow(clamp(e, 0.0, 1.0), vec3(1.0 / m2));
    return pow(max(p - c1, 0.0) / (c2 - c3 * p), vec3(1.0 / m1));
}

vec3 entry(uvec3 i) {
    uint k = 3u * (i.r + pc.size * (i.g + pc.size * i.b));
    return vec3(lut.values[k], lut.values[k + 1u], lut.values[k + 2u]);
}

// The lattice cell is split into six tetrahedra along its 000-111 diagonal;
// the order of the three fractions picks the one holding the point. Its
// corners are 000, one step along the largest fraction's axis, one more along
// the second's, and 111; the weights are the differences of the sorted
// fractions.
vec3 tetrahedral(vec3 coordinate) {
    float last = float(pc.size - 1u);
    vec3 position = coordinate * last;
    vec3 cell = min(floor(position), vec3(last - 1.0));
    vec3 f = position - cell;
    uvec3 i = uvec3(cell);
    uvec3 first, second;
    vec3 s;  // the fractions, largest first
    if (f.r >= f.g) {
        if (f.g >= f.b)      { first = uvec3(1, 0, 0); second = uvec3(0, 1, 0); s = f.rgb; }
        else if (f.r >= f.b) { first = uvec3(1, 0, 0); second = uvec3(0, 0, 1); s = f.rbg; }
        else                 { first = uvec3(0, 0, 1); second = uvec3(1, 0, 0); s = f.brg; }
    } else {
        if (f.r >= f.b)      { first = uvec3(0, 1, 0); second = uvec3(1, 0, 0); s = f.grb; }
        else if (f.g >= f.b) { first = uvec3(0, 1, 0); second = uvec3(0, 0, 1); s = f.gbr; }
        else                 { first = uvec3(0, 0, 1); second = uvec3(0, 1, 0); s = f.bgr; }
    }
    return (1.0 - s.x) * entry(i) + (s.x - s.y) * entry(i + first)
         + (s.y - s.z) * entry(i + first + second) + s.z * entry(i + uvec3(1));
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (x >= pc.width || row >= pc.height) return;
    uint index = row * pc.width + x;
    uvec2 p = frame.pixels[index];
    vec2 rg = unpackHalf2x16(p.x);
    vec2 ba = unpackHalf2x16(p.y);
    vec3 shaped = vec3(rg, ba.x);
    if (pc.shaper == 1u) shaped = pqEncode(shaped * pc.inputScale.w);
    vec3 result = tetrahedral(clamp(shaped * pc.inputScale.xyz + pc.inputOffset.xyz, 0.0, 1.0));
    if (pc.shaper == 1u) result = pqDecode(result) * pc.inputOffset.w;
    // A table's values are any finite float32: keep them finite in half float.
    result = clamp(result, -65504.0, 65504.0);
    frame.pixels[index] = uvec2(packHalf2x16(result.rg), packHalf2x16(vec2(result.b, ba.y)));
}
