#version 450
// One colour-matrix effect (sepia, exposure, saturation) in place on an
// RGBA16F extended linear Display P3 frame: rgb' = M · rgb, alpha untouched.
// The matrix was built on the CPU (ColorMatrixEffects); being linear and
// unclamped, it treats HDR values above 1.0 and negatives like any other.
// The push-constant block mirrors EffectPushConstants.glslMatrix.

layout(local_size_x = 128, local_size_y = 1) in;

// One uvec2 a pixel: R | G << 16, B | A << 16 as half floats.
layout(std430, binding = 0) buffer Pixels { uvec2 pixels[]; } frame;

layout(push_constant, std430) uniform MatrixEffectParameters {
    vec4 column0;       // offset  0: xyz = M column 0
    vec4 column1;       // offset 16: xyz = M column 1
    vec4 column2;       // offset 32: xyz = M column 2
    uint width;         // offset 48: pixels per row
    uint height;        // offset 52: rows
} pc;

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (x >= pc.width || row >= pc.height) return;
    uint i = row * pc.width + x;
    uvec2 p = frame.pixels[i];
    vec2 rg = unpackHalf2x16(p.x);
    vec2 ba = unpackHalf2x16(p.y);
    vec3 rgb = mat3(pc.column0.xyz, pc.column1.xyz, pc.column2.xyz) * vec3(rg, ba.x);
    frame.pixels[i] = uvec2(packHalf2x16(rgb.rg), packHalf2x16(vec2(rgb.b, ba.y)));
}
