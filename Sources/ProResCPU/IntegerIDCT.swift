#if arch(x86_64)
    import CProResKernels
#endif

/// FFmpeg's ProRes dequantisation and integer IDCT (proresdsp.c and the
/// ProRes variants of simple_idct_template.c: `ff_prores_idct_10` with its
/// extra shift, `ff_prores_idct_12`), the C code and not its x86 SIMD
/// version, as the GPU decoder follows it: every product and sum in 32 bits,
/// wrapping; every intermediate stored as a 16-bit integer; the row pass's
/// DC-only shortcut; +8192 on row 0 before the columns; the clip to
/// [4, 2^depth - 5].
///
/// Eight rows (or columns) at a time in SIMD lanes: the block comes in
/// transposed, so the row pass works on vectors that each hold one natural
/// column of all eight rows; one transpose between the passes; the column
/// pass then yields whole output rows, clipped and stored straight into
/// the plane. On x86-64 the C kernel (CProResKernels) does the same with
/// SSE2's 16-bit multiply-adds, which Swift cannot emit; this Swift version
/// is the decoder's elsewhere.
protocol IDCTConstants {
    static var w1: Int32 { get }
    static var w2: Int32 { get }
    static var w3: Int32 { get }
    static var w4: Int32 { get }
    static var w5: Int32 { get }
    static var w6: Int32 { get }
    static var w7: Int32 { get }
    /// ROW_SHIFT plus the extra shift.
    static var rowShift: Int32 { get }
    static var columnShift: Int32 { get }
    static var depth: Int { get }
}

/// 10 bits: BIT_DEPTH 10 with EXTRA_SHIFT (ROW_SHIFT 13 + 2, COL_SHIFT 18).
enum IDCT10: IDCTConstants {
    static var w1: Int32 { 22725 }
    static var w2: Int32 { 21407 }
    static var w3: Int32 { 19265 }
    static var w4: Int32 { 16384 }
    static var w5: Int32 { 12873 }
    static var w6: Int32 { 8867 }
    static var w7: Int32 { 4520 }
    static var rowShift: Int32 { 15 }
    static var columnShift: Int32 { 18 }
    static var depth: Int { 10 }
}

/// 12 bits: BIT_DEPTH 12 (ROW_SHIFT 16, COL_SHIFT 17), no extra shift.
enum IDCT12: IDCTConstants {
    static var w1: Int32 { 45451 }
    static var w2: Int32 { 42813 }
    static var w3: Int32 { 38531 }
    static var w4: Int32 { 32767 }
    static var w5: Int32 { 25746 }
    static var w6: Int32 { 17734 }
    static var w7: Int32 { 9041 }
    static var rowShift: Int32 { 16 }
    static var columnShift: Int32 { 17 }
    static var depth: Int { 12 }
}

typealias Lanes = SIMD8<Int32>

/// The 16-bit truncation of each lane (a store to int16_t and back).
@inline(__always) func int16(_ v: Lanes) -> Lanes { (v &<< 16) &>> 16 }

enum IntegerIDCT {
    /// One block at `depth` bits, on the fastest code this machine has:
    /// `coefficients` quantised and transposed (natural column × 8 + row),
    /// `matrix` the scaled quantisation matrix in the same order (each entry
    /// already an int16), out to 8 rows of 8 samples at `out`, `stride`
    /// samples apart. Returns whether FFmpeg's x86 SIMD IDCT may give this
    /// block other samples (`mayDiffer`).
    @inline(__always) @discardableResult
    static func put(
        depth: Int, _ coefficients: UnsafePointer<Int16>, matrix: UnsafePointer<Int16>,
        out: UnsafeMutablePointer<UInt16>,
        stride: Int
    ) -> Bool {
        #if arch(x86_64)
            if depth == 12 {
                return pd_idct_put_12(coefficients, matrix, out, stride) != 0
            } else {
                return pd_idct_put_10(coefficients, matrix, out, stride) != 0
            }
        #else
            if depth == 12 {
                return transform(IDCT12.self, coefficients, matrix: matrix, out: out, stride: stride)
            } else {
                return transform(IDCT10.self, coefficients, matrix: matrix, out: out, stride: stride)
            }
        #endif
    }

    /// `put` on two consecutive blocks (`coefficients`, then
    /// `coefficients + 64`) with one matrix, out to `outA` and `outB`; on
    /// x86-64 both at once where the CPU has AVX2.
    /// Returns whether either block may differ (`mayDiffer`).
    @inline(__always) @discardableResult
    static func put2(
        depth: Int, _ coefficients: UnsafePointer<Int16>, matrix: UnsafePointer<Int16>,
        outA: UnsafeMutablePointer<UInt16>,
        outB: UnsafeMutablePointer<UInt16>, stride: Int
    ) -> Bool {
        #if arch(x86_64)
            if depth == 12 {
                return pd_idct_put2_12(coefficients, matrix, outA, outB, stride) != 0
            } else {
                return pd_idct_put2_10(coefficients, matrix, outA, outB, stride) != 0
            }
        #else
            let a = put(depth: depth, coefficients, matrix: matrix, out: outA, stride: stride)
            return put(depth: depth, coefficients + 64, matrix: matrix, out: outB, stride: stride) || a
        #endif
    }

    /// The Swift version of `put` for constants `K`.
    @inline(__always)
    @discardableResult
    static func transform<K: IDCTConstants>(
        _: K.Type, _ coefficients: UnsafePointer<Int16>, matrix: UnsafePointer<Int16>,
        out: UnsafeMutablePointer<UInt16>, stride: Int
    ) -> Bool {
        @inline(__always) func load(_ k: Int) -> Lanes {
            let raw = UnsafeRawPointer(coefficients + 8 * k).loadUnaligned(as: SIMD8<Int16>.self)
            let q = UnsafeRawPointer(matrix + 8 * k).loadUnaligned(as: SIMD8<Int16>.self)
            return int16(Lanes(truncatingIfNeeded: raw) &* Lanes(truncatingIfNeeded: q))
        }
        // Row pass: lane j is row j; r_k its natural column k.
        let r0 = load(0)
        let r1 = load(1)
        let r2 = load(2)
        let r3 = load(3)
        let r4 = load(4)
        let r5 = load(5)
        let r6 = load(6)
        let r7 = load(7)
        let dcOnly = (r1 | r2 | r3 | r4 | r5 | r6 | r7) .== 0
        let dc = int16((r0 &+ 1) &>> 1)
        var a0 = K.w4 &* r0 &+ (1 &<< (K.rowShift - 1))
        var a1 = a0
        var a2 = a0
        var a3 = a0
        a0 = a0 &+ K.w2 &* r2
        a1 = a1 &+ K.w6 &* r2
        a2 = a2 &- K.w6 &* r2
        a3 = a3 &- K.w2 &* r2
        var b0 = K.w1 &* r1 &+ K.w3 &* r3
        var b1 = K.w3 &* r1 &- K.w7 &* r3
        var b2 = K.w5 &* r1 &- K.w1 &* r3
        var b3 = K.w7 &* r1 &- K.w5 &* r3
        a0 = a0 &+ K.w4 &* r4 &+ K.w6 &* r6
        a1 = a1 &- K.w4 &* r4 &- K.w2 &* r6
        a2 = a2 &- K.w4 &* r4 &+ K.w2 &* r6
        a3 = a3 &+ K.w4 &* r4 &- K.w6 &* r6
        b0 = b0 &+ K.w5 &* r5 &+ K.w7 &* r7
        b1 = b1 &- K.w1 &* r5 &- K.w5 &* r7
        b2 = b2 &+ K.w7 &* r5 &+ K.w3 &* r7
        b3 = b3 &+ K.w3 &* r5 &- K.w1 &* r7
        let s = K.rowShift
        @inline(__always) func rowOut(_ v: Lanes) -> Lanes { int16(v &>> s).replacing(with: dc, where: dcOnly) }
        // Row 0 (lane 0) gets +8192 on the int16 array before the columns.
        let bias = Lanes(8192, 0, 0, 0, 0, 0, 0, 0)
        let o0 = int16(rowOut(a0 &+ b0) &+ bias)
        let o7 = int16(rowOut(a0 &- b0) &+ bias)
        let o1 = int16(rowOut(a1 &+ b1) &+ bias)
        let o6 = int16(rowOut(a1 &- b1) &+ bias)
        let o2 = int16(rowOut(a2 &+ b2) &+ bias)
        let o5 = int16(rowOut(a2 &- b2) &+ bias)
        let o3 = int16(rowOut(a3 &+ b3) &+ bias)
        let o4 = int16(rowOut(a3 &- b3) &+ bias)

        // Transpose: c_j (lane i = column i) is row j.
        @inline(__always) func row(_ j: Int) -> Lanes { Lanes(o0[j], o1[j], o2[j], o3[j], o4[j], o5[j], o6[j], o7[j]) }
        // Where FFmpeg's x86 SIMD IDCT (10-bit only) may part from this
        // one: a row-pass result outside int16 (it saturates, C wraps), a
        // dequantised r0 of 32767 (it adds the rounding as r0 + 1 in int16)
        // or a biased row 0 above 32759 (it adds 8200 in int16, C 8192 and
        // then 8 in 32 bits). CProResKernels' prores_idct.c has the details.
        @inline(__always) func wraps(_ v: Lanes) -> Bool { any(int16(v &>> s) .!= (v &>> s)) }
        let c0 = row(0)
        let differs =
            K.depth == 10
            && (wraps(a0 &+ b0) || wraps(a0 &- b0) || wraps(a1 &+ b1) || wraps(a1 &- b1) || wraps(a2 &+ b2)
                || wraps(a2 &- b2)
                || wraps(a3 &+ b3) || wraps(a3 &- b3) || any(r0 .== 32767) || any(c0 .> 32759))
        let c1 = row(1)
        let c2 = row(2)
        let c3 = row(3)
        let c4 = row(4)
        let c5 = row(5)
        let c6 = row(6)
        let c7 = row(7)

        // Column pass: lane i is column i.
        let columnBias = (1 &<< (K.columnShift - 1)) / K.w4
        a0 = K.w4 &* (c0 &+ columnBias)
        a1 = a0
        a2 = a0
        a3 = a0
        a0 = a0 &+ K.w2 &* c2
        a1 = a1 &+ K.w6 &* c2
        a2 = a2 &- K.w6 &* c2
        a3 = a3 &- K.w2 &* c2
        b0 = K.w1 &* c1 &+ K.w3 &* c3
        b1 = K.w3 &* c1 &- K.w7 &* c3
        b2 = K.w5 &* c1 &- K.w1 &* c3
        b3 = K.w7 &* c1 &- K.w5 &* c3
        a0 = a0 &+ K.w4 &* c4
        a1 = a1 &- K.w4 &* c4
        a2 = a2 &- K.w4 &* c4
        a3 = a3 &+ K.w4 &* c4
        b0 = b0 &+ K.w5 &* c5
        b1 = b1 &- K.w1 &* c5
        b2 = b2 &+ K.w7 &* c5
        b3 = b3 &+ K.w3 &* c5
        a0 = a0 &+ K.w6 &* c6
        a1 = a1 &- K.w2 &* c6
        a2 = a2 &+ K.w2 &* c6
        a3 = a3 &- K.w6 &* c6
        b0 = b0 &+ K.w7 &* c7
        b1 = b1 &- K.w5 &* c7
        b2 = b2 &+ K.w3 &* c7
        b3 = b3 &- K.w1 &* c7
        let low = Lanes(repeating: 4)
        let high = Lanes(repeating: Int32((1 << K.depth) - 5))
        let t = K.columnShift
        @inline(__always) func store(_ j: Int, _ v: Lanes) {
            let clipped = int16(v &>> t).clamped(lowerBound: low, upperBound: high)
            UnsafeMutableRawPointer(out + j * stride).storeBytes(
                of: SIMD8<UInt16>(truncatingIfNeeded: clipped), as: SIMD8<UInt16>.self)
        }
        store(0, a0 &+ b0)
        store(1, a1 &+ b1)
        store(2, a2 &+ b2)
        store(3, a3 &+ b3)
        store(4, a3 &- b3)
        store(5, a2 &- b2)
        store(6, a1 &- b1)
        store(7, a0 &- b0)
        return differs
    }
}
