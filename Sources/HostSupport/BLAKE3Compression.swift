// BLAKE3's compression function (BLAKE3 spec §2.2), written from the spec.
// Words live in stored properties and locals, never in arrays or SIMD
// values: nothing allocates, release builds keep the state in registers, and
// debug builds (the tests) avoid SIMD's generic element paths.

#if _endian(big)
    #error("BLAKE3 reads message words in native order: little-endian hosts only")
#endif

/// Eight words: a chaining value (a chunk's or a subtree's), or the key.
struct ChainingValue: Equatable {
    var h0, h1, h2, h3, h4, h5, h6, h7: UInt32

    init(_ h0: UInt32, _ h1: UInt32, _ h2: UInt32, _ h3: UInt32, _ h4: UInt32, _ h5: UInt32, _ h6: UInt32, _ h7: UInt32)
    {
        (self.h0, self.h1, self.h2, self.h3, self.h4, self.h5, self.h6, self.h7) = (h0, h1, h2, h3, h4, h5, h6, h7)
    }

    init(_ v: SIMD8<UInt32>) { self.init(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]) }

    var simd: SIMD8<UInt32> { SIMD8(h0, h1, h2, h3, h4, h5, h6, h7) }

    /// BLAKE3's IV (SHA-256's), the key of unkeyed hashing. Computed, not
    /// stored: a stored static is a lazily initialised global, checked on
    /// every use in the hot loop.
    static var iv: ChainingValue {
        ChainingValue(
            0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19)
    }
}

/// One 64-byte message block as 16 little-endian words; zero bytes past
/// the block's length (the spec pads the last block with zeros).
struct MessageBlock {
    var m0: UInt32 = 0, m1: UInt32 = 0, m2: UInt32 = 0, m3: UInt32 = 0
    var m4: UInt32 = 0, m5: UInt32 = 0, m6: UInt32 = 0, m7: UInt32 = 0
    var m8: UInt32 = 0, m9: UInt32 = 0, m10: UInt32 = 0, m11: UInt32 = 0
    var m12: UInt32 = 0, m13: UInt32 = 0, m14: UInt32 = 0, m15: UInt32 = 0

    /// A parent node's block: the left child's CV, then the right child's.
    init(left l: ChainingValue, right r: ChainingValue) {
        (m0, m1, m2, m3, m4, m5, m6, m7) = (l.h0, l.h1, l.h2, l.h3, l.h4, l.h5, l.h6, l.h7)
        (m8, m9, m10, m11, m12, m13, m14, m15) = (r.h0, r.h1, r.h2, r.h3, r.h4, r.h5, r.h6, r.h7)
    }

    init() {}
}

/// The domain flags (spec Table 3).
enum BLAKE3Flag {
    static let chunkStart: UInt32 = 1
    static let chunkEnd: UInt32 = 2
    static let parent: UInt32 = 4
    static let root: UInt32 = 8
}

extension BLAKE3 {
    /// The compression function truncated to its first 8 output words: the
    /// new chaining value, or with `BLAKE3Flag.root` the 32-byte digest.
    @inline(__always)
    static func compress(_ cv: ChainingValue, _ b: MessageBlock, counter: UInt64, blockLength: UInt32, flags: UInt32)
        -> ChainingValue
    {
        let iv = ChainingValue.iv
        var s = State(
            v0: cv.h0, v1: cv.h1, v2: cv.h2, v3: cv.h3, v4: cv.h4, v5: cv.h5, v6: cv.h6, v7: cv.h7,
            v8: iv.h0, v9: iv.h1, v10: iv.h2, v11: iv.h3,
            v12: UInt32(truncatingIfNeeded: counter), v13: UInt32(truncatingIfNeeded: counter >> 32), v14: blockLength,
            v15: flags)
        // Seven rounds, each on the message permuted once more (spec
        // Table 2: m[i] ← m[σ(i)], σ = 2 6 3 10 7 0 4 13 1 11 12 5 9 14 15 8),
        // written out so that the words are renamed, never moved.
        round(&s, b.m0, b.m1, b.m2, b.m3, b.m4, b.m5, b.m6, b.m7, b.m8, b.m9, b.m10, b.m11, b.m12, b.m13, b.m14, b.m15)
        round(&s, b.m2, b.m6, b.m3, b.m10, b.m7, b.m0, b.m4, b.m13, b.m1, b.m11, b.m12, b.m5, b.m9, b.m14, b.m15, b.m8)
        round(&s, b.m3, b.m4, b.m10, b.m12, b.m13, b.m2, b.m7, b.m14, b.m6, b.m5, b.m9, b.m0, b.m11, b.m15, b.m8, b.m1)
        round(&s, b.m10, b.m7, b.m12, b.m9, b.m14, b.m3, b.m13, b.m15, b.m4, b.m0, b.m11, b.m2, b.m5, b.m8, b.m1, b.m6)
        round(&s, b.m12, b.m13, b.m9, b.m11, b.m15, b.m10, b.m14, b.m8, b.m7, b.m2, b.m5, b.m3, b.m0, b.m1, b.m6, b.m4)
        round(&s, b.m9, b.m14, b.m11, b.m5, b.m8, b.m12, b.m15, b.m1, b.m13, b.m3, b.m0, b.m10, b.m2, b.m6, b.m4, b.m7)
        round(&s, b.m11, b.m15, b.m5, b.m0, b.m1, b.m9, b.m8, b.m6, b.m14, b.m10, b.m2, b.m12, b.m3, b.m4, b.m7, b.m13)
        return ChainingValue(
            s.v0 ^ s.v8, s.v1 ^ s.v9, s.v2 ^ s.v10, s.v3 ^ s.v11, s.v4 ^ s.v12, s.v5 ^ s.v13, s.v6 ^ s.v14, s.v7 ^ s.v15
        )
    }

    /// The 4×4 state of the compression function.
    struct State {
        var v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15: UInt32
    }

    /// One round: G on the columns, then on the diagonals, with the
    /// message words in this round's order.
    @inline(__always)
    private static func round(
        _ s: inout State, _ m0: UInt32, _ m1: UInt32, _ m2: UInt32, _ m3: UInt32, _ m4: UInt32, _ m5: UInt32,
        _ m6: UInt32, _ m7: UInt32, _ m8: UInt32, _ m9: UInt32, _ m10: UInt32, _ m11: UInt32,
        _ m12: UInt32, _ m13: UInt32, _ m14: UInt32, _ m15: UInt32
    ) {
        mix(&s.v0, &s.v4, &s.v8, &s.v12, m0, m1)
        mix(&s.v1, &s.v5, &s.v9, &s.v13, m2, m3)
        mix(&s.v2, &s.v6, &s.v10, &s.v14, m4, m5)
        mix(&s.v3, &s.v7, &s.v11, &s.v15, m6, m7)
        mix(&s.v0, &s.v5, &s.v10, &s.v15, m8, m9)
        mix(&s.v1, &s.v6, &s.v11, &s.v12, m10, m11)
        mix(&s.v2, &s.v7, &s.v8, &s.v13, m12, m13)
        mix(&s.v3, &s.v4, &s.v9, &s.v14, m14, m15)
    }

    /// The quarter-round G (spec §2.2).
    @inline(__always)
    private static func mix(
        _ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32, _ x: UInt32, _ y: UInt32
    ) {
        a = a &+ b &+ x
        d = rotateRight(d ^ a, 16)
        c = c &+ d
        b = rotateRight(b ^ c, 12)
        a = a &+ b &+ y
        d = rotateRight(d ^ a, 8)
        c = c &+ d
        b = rotateRight(b ^ c, 7)
    }

    @inline(__always)
    private static func rotateRight(_ x: UInt32, _ n: UInt32) -> UInt32 { x &>> n | x &<< (32 &- n) }

    /// The CV of a parent node; with `root`, the digest of the whole message.
    @inline(__always)
    static func parent(_ left: ChainingValue, _ right: ChainingValue, root: Bool) -> ChainingValue {
        compress(
            .iv, MessageBlock(left: left, right: right), counter: 0, blockLength: 64,
            flags: BLAKE3Flag.parent | (root ? BLAKE3Flag.root : 0))
    }
}
