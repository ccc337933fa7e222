#version 450
// BLAKE3 chaining values of decoded frames, read straight from the decoder's
// packed surface (v216 for 4:2:2, y416 for 4:4:4; 16-bit words MSB-aligned).
//
// The message hashed is NOT the packed surface: it is the frame's native
// planar bytes, as `--format native` writes them (planes Y', Cb, Cr, [A],
// each plane tight rows of planeWidth samples, 16-bit little-endian
// samples LSB-aligned: word >> (16 - DEPTH)). Each invocation walks its
// 1 KiB chunk (512 samples) of that planar stream, fetching every sample
// from where the packed layout keeps it, so no planar copy is ever made.
//
// One invocation per chunk; a workgroup's GROUP_CHUNKS chunks merge in
// shared memory, pairwise level by level (an odd last node carried up, which
// is BLAKE3's tree), into one subtree CV, written at the workgroup's place in
// the frame's results. The host merges those with BLAKE3.root. When the frame
// is one workgroup there is nothing left for the host to merge, so this
// shader puts ROOT on the frame's final compression itself and the CV it
// writes is the digest.
//
// Variants (the host's KernelInterface): V216 (4:2:2) or not (y416, 4:4:4);
// PLANES 3 or 4 (alpha); DEPTH 10 or 12; GROUP_CHUNKS, the workgroup size.
// PACKED: the message is the packed surface's own bytes instead (what
// `--format v216|y416` writes when that is the decoder's layout): a frame's
// rows are tight (no row padding), so its words are the message in order.
// With MESSAGE_Y416 (a v216 surface) or MESSAGE_V216 (a y416 surface) the
// message is the other layout, as the host's FramePacker makes it: y416 of
// 4:2:2 repeats each chroma pair for both columns, alpha 0xFFFF; v216 of
// 4:4:4 keeps the even columns' chroma, drops alpha, and an odd width's last
// Y'1 repeats its Y'0.
// @interface

const uint CHUNK_START = 1u, CHUNK_END = 2u, PARENT = 4u, ROOT = 8u;
const uint IV[8] = uint[8](0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u, 0xA54FF53Au,
                           0x510E527Fu, 0x9B05688Cu, 0x1F83D9ABu, 0x5BE0CD19u);

uint rotr(uint x, uint n) { return (x >> n) | (x << (32u - n)); }

// BLAKE3's quarter-round G on state words a, b, c, d.
#define G(a, b, c, d, x, y) \
    v[a] += v[b] + (x); v[d] = rotr(v[d] ^ v[a], 16u); v[c] += v[d]; v[b] = rotr(v[b] ^ v[c], 12u); \
    v[a] += v[b] + (y); v[d] = rotr(v[d] ^ v[a], 8u);  v[c] += v[d]; v[b] = rotr(v[b] ^ v[c], 7u);

// The compression function truncated to 8 words: cv becomes the new CV (or,
// with ROOT, the digest). Counters stay below 2^32 chunks (4 TiB frames).
void compress(inout uint cv[8], uint m[16], uint counter, uint blockLength, uint flags) {
    uint v[16] = uint[16](cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
                          IV[0], IV[1], IV[2], IV[3], counter, 0u, blockLength, flags);
    for (int r = 0; r < 7; r++) {
        G(0, 4, 8, 12, m[0], m[1]) G(1, 5, 9, 13, m[2], m[3]) G(2, 6, 10, 14, m[4], m[5]) G(3, 7, 11, 15, m[6], m[7])
        G(0, 5, 10, 15, m[8], m[9]) G(1, 6, 11, 12, m[10], m[11]) G(2, 7, 8, 13, m[12], m[13]) G(3, 4, 9, 14, m[14], m[15])
        // The message permutation: m[i] = old m[σ(i)].
        m = uint[16](m[2], m[6], m[3], m[10], m[7], m[0], m[4], m[13], m[1], m[11], m[12], m[5], m[9], m[14], m[15], m[8]);
    }
    for (int i = 0; i < 8; i++) cv[i] = v[i] ^ v[i + 8];
}

uint planeWidth(uint plane) {
#ifdef V216
    return plane == 0u ? pc.width : (pc.width + 1u) >> 1;
#else
    return pc.width;
#endif
}

// Where plane `plane`'s sample `column` lies in a packed row: word
// stride · column + offset, bits shift..shift+15. v216 pairs are
// Cb | Y'0 << 16, Cr | Y'1 << 16, so Y' c is word c's high half and Cb/Cr c
// the low half of word 2c / 2c + 1 (an odd width's last Y'1 is never asked
// for: it is not in the frame); y416 pixels are A | Y' << 16, Cb | Cr << 16.
uvec3 planeWords(uint plane) {
#ifdef V216
    return plane == 0u ? uvec3(1u, 0u, 16u) : uvec3(2u, plane - 1u, 0u);
#else
    return plane == 0u ? uvec3(2u, 0u, 16u) : plane == 1u ? uvec3(2u, 1u, 0u) : plane == 2u ? uvec3(2u, 1u, 16u) : uvec3(2u, 0u, 0u);
#endif
}

// The planar sample in bits shift..shift+15 of a packed word.
uint sampleOf(uint word, uint shift) { return ((word >> shift) & 0xFFFFu) >> (16u - DEPTH); }

// The planar sample of `plane` at (row, column), from its 16-bit word in the
// packed surface.
uint planarSample(uint frameWord, uint plane, uint row, uint column) {
    uvec3 place = planeWords(plane);
    return sampleOf(surface.words[frameWord + row * pc.wordsPerRow + place.x * column + place.y], place.z);
}

// A position in the planar stream, advanced one sample at a time.
struct Cursor { uint plane, row, column; };

// A whole block (32 samples) from one row of one plane, read without the
// cursor's per-sample bookkeeping: where a chunk's blocks lie for any width
// that is a multiple of 32 (every 4K and HD size), most of them otherwise.
// Where the block's first word is 16-byte aligned (every block of those
// sizes) it comes in 8 loads of 16 bytes (one word a sample) or 16 (every
// other word) through `surfaceQuads`, not 32 of 4: an invocation's loads
// fall on a cache line of their own, and the H200 hashed 4K 422 HQ in ~34
// µs a frame that way against ~64.
void blockFromRow(inout uint m[16], Cursor at, uint frameWord) {
    uvec3 place = planeWords(at.plane);
    uint first = frameWord + at.row * pc.wordsPerRow + place.x * at.column;  // the word (pair) of the block's first sample
    if ((first & 3u) == 0u) {
        uint quad = first >> 2;
        if (place.x == 1u) {
            for (uint q = 0u; q < 8u; q++) {
                uvec4 w = surfaceQuads.quads[quad + q];
                m[2u * q] = sampleOf(w.x, place.z) | (sampleOf(w.y, place.z) << 16);
                m[2u * q + 1u] = sampleOf(w.z, place.z) | (sampleOf(w.w, place.z) << 16);
            }
        } else {
            for (uint q = 0u; q < 16u; q++) {
                uvec4 w = surfaceQuads.quads[quad + q];
                uvec2 pair = place.y == 0u ? w.xz : w.yw;
                m[q] = sampleOf(pair.x, place.z) | (sampleOf(pair.y, place.z) << 16);
            }
        }
        return;
    }
    for (uint i = 0u; i < 16u; i++) {
        uint column = at.column + 2u * i;
        m[i] = planarSample(frameWord, at.plane, at.row, column) | (planarSample(frameWord, at.plane, at.row, column + 1u) << 16);
    }
}

// The next sample; 0 past the last plane (the last block's zero padding).
uint nextSample(inout Cursor at, uint frameWord) {
    if (at.plane >= PLANES) return 0u;
    uint value = planarSample(frameWord, at.plane, at.row, at.column);
    if (++at.column == planeWidth(at.plane)) {
        at.column = 0u;
        if (++at.row == pc.height) { at.row = 0u; at.plane++; }
    }
    return value;
}

// Where chunk `chunk` starts: 512 samples a chunk.
Cursor chunkStart(uint chunk) {
    uint first = chunk * 512u;
    Cursor at = Cursor(0u, 0u, 0u);
    while (at.plane < PLANES && first >= planeWidth(at.plane) * pc.height) {
        first -= planeWidth(at.plane) * pc.height;
        at.plane++;
    }
    uint width = planeWidth(min(at.plane, PLANES - 1u));
    at.row = first / width;
    at.column = first % width;
    return at;
}

#ifdef PACKED
// Word `i` of the frame's packed message (see PACKED above).
uint messageWord(uint frameWord, uint i) {
#if defined(MESSAGE_Y416)
    uint row = i / (2u * pc.width), within = i % (2u * pc.width), x = within >> 1;
    uint base = frameWord + row * pc.wordsPerRow + 2u * (x >> 1);  // the v216 pair holding column x
    return (within & 1u) == 0u ? 0xFFFFu | (surface.words[base + (x & 1u)] & 0xFFFF0000u)
                               : (surface.words[base] & 0xFFFFu) | (surface.words[base + 1u] << 16);
#elif defined(MESSAGE_V216)
    uint rowWords = 2u * ((pc.width + 1u) >> 1);
    uint row = i / rowWords, within = i % rowWords;
    uint x0 = within & ~1u, x1 = min(x0 + 1u, pc.width - 1u);
    uint base = frameWord + row * pc.wordsPerRow;                   // y416: A | Y' << 16, Cb | Cr << 16
    return (within & 1u) == 0u ? (surface.words[base + 2u * x0 + 1u] & 0xFFFFu) | (surface.words[base + 2u * x0] & 0xFFFF0000u)
                               : (surface.words[base + 2u * x0 + 1u] >> 16) | (surface.words[base + 2u * x1] & 0xFFFF0000u);
#else
    return surface.words[frameWord + i];
#endif
}
#endif

shared uint cvs[GROUP_CHUNKS * 8u];

void main() {
    uint local = gl_LocalInvocationID.x, group = gl_WorkGroupID.x, frame = gl_WorkGroupID.y;
    uint frameWord = frame * pc.frameWords;
    uint firstChunk = group * GROUP_CHUNKS;
    uint chunks = min(GROUP_CHUNKS, pc.chunks - firstChunk);  // this workgroup's; the same for all its invocations
    bool onlyGroup = pc.groupsPerFrame == 1u;

    if (local < chunks) {
        uint chunk = firstChunk + local;
        uint chunkLength = min(1024u, pc.frameBytes - chunk * 1024u);
        uint blocks = (chunkLength + 63u) >> 6;
        uint cv[8] = IV;
#ifdef PACKED
        // The message is the packed surface itself, its rows back to back.
        uint firstWord = chunk * 256u;
        uint messageWords = pc.frameBytes / 4u;
        for (uint block = 0u; block < blocks; block++) {
            uint m[16];
            for (uint i = 0u; i < 16u; i++) {
                uint word = firstWord + block * 16u + i;
                m[i] = word < messageWords ? messageWord(frameWord, word) : 0u;
            }
#else
        Cursor at = chunkStart(chunk);
        for (uint block = 0u; block < blocks; block++) {
            uint m[16];
            uint width = planeWidth(min(at.plane, PLANES - 1u));
            if (at.plane < PLANES && at.column + 32u <= width) {
                blockFromRow(m, at, frameWord);
                at.column += 32u;
                if (at.column == width) {
                    at.column = 0u;
                    if (++at.row == pc.height) { at.row = 0u; at.plane++; }
                }
            } else {
                for (int i = 0; i < 16; i++) {
                    uint low = nextSample(at, frameWord);
                    m[i] = low | (nextSample(at, frameWord) << 16);
                }
            }
#endif
            bool last = block == blocks - 1u;
            uint flags = (block == 0u ? CHUNK_START : 0u) | (last ? CHUNK_END : 0u) | (last && pc.chunks == 1u ? ROOT : 0u);
            compress(cv, m, chunk, last ? chunkLength - 64u * block : 64u, flags);
        }
        for (int i = 0; i < 8; i++) cvs[local * 8u + i] = cv[i];
    }

    // Level by level: the node at a multiple of 2·step takes the one `step`
    // after it, if any (else it is carried up as it is). `chunks` is uniform
    // in the workgroup, so every invocation reaches every barrier.
    for (uint step = 1u; step < chunks; step <<= 1) {
        memoryBarrierShared();
        barrier();
        if (local % (2u * step) == 0u && local + step < chunks) {
            uint m[16];
            for (uint i = 0u; i < 16u; i++) m[i] = cvs[local * 8u + i + (i < 8u ? 0u : 8u * step - 8u)];
            bool root = onlyGroup && 2u * step >= chunks;  // the frame's final merge
            uint cv[8] = IV;
            compress(cv, m, 0u, 64u, PARENT | (root ? ROOT : 0u));
            for (int i = 0; i < 8; i++) cvs[local * 8u + i] = cv[i];
        }
    }
    memoryBarrierShared();
    barrier();
    if (local < 8u) results.words[frame * pc.resultWordsPerFrame + group * 8u + local] = cvs[local];
}
