#version 450
// ProRes entropy decoding (SMPTE RDD 36 §7.1): one invocation per slice and
// component (Y', Cb, Cr, alpha), over a batch of frames. Writes the quantised
// coefficients into the slice's region of the coefficient buffer in the
// order they are coded (scan position × blocks + block, zeros included), or,
// for alpha, the final alpha samples in raster order. Failures are flagged
// per slice and component; the transform pass does not read a failed one.
//
// Each invocation writes its region front to back, a whole 32-byte sector
// at a time (alpha: 16 bytes): scattered 2-byte stores into a zeroed buffer
// made the memory system read back and merge sectors, which cost more than
// the decoding itself.
//
// Bit-exactness with FFmpeg's software decoder goes down to the bit reader:
// like its (64-bit window) reader, each codeword starts from the next 32
// bits, escape codes longer than 31 bits are errors, the read position stops
// 8 bits past the component's end, and values are stored as 16-bit integers
// (wrapping), so damaged slices fail, or decode to garbage, as they do there.
// An alpha sample's flag, difference and continuation bit, read one at a
// time there, are read here in one consume: the same bits, as they are
// merged only where no read but the last can reach that stopping point.
//
// The host (SliceTable) has already validated every slice header and size:
// positions are bounded, every loop here is bounded by the block count.

// Facts of the stream (CHROMA444 0 or 1, DEPTH 10 or 12), the buffers, and
// the slice and frame table accessors come from the host's KernelInterface.
// @interface

// Codebooks (rice order << 5 | exp-Golomb order << 2 | switch bits), chosen
// by the previous value with compares rather than table loads: the choice is
// on the serial path of every codeword. What is chosen is the codebook's
// entry, the constants `codeword` needs worked out beforehand (bytes, low
// first): switch bits, exp-Golomb order - switch bits (signed), rice order,
// and the exp-Golomb value's offset from its code bits (signed).
#define ENTRY(cb) (((cb) & 3u) | (((((cb) >> 2) & 7u) - ((cb) & 3u)) & 0xFFu) << 8 | ((cb) >> 5) << 16 \
                   | (((((cb) & 3u) + 1u) << ((cb) >> 5)) - (1u << (((cb) >> 2) & 7u))) << 24)
// `level` is a code + 1, never 0 (codes do not wrap), and the chains' last
// case takes every larger value: no clamp.
uint runEntry(uint run) {
    return run < 2u ? ENTRY(0x06u) : run < 4u ? ENTRY(0x05u) : run == 4u ? ENTRY(0x04u)
         : run < 9u ? ENTRY(0x29u) : run < 15u ? ENTRY(0x28u) : ENTRY(0x4Cu);
}
uint levelEntry(uint level) {
    return level == 1u ? ENTRY(0x0Au) : level == 2u ? ENTRY(0x05u) : level == 3u ? ENTRY(0x06u)
         : level == 4u ? ENTRY(0x04u) : level < 9u ? ENTRY(0x28u) : ENTRY(0x4Cu);
}
uint dcEntry(uint code) {
    return code == 0u ? ENTRY(0x04u) : code < 3u ? ENTRY(0x28u) : code < 5u ? ENTRY(0x4Du) : ENTRY(0x70u);
}
const uint FIRST_DC_ENTRY = ENTRY(0xB8u);
const uint MAX_CODE_BITS = 31u;

// Coefficients go out front to back, 16 at a time: each group of 32 bytes,
// one whole memory sector, is two back-to-back 16-byte stores, zeros
// included. A sector written in two halves at different times made the
// memory system merge partial sectors (16 at a time: 103 µs a 4K HQ frame
// on the H200; 32: 74 µs). `base` in groups of 8 values (a region starts
// on a multiple of 64); positions only ever increase.
//
// The pending group lives in shared memory, 8 words per invocation, word k
// of invocation i at k * 64 + i (no bank conflicts): a coefficient is one
// read-modify-write at its word instead of a compare and select per lane of
// a register group. Each invocation only touches its own words.
shared uint staged[8u * gl_WorkGroupSize.x];

struct Writer { uint base; uint group; };

uint stagedWord(uint word) { return word * gl_WorkGroupSize.x + gl_LocalInvocationIndex; }

void storeSector(uint base, uint group, uvec4 lo, uvec4 hi) {
    coefficients.groups[base + 2u * group] = lo;
    coefficients.groups[base + 2u * group + 1u] = hi;
}

// Stores the pending group and clears it for the next.
void flush(Writer w) {
    uvec4 lo = uvec4(staged[stagedWord(0u)], staged[stagedWord(1u)], staged[stagedWord(2u)], staged[stagedWord(3u)]);
    uvec4 hi = uvec4(staged[stagedWord(4u)], staged[stagedWord(5u)], staged[stagedWord(6u)], staged[stagedWord(7u)]);
    storeSector(w.base, w.group, lo, hi);
    for (uint k = 0u; k < 8u; k++) staged[stagedWord(k)] = 0u;
}

void put(inout Writer w, uint position, int value) {
    uint group = position >> 4;
    if (group != w.group) {
        flush(w);
        for (uint g = w.group + 1u; g < group; g++) storeSector(w.base, g, uvec4(0u), uvec4(0u));
        w.group = group;
    }
    staged[stagedWord((position >> 1) & 7u)] |= (uint(value) & 0xFFFFu) << ((position & 1u) << 4);
}

// Stores the last group and zeros up to the region's end (`values` long).
void finish(inout Writer w, uint values) {
    flush(w);
    for (uint g = w.group + 1u; g < (values >> 4); g++) storeSector(w.base, g, uvec4(0u), uvec4(0u));
}

// Alpha samples are dense (every position written), so they keep groups
// of 8: 16 cost the alpha pass 19% on the H200 (170 to 203 µs a 4K frame).
// Dense and in order, they need no lane selects: a sample shifts into
// `pair` from the top, an odd one's completed pair shifts into `pending`
// from the back, and the group's last stores it. A region holds a whole
// number of groups (256 samples a macroblock), so the last sample stores
// the last group.
struct AlphaWriter { uint base; uint pair; uvec4 pending; };

void putAlpha(inout AlphaWriter w, uint position, uint value) {
    w.pair = (w.pair >> 16) | (value << 16);
    if ((position & 1u) != 0u) {
        w.pending = uvec4(w.pending.yzw, w.pair);
        if ((position & 7u) == 7u) coefficients.groups[w.base + (position >> 3)] = w.pending;
    }
}

uint byteSwap(uint x) {
    return (x << 24) | ((x & 0xFF00u) << 8) | ((x >> 8) & 0xFF00u) | (x >> 24);
}

// Word w of the bitstream, big-endian. The host pads the bitstream; the
// clamp only keeps a forged offset inside the buffer.
uint loadWord(uint w) {
    return byteSwap(bitstream.bytes[min(w, uint(bitstream.bytes.length()) - 1u)]);
}

// The bit reader of one component streams aligned words through a 64-bit
// window (hi:lo, first bit in hi's top bit): one load per 32 bits consumed
// instead of several per codeword. Between codewords the window holds at
// least 32 bits from `index`, and zeros after its `avail` valid bits.
// `index` counts bits from the component's start and stops at `limit`
// (its size + 8 bits), as FFmpeg's does; the window then restarts there.
struct Reader { uint hi; uint lo; uint avail; uint nextWord; uint index; uint limit; uint sizeBits; uint start; };

void reposition(inout Reader r, uint position) {
    r.index = position;
    uint word = (r.start >> 2) + (position >> 5);
    uint shift = (r.start & 3u) * 8u + (position & 31u);
    word += shift >> 5;
    shift &= 31u;
    r.hi = loadWord(word);
    r.lo = loadWord(word + 1u);
    if (shift != 0u) {
        r.hi = (r.hi << shift) | (r.lo >> (32u - shift));
        r.lo <<= shift;
    }
    r.avail = 64u - shift;
    r.nextWord = word + 2u;
}

// Consumes n bits (n <= 32, or up to 63 that the window holds: n <= avail)
// and tops the window up to at least 32 bits.
void consume(inout Reader r, uint n) {
    uint next = r.index + n;
    if (next >= r.limit) { reposition(r, r.limit); return; }
    r.index = next;
    uint s = n & 31u;
    uint hi = (r.hi << s) | ((r.lo >> 1) >> (31u - s));
    uint lo = r.lo << s;
    r.hi = n >= 32u ? lo : hi;
    r.lo = n >= 32u ? 0u : lo;
    r.avail -= n;
    if (r.avail < 32u) {
        uint word = loadWord(r.nextWord++);
        r.hi |= word >> r.avail;
        r.lo = (word << 1) << (31u - r.avail);
        r.avail += 32u;
    }
}

// consume where the caller knows index + n stays below the limit.
void advance(inout Reader r, uint n) {
    r.index += n;
    uint s = n & 31u;
    uint hi = (r.hi << s) | ((r.lo >> 1) >> (31u - s));
    uint lo = r.lo << s;
    r.hi = n >= 32u ? lo : hi;
    r.lo = n >= 32u ? 0u : lo;
    r.avail -= n;
    if (r.avail < 32u) {
        uint word = loadWord(r.nextWord++);
        r.hi |= word >> r.avail;
        r.lo = (word << 1) << (31u - r.avail);
        r.avail += 32u;
    }
}

int toInt16(int v) { return (v << 16) >> 16; }

// One adaptive Rice / exp-Golomb codeword from the top of `window` (32
// bits): returns its length, 0 for an escape longer than 31 bits (an error,
// as in FFmpeg; an all-zero window counts 32 leading zeros, longer still).
// Both codes are evaluated and one is selected, so the invocations of a
// subgroup do not diverge on the code type. `top` is the code's bits; a
// Rice code's are its terminating 1, worth 1 << rice order, and suffix.
uint codeword(uint window, uint entry, out uint value) {
    uint q = 31u - uint(findMSB(window));
    bool expGolomb = q > (entry & 0xFFu);
    uint riceOrder = (entry >> 16) & 0xFFu;
    uint bits = expGolomb ? 2u * q + uint(int(entry << 16) >> 24) : q + riceOrder + 1u;
    if (bits > MAX_CODE_BITS) { value = 0u; return 0u; }
    uint top = window >> (32u - bits);
    value = top + (expGolomb ? uint(int(entry) >> 24) : (q - 1u) << riceOrder);
    return bits;
}

bool decodeCoefficients(inout Reader r, inout Writer w, uint log2Blocks) {
    uint blocks = 1u << log2Blocks;
    uint code;
    uint bits = codeword(r.hi, FIRST_DC_ENTRY, code);
    if (bits == 0u) return false;
    consume(r, bits);
    int dc = toInt16(int(code >> 1) ^ -int(code & 1u));
    put(w, 0u, dc);
    code = 5u;
    int sign = 0;
    for (uint block = 1u; block < blocks; block++) {
        bits = codeword(r.hi, dcEntry(code), code);
        if (bits == 0u) return false;
        consume(r, bits);
        if (code != 0u) sign ^= -int(code & 1u); else sign = 0;
        dc = toInt16(dc + ((int((code + 1u) >> 1) ^ sign) - sign));
        put(w, block, dc);
    }

    uint maxPosition = 64u << log2Blocks;
    uint blockMask = blocks - 1u;
    uint run = 4u, level = 2u;
    // FFmpeg tests for the end of the data on its 32-bit cache as the last
    // level's sign left it: shifted, with zeros after the bits still valid.
    // `lastLevelBits`: that level's length (~0 before the first: 32 bits).
    uint lastLevelBits = ~0u;
    for (uint position = blockMask;;) {
        int bitsLeft = int(r.sizeBits) - int(r.index);
        if (bitsLeft < 32) {
            if (bitsLeft <= 0) break;
            uint n = min(uint(bitsLeft), 31u - lastLevelBits);
            if (n == 0u || (r.hi >> (32u - n)) == 0u) break;
        }
        bits = codeword(r.hi, runEntry(run), run);
        if (bits == 0u) return false;
        position += run + 1u;
        if (position >= maxPosition) return false;
        // The level's codeword is read from the window past the run's, and
        // both go in one consume: a consume and its refill fewer on the
        // serial path of every coefficient. That reads the same bits where
        // the window holds the level and its sign (valid bits beyond them
        // decide nothing: a code whose leading 1 is not among them comes
        // out longer than they are) and the run's consume would not have
        // reached the limit (it restarts the window there); otherwise the
        // run is consumed first, as before. The state after both is the
        // same either way, so the end test above sees what it did.
        uint window = (r.hi << bits) | ((r.lo >> 1) >> (31u - bits));
        // Where the level, its sign and the run all end below the limit, the
        // one consume cannot reach it and skips the test (otherwise the run
        // is consumed first, and the level's consume stops at the limit).
        uint levelBits = codeword(window, levelEntry(level), code);
        uint total = bits + levelBits + 1u;
        int negative = -int((window << levelBits) >> 31);
        if (levelBits != 0u && total <= r.avail && r.index + total < r.limit) {
            advance(r, total);
        } else {
            consume(r, bits);
            window = r.hi;
            levelBits = codeword(window, levelEntry(level), code);
            if (levelBits == 0u) return false;
            negative = -int((window << levelBits) >> 31);
            consume(r, levelBits + 1u);
        }
        level = code + 1u;
        lastLevelBits = levelBits;
        put(w, position, (int(level) ^ negative) - negative);
    }
    finish(w, maxPosition);
    return true;
}

// Alpha samples at the decoder's precision.
uint alphaSample(uint alpha, uint bits) {
    return bits == 16u ? (DEPTH == 12 ? alpha >> 4 : alpha >> 6)
                       : (DEPTH == 12 ? (alpha << 4) | (alpha >> 4) : (alpha << 2) | (alpha >> 6));
}

// A run's samples go out a whole group at a time where they cover one (the
// samples after them refill `pending` before its next store).
void fillAlpha(inout AlphaWriter w, uint position, uint count, uint value) {
    uint end = position + count;
    for (; position < end && (position & 7u) != 0u; position++) putAlpha(w, position, value);
    for (; position + 8u <= end; position += 8u) coefficients.groups[w.base + (position >> 3)] = uvec4(value | (value << 16));
    for (; position < end; position++) putAlpha(w, position, value);
}

// Alpha (RDD 36 §7.1.2 scanned alpha): differences and run lengths, written
// as final samples at the decoder's precision.
//
// FFmpeg reads a sample's flag, difference and continuation bit one at a
// time; here they come from one window and go in one consume (at most 18
// bits, as do a run's 4 + 11). That reads the same bits unless a read
// before the last reaches the limit, where consume restarts the window at
// the limit rather than where the read ended: the first read (flag, or the
// run's 4 bits) is then consumed alone and the rest read after the restart.
// The continuation bit is only read below sizeBits, so it never follows a
// restart.
void decodeAlpha(inout Reader r, inout AlphaWriter w, uint count, uint bits) {
    uint mask = (1u << bits) - 1u;
    uint shortBits = bits == 16u ? 7u : 4u;
    uint alpha = mask;
    uint index = 0u;
    for (;;) {
        // `done`: the bits of `window` already consumed.
        uint window = r.hi;
        uint done = 0u;
        if (r.index + 1u >= r.limit) {
            consume(r, 1u);
            window = (window & 0x80000000u) | (r.hi >> 1);
            done = 1u;
        }
        bool literal = (window >> 31) != 0u;
        uint valueBits = literal ? bits : shortBits;
        uint v = (window << 1) >> (32u - valueBits);
        int magnitude = int((v + 2u) >> 1);
        int difference = literal ? int(v) : (v & 1u) != 0u ? -magnitude : magnitude;
        alpha = uint(int(alpha) + difference) & mask;
        putAlpha(w, index, alphaSample(alpha, bits));
        index++;
        if (index >= count) break;
        uint taken = 1u + valueBits;
        uint pending = taken - done;
        uint continuation = r.index + pending < r.sizeBits ? 1u : 0u;
        bool more = continuation != 0u && ((window << taken) >> 31) != 0u;
        consume(r, pending + continuation);
        if (more) continue;

        window = r.hi;
        done = 0u;
        if (r.index + 4u >= r.limit) {
            consume(r, 4u);
            window = (window & 0xF0000000u) | (r.hi >> 4);
            done = 4u;
        }
        uint run = window >> 28;
        taken = 4u;
        if (run == 0u) {
            run = (window << 4) >> 21;
            taken = 15u;
        }
        consume(r, taken - done);
        run = min(run, count - index);
        fillAlpha(w, index, run, alphaSample(alpha, bits));
        index += run;
        if (index >= count) break;
    }
}

void main() {
    // Components are the slowest-varying dimension, the longest first (alpha,
    // then Y' with twice a 4:2:2 chroma component's coefficients): GPUs start
    // workgroups in index order, so the short ones run last and fill in
    // beside the stragglers instead of the other way round.
    uint frame = gl_WorkGroupID.y;
    uint component = gl_NumWorkGroups.z == 4u ? (gl_WorkGroupID.z + 3u) & 3u : gl_WorkGroupID.z;
    uint firstSlice = frameFirstSlice(frame);
    uint sliceCount = frameSliceCount(frame);
    uint alphaBits = frameAlphaBits(frame);
    uint local = gl_GlobalInvocationID.x;
    if (local >= sliceCount) return;
    uint slice = firstSlice + local;
    Slice s = loadSlice(slice);
    if (sliceValid(s) == 0u) return;  // header rejected on the host

    uint headerSize = sliceHeaderSize(s);
    uint log2Mbs = sliceLog2Macroblocks(s);
    uint sizes[4] = uint[4](sliceLumaSize(s), sliceCbSize(s), sliceCrSize(s), sliceAlphaSize(s));
    if (component == 3u && (alphaBits == 0u || sizes[3] == 0u)) return;
    if (component == 1u || component == 2u) {
        if (sizes[1] + sizes[2] == 0u) return;  // no chroma: a constant, written by the IDCT pass
    }
    uint start = sliceBitstreamOffset(s) + headerSize;
    for (uint c = 0u; c < component; c++) start += sizes[c];
    uint sizeBits = sizes[component] * 8u;
    Reader r = Reader(0u, 0u, 0u, 0u, 0u, sizeBits + 8u, sizeBits, start);
    reposition(r, 0u);

    uint lumaBlocksLog2 = log2Mbs + 2u;
    uint chromaBlocksLog2 = log2Mbs + (CHROMA444 != 0 ? 2u : 1u);
    uint base = sliceFirstCoefficient(s);
    if (component >= 1u) base += 64u << lumaBlocksLog2;
    if (component >= 2u) base += 64u << chromaBlocksLog2;
    if (component == 3u) base += 64u << chromaBlocksLog2;
    bool ok = true;
    if (component == 3u) {
        AlphaWriter w = AlphaWriter(base >> 3, 0u, uvec4(0u));
        decodeAlpha(r, w, 256u << log2Mbs, alphaBits == 2u ? 16u : 8u);
    } else {
        Writer w = Writer(base >> 3, 0u);
        for (uint k = 0u; k < 8u; k++) staged[stagedWord(k)] = 0u;
        ok = decodeCoefficients(r, w, component == 0u ? lumaBlocksLog2 : chromaBlocksLog2);
    }
    if (!ok) atomicOr(status.flags[slice], 1u << component);
}
