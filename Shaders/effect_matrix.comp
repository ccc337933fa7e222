#version 450
// One colour-matrix effect (sepia, exposure, saturation) in place on an
// RGBA16F extended linear Display P3 frame: rgb' = M · rgb, alpha untouched.
// The matrix was built on the CPU (ColorMatrixEffects); being linear and
// unclamped, it treats HDR values above 1.0 and negatives like any other.

// Bindings and push constants: the host's KernelInterface (ProResGPU/Effects).
// @interface

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (x >= pc.width || row >= pc.height) return;
    uint i = row * pc.width + x;
    uvec2 p = frame.pixels[i];
    vec2 rg = unpackHalf2x16(p.x);
    vec2 ba = unpackHalf2x16(p.y);
    // Half float's largest finite value: 20 stops of exposure on a PQ highlight
    // is a saturated sample, not inf, in the EXR.
    vec3 rgb = clamp(mat3(pc.column0.xyz, pc.column1.xyz, pc.column2.xyz) * vec3(rg, ba.x), -65504.0, 65504.0);
    frame.pixels[i] = uvec2(packHalf2x16(rgb.rg), packHalf2x16(vec2(rgb.b, ba.y)));
}
