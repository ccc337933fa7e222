#version 450
// Chroma key: multiplies the alpha of an RGBA16F frame by how far the
// source pixel's chroma lies from the key's, in the clip's own Cb/Cr plane
// (ChromaKey describes the rule). The chroma comes from the decoded surface
// itself (y416, or v216 with the V216 define), read through the texture
// cache, so the key does not depend on the transfer curve or on the effects
// before it. Only the B | A word of each pixel is read and written.

// Bindings and push constants: the host's KernelInterface (ProResGPU/Effects).
// @interface

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
