#version 450
// Chroma key: multiplies the alpha of an RGBA16F frame by how far the
// source pixel's chroma lies from the key's, in the clip's own Cb/Cr plane
// (ChromaKey describes the rule). The chroma comes from the decoded surface
// itself (y416, or v216 with the V216 define), read through the texture
// cache, so the key does not depend on the transfer curve or on the effects
// before it. Only the B | A word of each pixel is read and written.
// The push-constant block mirrors EffectPushConstants.glslChromaKey.

layout(local_size_x = 128, local_size_y = 1) in;

// y416: 2 words a pixel (A | Y' << 16, Cb | Cr << 16);
// v216: 2 words a pixel pair (Cb | Y'0 << 16, Cr | Y'1 << 16).
layout(std430, binding = 0) readonly buffer Source { uint words[]; } src;
// RGBA16F as 32-bit words: word 2i + 1 is pixel i's B | A << 16.
layout(std430, binding = 1) buffer Pixels { uint words[]; } frame;

layout(push_constant, std430) uniform ChromaKeyParameters {
    vec4 key;                // offset  0: x = key Cb, y = key Cr, z = tolerance, w = 1 / softness
    float chromaCentre;      // offset 16: code of Cb = Cr = 0
    float chromaScale;       // offset 20: 1 / code span of Cb or Cr from -1/2 to +1/2
    uint width;              // offset 24: pixels per row
    uint height;             // offset 28: rows
    uint sourceWordsPerRow;  // offset 32: 32-bit words per source row
} pc;

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (x >= pc.width || row >= pc.height) return;
#ifdef V216
    uint base = row * pc.sourceWordsPerRow + 2u * (x >> 1);
    vec2 codes = vec2(src.words[base] & 0xFFFFu, src.words[base + 1u] & 0xFFFFu);
#else
    uint cbcr = src.words[row * pc.sourceWordsPerRow + 2u * x + 1u];
    vec2 codes = vec2(cbcr & 0xFFFFu, cbcr >> 16);
#endif
    vec2 chroma = (codes - pc.chromaCentre) * pc.chromaScale;
    float keep = clamp((distance(chroma, pc.key.xy) - pc.key.z) * pc.key.w, 0.0, 1.0);
    uint i = 2u * (row * pc.width + x) + 1u;
    vec2 ba = unpackHalf2x16(frame.words[i]);
    frame.words[i] = packHalf2x16(vec2(ba.x, ba.y * keep));
}
