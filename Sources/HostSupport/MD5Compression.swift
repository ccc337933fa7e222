/// The MD5 block function (RFC 1321, section 3.4) on several messages at
/// once: each `MD5Lanes` value holds one 32-bit word of every message, so
/// one step of the algorithm advances every lane. MD5 is a chain of
/// dependent steps, so one message keeps a core waiting on latency; four or
/// eight lanes fill that time with independent work (SSE2, the x86-64
/// baseline, runs SIMD8 as two interleaved 4-lane halves).
package protocol MD5Lanes {
    init(repeating: UInt32)
    static func & (a: Self, b: Self) -> Self
    static func | (a: Self, b: Self) -> Self
    static func ^ (a: Self, b: Self) -> Self
    static prefix func ~ (a: Self) -> Self
    static func wrappingSum(_ a: Self, _ b: Self) -> Self
    static func rotated(_ x: Self, left count: UInt32) -> Self
    /// Word `word` (little-endian) of the 64-byte block at each lane's pointer.
    static func load(_ blocks: UnsafePointer<UnsafeRawPointer>, word: Int) -> Self
    /// Lane `lane`'s value.
    subscript(lane lane: Int) -> UInt32 { get }
}

/// One message.
extension UInt32: MD5Lanes {
    @inline(__always) package init(repeating value: UInt32) { self = value }
    @inline(__always) package static func wrappingSum(_ a: Self, _ b: Self) -> Self { a &+ b }
    @inline(__always) package static func rotated(_ x: Self, left count: UInt32) -> Self {
        x << count | x >> (32 - count)
    }
    @inline(__always) package static func load(_ blocks: UnsafePointer<UnsafeRawPointer>, word: Int) -> Self {
        UInt32(littleEndian: blocks[0].loadUnaligned(fromByteOffset: 4 &* word, as: UInt32.self))
    }
    @inline(__always) package subscript(lane lane: Int) -> UInt32 { self }
}

// The SIMD conformances spell out `&+` and the left shift for the concrete
// type: the stdlib's generic SIMD `&+` and `&<<` work lane by lane, and LLVM
// then turns each lane's shift pair into a scalar `rol` (3× slower). A
// multiply by 2^count is a vector shift once optimised.

extension SIMD4<UInt32>: MD5Lanes {
    @inline(__always) package static func wrappingSum(_ a: Self, _ b: Self) -> Self { a &+ b }
    @inline(__always) package static func rotated(_ x: Self, left count: UInt32) -> Self {
        x &* Self(repeating: 1 << count) | x &>> Self(repeating: 32 - count)
    }
    @inline(__always) package static func load(_ blocks: UnsafePointer<UnsafeRawPointer>, word: Int) -> Self {
        Self(
            UInt32.load(blocks, word: word), UInt32.load(blocks + 1, word: word),
            UInt32.load(blocks + 2, word: word), UInt32.load(blocks + 3, word: word))
    }
    @inline(__always) package subscript(lane lane: Int) -> UInt32 { self[lane] }
}

extension SIMD8<UInt32>: MD5Lanes {
    @inline(__always) package static func wrappingSum(_ a: Self, _ b: Self) -> Self { a &+ b }
    @inline(__always) package static func rotated(_ x: Self, left count: UInt32) -> Self {
        x &* Self(repeating: 1 << count) | x &>> Self(repeating: 32 - count)
    }
    @inline(__always) package static func load(_ blocks: UnsafePointer<UnsafeRawPointer>, word: Int) -> Self {
        Self(lowHalf: SIMD4.load(blocks, word: word), highHalf: SIMD4.load(blocks + 4, word: word))
    }
    @inline(__always) package subscript(lane lane: Int) -> UInt32 { self[lane] }
}

/// The chaining state A, B, C, D of every lane.
package struct MD5State<Lanes: MD5Lanes> {
    var a = Lanes(repeating: 0x6745_2301)
    var b = Lanes(repeating: 0xefcd_ab89)
    var c = Lanes(repeating: 0x98ba_dcfe)
    var d = Lanes(repeating: 0x1032_5476)

    package init() {}

    /// Lane `lane`'s digest: A, B, C, D little-endian.
    package func digest(lane: Int) -> [UInt8] {
        [a, b, c, d].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word[lane: lane] >> UInt32(8 * $0)) } }
    }

    /// Folds in one 64-byte block per lane, `blocks[lane]` pointing at it.
    /// The 64 steps are written out so that every shift is a constant.
    @inline(__always)
    package mutating func compress(_ blocks: UnsafePointer<UnsafeRawPointer>) {
        let x0 = Lanes.load(blocks, word: 0)
        let x1 = Lanes.load(blocks, word: 1)
        let x2 = Lanes.load(blocks, word: 2)
        let x3 = Lanes.load(blocks, word: 3)
        let x4 = Lanes.load(blocks, word: 4)
        let x5 = Lanes.load(blocks, word: 5)
        let x6 = Lanes.load(blocks, word: 6)
        let x7 = Lanes.load(blocks, word: 7)
        let x8 = Lanes.load(blocks, word: 8)
        let x9 = Lanes.load(blocks, word: 9)
        let x10 = Lanes.load(blocks, word: 10)
        let x11 = Lanes.load(blocks, word: 11)
        let x12 = Lanes.load(blocks, word: 12)
        let x13 = Lanes.load(blocks, word: 13)
        let x14 = Lanes.load(blocks, word: 14)
        let x15 = Lanes.load(blocks, word: 15)
        var (a, b, c, d) = (self.a, self.b, self.c, self.d)
        // Round 1: F(b, c, d) = (b ∧ c) ∨ (¬b ∧ d), as d ^ (b & (c ^ d)).
        Self.f(&a, b, c, d, x0, 0xd76a_a478, 7)
        Self.f(&d, a, b, c, x1, 0xe8c7_b756, 12)
        Self.f(&c, d, a, b, x2, 0x2420_70db, 17)
        Self.f(&b, c, d, a, x3, 0xc1bd_ceee, 22)
        Self.f(&a, b, c, d, x4, 0xf57c_0faf, 7)
        Self.f(&d, a, b, c, x5, 0x4787_c62a, 12)
        Self.f(&c, d, a, b, x6, 0xa830_4613, 17)
        Self.f(&b, c, d, a, x7, 0xfd46_9501, 22)
        Self.f(&a, b, c, d, x8, 0x6980_98d8, 7)
        Self.f(&d, a, b, c, x9, 0x8b44_f7af, 12)
        Self.f(&c, d, a, b, x10, 0xffff_5bb1, 17)
        Self.f(&b, c, d, a, x11, 0x895c_d7be, 22)
        Self.f(&a, b, c, d, x12, 0x6b90_1122, 7)
        Self.f(&d, a, b, c, x13, 0xfd98_7193, 12)
        Self.f(&c, d, a, b, x14, 0xa679_438e, 17)
        Self.f(&b, c, d, a, x15, 0x49b4_0821, 22)
        // Round 2: G(b, c, d) = (b ∧ d) ∨ (c ∧ ¬d), as c ^ (d & (b ^ c)).
        Self.g(&a, b, c, d, x1, 0xf61e_2562, 5)
        Self.g(&d, a, b, c, x6, 0xc040_b340, 9)
        Self.g(&c, d, a, b, x11, 0x265e_5a51, 14)
        Self.g(&b, c, d, a, x0, 0xe9b6_c7aa, 20)
        Self.g(&a, b, c, d, x5, 0xd62f_105d, 5)
        Self.g(&d, a, b, c, x10, 0x0244_1453, 9)
        Self.g(&c, d, a, b, x15, 0xd8a1_e681, 14)
        Self.g(&b, c, d, a, x4, 0xe7d3_fbc8, 20)
        Self.g(&a, b, c, d, x9, 0x21e1_cde6, 5)
        Self.g(&d, a, b, c, x14, 0xc337_07d6, 9)
        Self.g(&c, d, a, b, x3, 0xf4d5_0d87, 14)
        Self.g(&b, c, d, a, x8, 0x455a_14ed, 20)
        Self.g(&a, b, c, d, x13, 0xa9e3_e905, 5)
        Self.g(&d, a, b, c, x2, 0xfcef_a3f8, 9)
        Self.g(&c, d, a, b, x7, 0x676f_02d9, 14)
        Self.g(&b, c, d, a, x12, 0x8d2a_4c8a, 20)
        // Round 3: H(b, c, d) = b ⊕ c ⊕ d.
        Self.h(&a, b, c, d, x5, 0xfffa_3942, 4)
        Self.h(&d, a, b, c, x8, 0x8771_f681, 11)
        Self.h(&c, d, a, b, x11, 0x6d9d_6122, 16)
        Self.h(&b, c, d, a, x14, 0xfde5_380c, 23)
        Self.h(&a, b, c, d, x1, 0xa4be_ea44, 4)
        Self.h(&d, a, b, c, x4, 0x4bde_cfa9, 11)
        Self.h(&c, d, a, b, x7, 0xf6bb_4b60, 16)
        Self.h(&b, c, d, a, x10, 0xbebf_bc70, 23)
        Self.h(&a, b, c, d, x13, 0x289b_7ec6, 4)
        Self.h(&d, a, b, c, x0, 0xeaa1_27fa, 11)
        Self.h(&c, d, a, b, x3, 0xd4ef_3085, 16)
        Self.h(&b, c, d, a, x6, 0x0488_1d05, 23)
        Self.h(&a, b, c, d, x9, 0xd9d4_d039, 4)
        Self.h(&d, a, b, c, x12, 0xe6db_99e5, 11)
        Self.h(&c, d, a, b, x15, 0x1fa2_7cf8, 16)
        Self.h(&b, c, d, a, x2, 0xc4ac_5665, 23)
        // Round 4: I(b, c, d) = c ⊕ (b ∨ ¬d).
        Self.i(&a, b, c, d, x0, 0xf429_2244, 6)
        Self.i(&d, a, b, c, x7, 0x432a_ff97, 10)
        Self.i(&c, d, a, b, x14, 0xab94_23a7, 15)
        Self.i(&b, c, d, a, x5, 0xfc93_a039, 21)
        Self.i(&a, b, c, d, x12, 0x655b_59c3, 6)
        Self.i(&d, a, b, c, x3, 0x8f0c_cc92, 10)
        Self.i(&c, d, a, b, x10, 0xffef_f47d, 15)
        Self.i(&b, c, d, a, x1, 0x8584_5dd1, 21)
        Self.i(&a, b, c, d, x8, 0x6fa8_7e4f, 6)
        Self.i(&d, a, b, c, x15, 0xfe2c_e6e0, 10)
        Self.i(&c, d, a, b, x6, 0xa301_4314, 15)
        Self.i(&b, c, d, a, x13, 0x4e08_11a1, 21)
        Self.i(&a, b, c, d, x4, 0xf753_7e82, 6)
        Self.i(&d, a, b, c, x11, 0xbd3a_f235, 10)
        Self.i(&c, d, a, b, x2, 0x2ad7_d2bb, 15)
        Self.i(&b, c, d, a, x9, 0xeb86_d391, 21)
        self.a = Lanes.wrappingSum(self.a, a)
        self.b = Lanes.wrappingSum(self.b, b)
        self.c = Lanes.wrappingSum(self.c, c)
        self.d = Lanes.wrappingSum(self.d, d)
    }

    /// One step: a = b + ((a + fn(b, c, d) + x + t) <<< s).
    @inline(__always)
    private static func step(_ a: inout Lanes, _ b: Lanes, _ mixed: Lanes, _ x: Lanes, _ t: UInt32, _ s: UInt32) {
        let sum = Lanes.wrappingSum(Lanes.wrappingSum(a, mixed), Lanes.wrappingSum(x, Lanes(repeating: t)))
        a = Lanes.wrappingSum(b, Lanes.rotated(sum, left: s))
    }

    @inline(__always)
    private static func f(_ a: inout Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes, _ x: Lanes, _ t: UInt32, _ s: UInt32) {
        step(&a, b, d ^ (b & (c ^ d)), x, t, s)
    }

    @inline(__always)
    private static func g(_ a: inout Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes, _ x: Lanes, _ t: UInt32, _ s: UInt32) {
        step(&a, b, c ^ (d & (b ^ c)), x, t, s)
    }

    @inline(__always)
    private static func h(_ a: inout Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes, _ x: Lanes, _ t: UInt32, _ s: UInt32) {
        step(&a, b, b ^ c ^ d, x, t, s)
    }

    @inline(__always)
    private static func i(_ a: inout Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes, _ x: Lanes, _ t: UInt32, _ s: UInt32) {
        step(&a, b, c ^ (b | ~d), x, t, s)
    }
}
