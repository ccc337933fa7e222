#version 450
// The last pass of `play`: one invocation a pixel of the swapchain image.
// Samples the converted frame (RGBA16F extended linear Display P3, straight
// alpha), nearest, fitted with its display aspect kept (its pixels
// stretched by the sample aspect ratio) and black around it, and
// writes the pixel for the display's colour path into the staging buffer
// the image is copied from:
//   SDR:   negatives to 0, the highlight roll-off of --save-format png on the
//          largest channel, P3 → BT.709, clip to [0,1], alpha over black
//          (linear light), sRGB curve, 8 bits a channel;
//   scRGB: P3 → BT.709, alpha over black, half floats (nothing clipped);
//   PQ:    P3 → BT.2020, alpha over black, PQ with 1.0 = the reference white, 10 bits.
// The matrices come from the host (ColorPrimariesSpec), as in the converter.

// Bindings and push constants: the host's KernelInterface (ProResGPU/Presentation).
// @interface

vec3 rollOff(vec3 rgb) {
    float m = max(rgb.r, max(rgb.g, rgb.b));
    if (m <= 0.75) return rgb;
    float t = 0.75 + 0.25 * (1.0 - exp(-(m - 0.75) / 0.25));
    return rgb * (t / m);
}

vec3 srgbEncode(vec3 v) {
    return mix(12.92 * v, 1.055 * pow(v, vec3(1.0 / 2.4)) - 0.055, greaterThan(v, vec3(0.0031308)));
}

vec3 pqEncode(vec3 y) {
    const float m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    vec3 p = pow(clamp(y, 0.0, 1.0), vec3(m1));
    return pow((c1 + c2 * p) / (1.0 + c3 * p), vec3(m2));
}

uint pack8(vec4 v) {
    uvec4 c = uvec4(round(clamp(v, 0.0, 1.0) * 255.0));
    return pc.redFirst == 1u ? (c.r | c.g << 8 | c.b << 16 | c.a << 24) : (c.b | c.g << 8 | c.r << 16 | c.a << 24);
}

uint pack10(vec3 v) {
    uvec3 c = uvec3(round(clamp(v, 0.0, 1.0) * 1023.0));
    return (pc.redFirst == 1u ? (c.r | c.g << 10 | c.b << 20) : (c.b | c.g << 10 | c.r << 20)) | 3u << 30;
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= pc.targetWidth || y >= pc.targetHeight) return;
    // Black outside the fitted frame.
    vec4 pixel = vec4(0.0, 0.0, 0.0, 0.0);
    int sx = int(floor((float(int(x) - pc.originX) + 0.5) * pc.sourcePerTargetX));
    int sy = int(floor((float(int(y) - pc.originY) + 0.5) * pc.sourcePerTargetY));
    if (sx >= 0 && sy >= 0 && sx < int(pc.sourceWidth) && sy < int(pc.sourceHeight)) {
        uvec2 p = frame.pixels[uint(sy) * pc.sourceWidth + uint(sx)];
        pixel = vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y));
    }
    mat3 toDisplay = transpose(mat3(pc.toDisplay0.xyz, pc.toDisplay1.xyz, pc.toDisplay2.xyz));
    float alpha = clamp(pixel.a, 0.0, 1.0);
    uint i = y * pc.targetWidth + x;
    if (pc.path == 0u) {
        vec3 rgb = clamp(toDisplay * rollOff(max(pixel.rgb, 0.0)), 0.0, 1.0) * alpha;
        target.words[i] = pack8(vec4(srgbEncode(rgb), 1.0));
    } else if (pc.path == 1u) {
        vec3 rgb = toDisplay * pixel.rgb * alpha;
        target.words[2u * i] = packHalf2x16(rgb.rg);
        target.words[2u * i + 1u] = packHalf2x16(vec2(rgb.b, 1.0));
    } else {
        target.words[i] = pack10(pqEncode(toDisplay * pixel.rgb * alpha * pc.pqScale));
    }
}
