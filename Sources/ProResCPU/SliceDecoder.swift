import ProResCore

/// Where a frame's planes are and what they hold: the native planar layout
/// (FFmpeg's yuv422p10le, yuva444p12le, ...), rows padded to whole
/// macroblocks so that every block is stored whole.
struct PlaneTargets {
    let planes: [UnsafeMutablePointer<UInt16>]
    /// Samples per row of each plane.
    let strides: [Int]
    let depth: Int
    let chroma444: Bool
    let interlaced: Bool
    /// The frame header's alpha type: 0 none, 1 8-bit, 2 16-bit.
    let alphaBits: Int

    var hasAlpha: Bool { alphaBits != 0 }

    var fillLuma: UInt16 { UInt16(16 << (depth - 8)) }
    var fillChroma: UInt16 { UInt16(1 << (depth - 1)) }
    var fillAlpha: UInt16 { UInt16((1 << depth) - 1) }
    /// What FFmpeg writes where a slice carries no chroma.
    var noChroma: UInt16 { UInt16(511 << (depth - 10)) }

    /// Row `pictureRow` of the picture (field) of `parity` in plane `plane`.
    @inline(__always) func row(_ plane: Int, pictureRow: Int, parity: Int) -> UnsafeMutablePointer<UInt16> {
        planes[plane] + (interlaced ? pictureRow * 2 + parity : pictureRow) * strides[plane]
    }

    /// Samples between a picture's rows.
    @inline(__always) func pictureStride(_ plane: Int) -> Int { interlaced ? strides[plane] * 2 : strides[plane] }
}

/// One slice's decoding, as FFmpeg's decode_slice_thread orders it (luma,
/// Cb, Cr, alpha; the first failure ends the slice) with its concealment as
/// the project's FFmpeg path and GPU decoder make it: what is not decoded
/// keeps the neutral values (video black, neutral chroma, opaque).
struct SliceDecoder {
    /// Coefficients of one component of one slice (up to 32 blocks).
    private let blocks: UnsafeMutablePointer<Int16>
    /// The slice's scaled matrices, transposed: luma then chroma.
    private let matrices: UnsafeMutablePointer<Int16>
    /// Alpha samples of one slice (16 rows of 128).
    private let alpha: UnsafeMutablePointer<UInt16>

    static let maxBlocks = 32

    init() {
        blocks = .allocate(capacity: Self.maxBlocks * 64)
        matrices = .allocate(capacity: 128)
        alpha = .allocate(capacity: 16 * 128)
    }

    func deallocate() {
        blocks.deallocate()
        matrices.deallocate()
        alpha.deallocate()
    }

    /// Decodes `slice` of the frame at `frame` (followed by its padding)
    /// into `targets`. `matrices`: luma then chroma quantisation matrices,
    /// natural order. False when the slice was damaged and concealed.
    func decode(_ slice: CPUSlice, frame: UnsafePointer<UInt8>, targets: PlaneTargets, lumaMatrix: UnsafePointer<UInt8>,
                chromaMatrix: UnsafePointer<UInt8>) -> Bool {
        guard slice.valid else {
            fill(slice, targets, luma: true, cb: true, cr: true)
            return false
        }
        for i in 0..<64 {
            let transposed = (i & 7) << 3 | i >> 3
            matrices[transposed] = Int16(truncatingIfNeeded: Int(lumaMatrix[i]) * slice.qscale)
            matrices[64 + transposed] = Int16(truncatingIfNeeded: Int(chromaMatrix[i]) * slice.qscale)
        }
        let mbs = 1 << slice.log2Mbs
        let lumaOffset = slice.dataOffset, cbOffset = lumaOffset + slice.lumaSize, crOffset = cbOffset + slice.cbSize
        guard component(frame + lumaOffset, bytes: slice.lumaSize, log2Blocks: slice.log2Mbs + 2, interlaced: targets.interlaced) else {
            fill(slice, targets, luma: true, cb: true, cr: true)
            return false
        }
        let lumaStride = targets.pictureStride(0)
        for mb in 0..<mbs {
            let out = targets.row(0, pictureRow: slice.mbY * 16, parity: slice.parity) + (slice.mbX + mb) * 16
            for b in 0..<4 {
                transform(blocks + (mb * 4 + b) * 64, matrix: matrices, depth: targets.depth,
                          out: out + (b >> 1) * 8 * lumaStride + (b & 1) * 8, stride: lumaStride)
            }
        }
        let chromaLog2 = targets.chroma444 ? 2 : 1
        let mbChroma = 8 << (chromaLog2 - 1)
        if slice.cbSize + slice.crSize > 0 {
            for plane in 1...2 {
                let offset = plane == 1 ? cbOffset : crOffset, size = plane == 1 ? slice.cbSize : slice.crSize
                guard component(frame + offset, bytes: size, log2Blocks: slice.log2Mbs + chromaLog2, interlaced: targets.interlaced) else {
                    fill(slice, targets, luma: false, cb: plane == 1, cr: true)
                    return false
                }
                let stride = targets.pictureStride(plane)
                let base = targets.row(plane, pictureRow: slice.mbY * 16, parity: slice.parity) + slice.mbX * mbChroma
                for block in 0..<mbs << chromaLog2 {
                    // Per macroblock, columns of two blocks: top, bottom.
                    let mb = block >> chromaLog2, b = block & ((1 << chromaLog2) - 1)
                    transform(blocks + block * 64, matrix: matrices + 64, depth: targets.depth,
                              out: base + mb * mbChroma + (b >> 1) * 8 + (b & 1) * 8 * stride, stride: stride)
                }
            }
        } else {
            fillRect(slice, targets, plane: 1, width: mbChroma << slice.log2Mbs, value: targets.noChroma)
            fillRect(slice, targets, plane: 2, width: mbChroma << slice.log2Mbs, value: targets.noChroma)
        }
        guard targets.hasAlpha else { return true }
        if slice.alphaSize > 0 {
            let count = 256 << slice.log2Mbs, width = 16 << slice.log2Mbs
            var reader = BitReader(frame + crOffset + slice.crSize, bytes: slice.alphaSize)
            EntropyDecoder.decodeAlpha(&reader, into: alpha, count: count, streamBits: targets.alphaBits == 2 ? 16 : 8, depth: targets.depth)
            let stride = targets.pictureStride(3)
            let base = targets.row(3, pictureRow: slice.mbY * 16, parity: slice.parity) + slice.mbX * 16
            for y in 0..<16 { (base + y * stride).update(from: alpha + y * width, count: width) }
        } else {
            fillRect(slice, targets, plane: 3, width: 16 << slice.log2Mbs, value: targets.fillAlpha)
        }
        return true
    }

    private func component(_ start: UnsafePointer<UInt8>, bytes: Int, log2Blocks: Int, interlaced: Bool) -> Bool {
        blocks.update(repeating: 0, count: 64 << log2Blocks)
        var reader = BitReader(start, bytes: bytes)
        return EntropyDecoder.decodeCoefficients(&reader, into: blocks, log2Blocks: log2Blocks, interlaced: interlaced)
    }

    @inline(__always)
    private func transform(_ block: UnsafePointer<Int16>, matrix: UnsafePointer<Int16>, depth: Int, out: UnsafeMutablePointer<UInt16>,
                           stride: Int) {
        IntegerIDCT.put(depth: depth, block, matrix: matrix, out: out, stride: stride)
    }

    /// Conceals the components from the first failed one on: luma (and so
    /// everything), or chroma from Cb or from Cr; alpha with any of them.
    private func fill(_ slice: CPUSlice, _ targets: PlaneTargets, luma: Bool, cb: Bool, cr: Bool) {
        let width = 16 << slice.log2Mbs, chromaWidth = targets.chroma444 ? width : width / 2
        if luma { fillRect(slice, targets, plane: 0, width: width, value: targets.fillLuma) }
        if cb { fillRect(slice, targets, plane: 1, width: chromaWidth, value: targets.fillChroma) }
        if cr { fillRect(slice, targets, plane: 2, width: chromaWidth, value: targets.fillChroma) }
        if targets.hasAlpha { fillRect(slice, targets, plane: 3, width: width, value: targets.fillAlpha) }
    }

    private func fillRect(_ slice: CPUSlice, _ targets: PlaneTargets, plane: Int, width: Int, value: UInt16) {
        let perMb = plane == 1 || plane == 2 ? (targets.chroma444 ? 16 : 8) : 16
        let stride = targets.pictureStride(plane)
        let base = targets.row(plane, pictureRow: slice.mbY * 16, parity: slice.parity) + slice.mbX * perMb
        for y in 0..<16 { (base + y * stride).update(repeating: value, count: width) }
    }
}
