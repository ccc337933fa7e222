@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

// CPU references for the kernel tests (KernelTests.swift): pure Swift, no
// GPU, and none of the code under test. Written from SMPTE RDD 36 and from
// how FFmpeg's software decoder (proresdec2.c, proresdsp.c and the ProRes
// variants of simple_idct_template.c) defines each step, to which the GPU
// passes must be bit-exact:
//
//  - the scan tables (RDD 36 Table 5, FFmpeg's ff_prores_*_scan): the
//    natural (raster) index of each scan position;
//  - dequantisation: the scaled matrix and every product kept as int16;
//  - FFmpeg's integer IDCT for ProRes at 10 bits (simple_idct with
//    EXTRA_SHIFT 2) and 12 bits (simple_idct_int16_12bit): 32-bit sums that
//    wrap, results stored as int16, the row pass's DC-only shortcut, the
//    +8192 on row 0 before the columns, and the clip to [4, 2^depth - 5];
//  - the placement of a slice's blocks (decode_slice_luma/chroma/alpha);
//  - the packed output (v216 / y416, see FramePacker's documentation).

enum ProResScan {
    /// RDD 36 progressive scan: natural index of each scan position.
    static let progressive: [Int] = [
        0, 1, 8, 9, 2, 3, 10, 11,
        16, 17, 24, 25, 18, 19, 26, 27,
        4, 5, 12, 20, 13, 6, 7, 14,
        21, 28, 29, 22, 15, 23, 30, 31,
        32, 33, 40, 48, 41, 34, 35, 42,
        49, 56, 57, 50, 43, 36, 37, 44,
        51, 58, 59, 52, 45, 38, 39, 46,
        53, 60, 61, 54, 47, 55, 62, 63,
    ]
    /// RDD 36 interlaced scan (used for every picture of an interlaced frame).
    static let interlaced: [Int] = [
        0, 8, 1, 9, 16, 24, 17, 25,
        2, 10, 3, 11, 18, 26, 19, 27,
        32, 40, 33, 34, 41, 48, 56, 49,
        42, 35, 43, 50, 57, 58, 51, 59,
        4, 12, 5, 6, 13, 20, 28, 21,
        14, 7, 15, 22, 29, 36, 44, 37,
        30, 23, 31, 38, 45, 52, 60, 53,
        46, 39, 47, 54, 61, 62, 55, 63,
    ]

    /// Block `block`'s 64 coefficients in natural order, gathered from a
    /// component stored in coded order (scan position × blocks + block), as
    /// FFmpeg's decode_ac_coeffs scatters them: coded position p is scan
    /// position p >> log2Blocks of block p & (blocks - 1).
    static func naturalBlock(_ coded: ArraySlice<Int16>, block: Int, log2Blocks: Int, interlaced: Bool) -> [Int16] {
        let scan = interlaced ? Self.interlaced : progressive
        var natural = [Int16](repeating: 0, count: 64)
        let base = coded.startIndex
        for position in 0..<64 << log2Blocks where position & ((1 << log2Blocks) - 1) == block {
            natural[scan[position >> log2Blocks]] = coded[base + position]
        }
        return natural
    }
}

/// FFmpeg's ProRes dequantisation and integer IDCT (`ff_prores_idct_10`,
/// `ff_prores_idct_12` + `put_pixels`), restated with explicit 32-bit
/// wrapping and 16-bit truncation wherever the C code has them.
enum ReferenceIDCT {
    struct Constants {
        let w: [Int32]  // w[1]...w[7]; w[0] unused
        let rowShift: Int32  // ROW_SHIFT + extra_shift
        let colShift: Int32
        let dcShift: Int
        let extraShift: Int
        let depth: Int
    }

    /// 10 bits: simple_idct_template with BIT_DEPTH 10 and EXTRA_SHIFT (ROW_SHIFT 13,
    /// COL_SHIFT 18, DC_SHIFT 1), called with extra_shift 2.
    static let tenBit = Constants(
        w: [0, 22725, 21407, 19265, 16384, 12873, 8867, 4520],
        rowShift: 13 + 2, colShift: 18, dcShift: 1, extraShift: 2, depth: 10)
    /// 12 bits: BIT_DEPTH 12 (ROW_SHIFT 16, COL_SHIFT 17, DC_SHIFT -1), extra_shift 0.
    static let twelveBit = Constants(
        w: [0, 45451, 42813, 38531, 32767, 25746, 17734, 9041],
        rowShift: 16, colShift: 17, dcShift: -1, extraShift: 0, depth: 12)

    static func constants(depth: Int) -> Constants { depth == 12 ? twelveBit : tenBit }

    /// The scaled matrix entry as FFmpeg keeps it: int16 (qmat * qscale wraps).
    static func scaledMatrix(_ matrix: [UInt8], qscale: Int) -> [Int16] {
        matrix.map { Int16(truncatingIfNeeded: Int($0) * qscale) }
    }

    /// One 8x8 block: natural-order quantised coefficients in, clipped
    /// samples out (row-major, row = y).
    static func reconstruct(_ coefficients: [Int16], matrix: [UInt8], qscale: Int, depth: Int) -> [UInt16] {
        let k = constants(depth: depth)
        let q = scaledMatrix(matrix, qscale: qscale)
        var block = [Int16](repeating: 0, count: 64)
        for i in 0..<64 { block[i] = Int16(truncatingIfNeeded: Int32(coefficients[i]) * Int32(q[i])) }
        for row in 0..<8 { rowPass(&block, at: row * 8, k) }
        // block[i] += 8192 on the int16 array: wraps.
        for i in 0..<8 { block[i] = Int16(truncatingIfNeeded: Int32(block[i]) + 8192) }
        for column in 0..<8 { columnPass(&block, column: column, k) }
        let high = (1 << depth) - 4 - 1
        return block.map { UInt16(min(max(Int($0), 4), high)) }
    }

    /// idctRowCondDC: 32-bit (unsigned, so wrapping) sums, arithmetic shift
    /// of the int32 result, stored as int16.
    static func rowPass(_ block: inout [Int16], at base: Int, _ k: Constants) {
        let r = (0..<8).map { Int32(block[base + $0]) }
        if r[1...].allSatisfy({ $0 == 0 }) {
            // The DC-only shortcut, on the int16 row.
            let value: Int32
            if k.dcShift - k.extraShift >= 0 {
                value = r[0] << Int32(k.dcShift - k.extraShift)
            } else {
                value = (r[0] + (1 << Int32(k.extraShift - k.dcShift - 1))) >> Int32(k.extraShift - k.dcShift)
            }
            let dc = Int16(truncatingIfNeeded: value)
            for i in 0..<8 { block[base + i] = dc }
            return
        }
        let w = k.w
        var a0 = w[4] &* r[0] &+ (1 << (k.rowShift - 1))
        var a1 = a0
        var a2 = a0
        var a3 = a0
        a0 = a0 &+ w[2] &* r[2]
        a1 = a1 &+ w[6] &* r[2]
        a2 = a2 &- w[6] &* r[2]
        a3 = a3 &- w[2] &* r[2]
        var b0 = w[1] &* r[1] &+ w[3] &* r[3]
        var b1 = w[3] &* r[1] &- w[7] &* r[3]
        var b2 = w[5] &* r[1] &- w[1] &* r[3]
        var b3 = w[7] &* r[1] &- w[5] &* r[3]
        a0 = a0 &+ w[4] &* r[4] &+ w[6] &* r[6]
        a1 = a1 &- w[4] &* r[4] &- w[2] &* r[6]
        a2 = a2 &- w[4] &* r[4] &+ w[2] &* r[6]
        a3 = a3 &+ w[4] &* r[4] &- w[6] &* r[6]
        b0 = b0 &+ w[5] &* r[5] &+ w[7] &* r[7]
        b1 = b1 &- w[1] &* r[5] &- w[5] &* r[7]
        b2 = b2 &+ w[7] &* r[5] &+ w[3] &* r[7]
        b3 = b3 &+ w[3] &* r[5] &- w[1] &* r[7]
        let s = k.rowShift
        func store(_ i: Int, _ v: Int32) { block[base + i] = Int16(truncatingIfNeeded: v >> s) }
        store(0, a0 &+ b0)
        store(7, a0 &- b0)
        store(1, a1 &+ b1)
        store(6, a1 &- b1)
        store(2, a2 &+ b2)
        store(5, a2 &- b2)
        store(3, a3 &+ b3)
        store(4, a3 &- b3)
    }

    /// idctSparseCol: the bias (1 << (COL_SHIFT - 1)) / W4 added to the DC
    /// term before its product, results stored as int16.
    static func columnPass(_ block: inout [Int16], column: Int, _ k: Constants) {
        let c = (0..<8).map { Int32(block[column + 8 * $0]) }
        let w = k.w
        let bias = (1 << (k.colShift - 1)) / w[4]
        var a0 = w[4] &* (c[0] + bias)
        var a1 = a0
        var a2 = a0
        var a3 = a0
        a0 = a0 &+ w[2] &* c[2]
        a1 = a1 &+ w[6] &* c[2]
        a2 = a2 &- w[6] &* c[2]
        a3 = a3 &- w[2] &* c[2]
        var b0 = w[1] &* c[1] &+ w[3] &* c[3]
        var b1 = w[3] &* c[1] &- w[7] &* c[3]
        var b2 = w[5] &* c[1] &- w[1] &* c[3]
        var b3 = w[7] &* c[1] &- w[5] &* c[3]
        a0 = a0 &+ w[4] &* c[4]
        a1 = a1 &- w[4] &* c[4]
        a2 = a2 &- w[4] &* c[4]
        a3 = a3 &+ w[4] &* c[4]
        b0 = b0 &+ w[5] &* c[5]
        b1 = b1 &- w[1] &* c[5]
        b2 = b2 &+ w[7] &* c[5]
        b3 = b3 &+ w[3] &* c[5]
        a0 = a0 &+ w[6] &* c[6]
        a1 = a1 &- w[2] &* c[6]
        a2 = a2 &+ w[2] &* c[6]
        a3 = a3 &- w[6] &* c[6]
        b0 = b0 &+ w[7] &* c[7]
        b1 = b1 &- w[5] &* c[7]
        b2 = b2 &+ w[3] &* c[7]
        b3 = b3 &- w[1] &* c[7]
        let s = k.colShift
        let out = [a0 &+ b0, a1 &+ b1, a2 &+ b2, a3 &+ b3, a3 &- b3, a2 &- b2, a1 &- b1, a0 &- b0]
        for i in 0..<8 { block[column + 8 * i] = Int16(truncatingIfNeeded: out[i] >> s) }
    }
}

/// FFmpeg's alpha samples at the decoder's precision (ALPHA_SHIFT_* in proresdec2.c).
enum ReferenceAlpha {
    static func decoded(_ raw: UInt16, streamBits: Int, depth: Int) -> UInt16 {
        let a = Int(raw)
        if streamBits == 16 { return UInt16(depth == 12 ? a >> 4 : a >> 6) }
        return UInt16(depth == 12 ? (a << 4) | (a >> 4) : (a << 2) | (a >> 6))
    }
}

/// A synthetic frame's content: the slices' quantised coefficients, with
/// everything the kernels need to place them. Shared by the transform and
/// entropy tests.
struct SyntheticSlice {
    /// Picture (field) index within the frame: 0, or 1 for an interlaced frame's second field.
    var picture: Int
    var mbX: Int
    /// Macroblock row within the picture.
    var mbY: Int
    var log2Mbs: Int
    /// Slice header byte 1 and the scale FFmpeg derives from it.
    var qscaleCode: Int
    var qscale: Int {
        let c = min(max(qscaleCode, 1), 224)
        return c > 128 ? (c - 96) << 2 : c
    }
    /// Quantised coefficients in coded order (scan position × blocks + block).
    var luma: [Int16]
    var cb: [Int16]
    var cr: [Int16]
    /// Alpha as coded (8- or 16-bit samples, raster order over 16 rows ×
    /// 16 << log2Mbs columns); empty without alpha.
    var alphaCoded: [UInt16] = []
    /// Transform tests: alpha samples at the decoder's precision.
    var alphaDecoded: [UInt16] = []

    // Damage, for the transform's concealment test (the entropy pass's
    // status bits, the host's verdict, and empty components).
    var statusFlags: UInt32 = 0
    var headerValid = true
    var noChroma = false
    var noAlpha = false
}

struct SyntheticFrame {
    var width: Int
    var height: Int
    var chroma444: Bool
    var fieldOrder: ProResFrameHeader.FieldOrder
    var alpha: ProResFrameHeader.Alpha
    var lumaMatrix: [UInt8]
    var chromaMatrix: [UInt8]
    /// Per picture: log2 of the slice width in macroblocks.
    var log2SliceWidths: [Int]
    /// In bitstream order: picture 0's slices, then picture 1's.
    var slices: [SyntheticSlice] = []

    var interlaced: Bool { fieldOrder != .progressive }
    var mbWidth: Int { (width + 15) >> 4 }
    /// Macroblock rows of each picture.
    var mbHeight: Int { interlaced ? (height + 31) >> 5 : (height + 15) >> 4 }
    var pictures: Int { interlaced ? 2 : 1 }
    var chromaLog2: Int { chroma444 ? 2 : 1 }

    /// The slices of one picture, as RDD 36 (and FFmpeg's
    /// decode_picture_header) lays them out: each row from the left, the
    /// slice width halved where the row's remaining macroblocks are fewer.
    static func sliceLayout(mbWidth: Int, mbHeight: Int, log2SliceWidth: Int) -> [(mbX: Int, mbY: Int, log2Mbs: Int)] {
        var layout: [(Int, Int, Int)] = []
        for mbY in 0..<mbHeight {
            var mbX = 0
            var log2 = log2SliceWidth
            while mbX < mbWidth {
                while mbWidth - mbX < 1 << log2 { log2 -= 1 }
                layout.append((mbX, mbY, log2))
                mbX += 1 << log2
            }
        }
        return layout
    }

    /// The picture row (within its field for interlaced frames) of a frame
    /// row, and the picture it belongs to; RDD 36: the first picture is the
    /// top field unless the frame is bottom field first.
    func frameRow(picture: Int, pictureRow: Int) -> Int {
        guard interlaced else { return pictureRow }
        let parity = (fieldOrder == .bottomFieldFirst ? 1 : 0) ^ picture
        return pictureRow * 2 + parity
    }
}

/// What FFmpeg's decoder (with the project's neutral pre-fill) makes of a
/// synthetic frame: planes at the decoded depth.
struct ReferencePlanes {
    let width: Int
    let height: Int
    let chromaWidth: Int
    var y: [UInt16]
    var cb: [UInt16]
    var cr: [UInt16]
    var a: [UInt16]?

    /// Where each sample came from, for failure messages.
    struct Origin {
        var slice: Int
        var mb: Int
        var block: Int
        var row: Int
        var column: Int
    }
    var yOrigin: [Origin?]
    var cbOrigin: [Origin?]
    var crOrigin: [Origin?]
}

enum ReferenceDecoder {
    /// Reconstructs `frame` from its slices' coefficients, as FFmpeg's
    /// decode_slice_thread does, at `depth` bits; failed components keep the
    /// neutral pre-fill (black, neutral chroma, opaque), as in the project's
    /// CPU path.
    static func planes(_ frame: SyntheticFrame, depth: Int) -> ReferencePlanes {
        let paddedWidth = frame.mbWidth * 16
        let paddedHeight = frame.mbHeight * 16 * frame.pictures
        let chromaWidth = frame.chroma444 ? paddedWidth : paddedWidth / 2
        let count = paddedWidth * paddedHeight
        let chromaCount = chromaWidth * paddedHeight
        var planes = ReferencePlanes(
            width: paddedWidth, height: paddedHeight, chromaWidth: chromaWidth,
            y: [UInt16](repeating: UInt16(16 << (depth - 8)), count: count),
            cb: [UInt16](repeating: UInt16(1 << (depth - 1)), count: chromaCount),
            cr: [UInt16](repeating: UInt16(1 << (depth - 1)), count: chromaCount),
            a: frame.alpha == .none ? nil : [UInt16](repeating: UInt16((1 << depth) - 1), count: count),
            yOrigin: [ReferencePlanes.Origin?](repeating: nil, count: count),
            cbOrigin: [ReferencePlanes.Origin?](repeating: nil, count: chromaCount),
            crOrigin: [ReferencePlanes.Origin?](repeating: nil, count: chromaCount))

        for (index, slice) in frame.slices.enumerated() {
            // Luma, Cb, Cr, alpha in FFmpeg's order; the first failure ends the slice.
            guard slice.headerValid, slice.statusFlags & 1 == 0 else { continue }
            let lumaLog2 = slice.log2Mbs + 2
            func put(
                _ plane: inout [UInt16], _ origins: inout [ReferencePlanes.Origin?], stride: Int,
                block samples: [UInt16], x0: Int, y0: Int, origin: ReferencePlanes.Origin
            ) {
                for row in 0..<8 {
                    let frameRow = frame.frameRow(picture: slice.picture, pictureRow: y0 + row)
                    for column in 0..<8 {
                        plane[frameRow * stride + x0 + column] = samples[row * 8 + column]
                        var o = origin
                        o.row = row
                        o.column = column
                        origins[frameRow * stride + x0 + column] = o
                    }
                }
            }
            // decode_slice_luma: per macroblock, blocks top-left, top-right, bottom-left, bottom-right.
            for mb in 0..<1 << slice.log2Mbs {
                for b in 0..<4 {
                    let block = mb * 4 + b
                    let natural = ProResScan.naturalBlock(
                        slice.luma[...], block: block, log2Blocks: lumaLog2, interlaced: frame.interlaced)
                    let samples = ReferenceIDCT.reconstruct(
                        natural, matrix: frame.lumaMatrix, qscale: slice.qscale, depth: depth)
                    put(
                        &planes.y, &planes.yOrigin, stride: paddedWidth, block: samples,
                        x0: (slice.mbX + mb) * 16 + (b & 1) * 8, y0: slice.mbY * 16 + (b >> 1) * 8,
                        origin: .init(slice: index, mb: mb, block: b, row: 0, column: 0))
                }
            }
            if slice.noChroma {
                // FFmpeg writes 511 (scaled to the depth) when a slice has no chroma data.
                let value = UInt16(511 << (depth - 10))
                let mbChroma = frame.chroma444 ? 16 : 8
                for row in 0..<16 {
                    let frameRow = frame.frameRow(picture: slice.picture, pictureRow: slice.mbY * 16 + row)
                    for x in 0..<mbChroma << slice.log2Mbs {
                        planes.cb[frameRow * chromaWidth + slice.mbX * mbChroma + x] = value
                        planes.cr[frameRow * chromaWidth + slice.mbX * mbChroma + x] = value
                    }
                }
            } else {
                // decode_slice_chroma: per macroblock, columns of two blocks (top, bottom).
                let chromaLog2 = slice.log2Mbs + frame.chromaLog2
                let blocksPerMb = 1 << frame.chromaLog2
                let mbChroma = frame.chroma444 ? 16 : 8
                var failed = false
                for (component, flag) in [(0, UInt32(2)), (1, UInt32(4))] {
                    if slice.statusFlags & flag != 0 {
                        failed = true
                        break
                    }
                    let coded = component == 0 ? slice.cb : slice.cr
                    for mb in 0..<1 << slice.log2Mbs {
                        for b in 0..<blocksPerMb {
                            let block = mb * blocksPerMb + b
                            let natural = ProResScan.naturalBlock(
                                coded[...], block: block, log2Blocks: chromaLog2, interlaced: frame.interlaced)
                            let samples = ReferenceIDCT.reconstruct(
                                natural, matrix: frame.chromaMatrix, qscale: slice.qscale, depth: depth)
                            let origin = ReferencePlanes.Origin(
                                slice: index, mb: mb, block: 4 + component * blocksPerMb + b, row: 0, column: 0)
                            let x0 = (slice.mbX + mb) * mbChroma + (b >> 1) * 8
                            let y0 = slice.mbY * 16 + (b & 1) * 8
                            if component == 0 {
                                put(
                                    &planes.cb, &planes.cbOrigin, stride: chromaWidth, block: samples, x0: x0, y0: y0,
                                    origin: origin)
                            } else {
                                put(
                                    &planes.cr, &planes.crOrigin, stride: chromaWidth, block: samples, x0: x0, y0: y0,
                                    origin: origin)
                            }
                        }
                    }
                }
                if failed { continue }
            }
            // decode_slice_alpha: raster samples over the slice's 16 rows.
            if frame.alpha != .none, !slice.noAlpha, planes.a != nil {
                let sliceWidth = 16 << slice.log2Mbs
                for row in 0..<16 {
                    let frameRow = frame.frameRow(picture: slice.picture, pictureRow: slice.mbY * 16 + row)
                    for x in 0..<sliceWidth {
                        planes.a![frameRow * paddedWidth + slice.mbX * 16 + x] =
                            slice.alphaDecoded[row * sliceWidth + x]
                    }
                }
            }
        }
        return planes
    }

    /// The packed surface of one frame, one UInt64 per 8-byte unit: v216 for
    /// 4:2:2 (Cb Y'0 Cr Y'1 per pair; an odd width's last pair repeats Y'0),
    /// y416 for 4:4:4 (A Y' Cb Cr; alpha widened by bit replication, 65535
    /// without alpha). Samples MSB-aligned, as FramePacker documents.
    static func pack(_ planes: ReferencePlanes, frame: SyntheticFrame, depth: Int) -> [UInt64] {
        let shift = 16 - depth
        var out: [UInt64] = []
        for row in 0..<frame.height {
            if frame.chroma444 {
                for x in 0..<frame.width {
                    let i = row * planes.width + x
                    let c = row * planes.chromaWidth + x
                    let alpha: UInt64 = planes.a.map { a in UInt64(a[i] << shift | a[i] >> (2 * depth - 16)) } ?? 0xFFFF
                    out.append(
                        alpha | UInt64(planes.y[i] << shift) << 16 | UInt64(planes.cb[c] << shift) << 32
                            | UInt64(planes.cr[c] << shift) << 48)
                }
            } else {
                for pair in 0..<(frame.width + 1) / 2 {
                    let i = row * planes.width + 2 * pair
                    let c = row * planes.chromaWidth + pair
                    let y0 = planes.y[i]
                    let y1 = 2 * pair + 1 < frame.width ? planes.y[i + 1] : y0
                    out.append(
                        UInt64(planes.cb[c] << shift) | UInt64(y0 << shift) << 16 | UInt64(planes.cr[c] << shift) << 32
                            | UInt64(y1 << shift) << 48)
                }
            }
        }
        return out
    }
}
