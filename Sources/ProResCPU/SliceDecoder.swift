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
    /// Picture rows are a field's: every other row of the planes.
    let interlaced: Bool
    /// The coefficients come in the interlaced scan order (a field's
    /// slices, even where the planes are a scratch of one picture's rows).
    let interlacedScan: Bool
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
///
/// Two slices of one size go together: their components' entropy decoding
/// runs interleaved (`EntropyDecoder`), each slice's outcome its own.
struct SliceDecoder {
    /// Coefficients of one component of each of two slices (up to 32
    /// blocks each, the second slice's `maxBlocks * 64` after the first's).
    private let blocks: UnsafeMutablePointer<Int16>
    /// Each slice's scaled matrices, transposed: luma then chroma.
    private let matrices: UnsafeMutablePointer<Int16>
    /// Alpha samples of one slice (16 rows of 128).
    private let alpha: UnsafeMutablePointer<UInt16>
    /// A block since `takeMayDiffer` left the range where FFmpeg's C and
    /// x86 SIMD IDCTs agree (`IntegerIDCT.put`).
    private let mayDiffer: UnsafeMutablePointer<Bool>

    static let maxBlocks = 32

    init() {
        blocks = .allocate(capacity: 2 * Self.maxBlocks * 64)
        matrices = .allocate(capacity: 2 * 128)
        alpha = .allocate(capacity: 16 * 128)
        mayDiffer = .allocate(capacity: 1)
        mayDiffer.initialize(to: false)
    }

    func deallocate() {
        blocks.deallocate()
        matrices.deallocate()
        alpha.deallocate()
        mayDiffer.deallocate()
    }

    /// Whether a block decoded since the last call may come out otherwise
    /// from FFmpeg's x86 decoder; starts over.
    func takeMayDiffer() -> Bool {
        defer { mayDiffer.pointee = false }
        return mayDiffer.pointee
    }

    /// Whether `decode` takes `first` and `second` together.
    static func pairs(_ first: CPUSlice, _ second: CPUSlice) -> Bool {
        first.valid && second.valid && first.log2Mbs == second.log2Mbs
    }

    /// Decodes `first` (and `second`, where `pairs` allows) of the frame at
    /// `frame` (followed by its padding) into `targets`. `lumaMatrix`,
    /// `chromaMatrix`: the quantisation matrices, natural order. Returns
    /// how many of the slices were damaged and concealed.
    func decode(
        _ first: CPUSlice, _ second: CPUSlice?, frame: UnsafePointer<UInt8>, targets: PlaneTargets,
        lumaMatrix: UnsafePointer<UInt8>, chromaMatrix: UnsafePointer<UInt8>
    ) -> Int {
        guard first.valid else {
            fill(first, targets, luma: true, cb: true, cr: true)
            return 1
        }
        // Two slots, the second empty (never alive) without a second slice:
        // no arrays, so that a slice allocates nothing.
        var a = SliceSlot(slice: first, index: 0, alive: true)
        var b = SliceSlot(slice: second ?? first, index: 1, alive: second != nil)
        scale(a, lumaMatrix: lumaMatrix, chromaMatrix: chromaMatrix)
        if b.alive { scale(b, lumaMatrix: lumaMatrix, chromaMatrix: chromaMatrix) }
        let mbs = 1 << first.log2Mbs
        let chromaLog2 = targets.chroma444 ? 2 : 1
        var damaged = 0

        let luma = entropy(a, b, frame: frame, log2Blocks: first.log2Mbs + 2, targets: targets) {
            ($0.dataOffset, $0.lumaSize)
        }
        func finishLuma(_ slot: inout SliceSlot, _ ok: Bool) {
            guard slot.alive else { return }
            if ok {
                transformLuma(slot, mbs: mbs, targets: targets)
            } else {
                fill(slot.slice, targets, luma: true, cb: true, cr: true)
                damaged += 1
                slot.alive = false
            }
            // A slice without chroma gets FFmpeg's fill there and goes on to alpha.
            if slot.alive && !slot.hasChroma {
                let width = (8 << (chromaLog2 - 1)) << slot.slice.log2Mbs
                fillRect(slot.slice, targets, plane: 1, width: width, value: targets.noChroma)
                fillRect(slot.slice, targets, plane: 2, width: width, value: targets.noChroma)
            }
        }
        finishLuma(&a, luma.0)
        finishLuma(&b, luma.1)
        for plane in 1...2 {
            var aChroma = a
            var bChroma = b
            aChroma.alive = a.alive && a.hasChroma
            bChroma.alive = b.alive && b.hasChroma
            let decoded = entropy(
                aChroma, bChroma, frame: frame, log2Blocks: first.log2Mbs + chromaLog2, targets: targets
            ) { slice in
                plane == 1
                    ? (slice.dataOffset + slice.lumaSize, slice.cbSize)
                    : (slice.dataOffset + slice.lumaSize + slice.cbSize, slice.crSize)
            }
            func finishChroma(_ slot: inout SliceSlot, decoding chroma: SliceSlot, _ ok: Bool) {
                guard chroma.alive else { return }
                if ok {
                    transformChroma(chroma, plane: plane, mbs: mbs, chromaLog2: chromaLog2, targets: targets)
                } else {
                    fill(chroma.slice, targets, luma: false, cb: plane == 1, cr: true)
                    damaged += 1
                    slot.alive = false
                }
            }
            finishChroma(&a, decoding: aChroma, decoded.0)
            finishChroma(&b, decoding: bChroma, decoded.1)
        }
        if targets.hasAlpha {
            if a.alive { decodeAlpha(a.slice, frame: frame, targets: targets) }
            if b.alive { decodeAlpha(b.slice, frame: frame, targets: targets) }
        }
        return damaged
    }

    /// A slice in one of the decoder's two scratch slots.
    private struct SliceSlot {
        let slice: CPUSlice
        let index: Int
        /// Still to be decoded: not absent, and no component failed.
        var alive: Bool

        var hasChroma: Bool { slice.cbSize + slice.crSize > 0 }
    }

    private func coefficients(_ slot: SliceSlot) -> UnsafeMutablePointer<Int16> {
        blocks + slot.index * Self.maxBlocks * 64
    }

    private func matrix(_ slot: SliceSlot, chroma: Bool) -> UnsafeMutablePointer<Int16> {
        matrices + slot.index * 128 + (chroma ? 64 : 0)
    }

    private func scale(_ slot: SliceSlot, lumaMatrix: UnsafePointer<UInt8>, chromaMatrix: UnsafePointer<UInt8>) {
        let luma = matrix(slot, chroma: false)
        let chroma = matrix(slot, chroma: true)
        for i in 0..<64 {
            let transposed = (i & 7) << 3 | i >> 3
            luma[transposed] = Int16(truncatingIfNeeded: Int(lumaMatrix[i]) * slot.slice.qscale)
            chroma[transposed] = Int16(truncatingIfNeeded: Int(chromaMatrix[i]) * slot.slice.qscale)
        }
    }

    /// Entropy-decodes one component of each live slot into its
    /// coefficients, the two together where both are live; `component`
    /// gives the component's offset and size. Whether each decoded (true
    /// for a slot not alive).
    private func entropy(
        _ a: SliceSlot, _ b: SliceSlot, frame: UnsafePointer<UInt8>, log2Blocks: Int, targets: PlaneTargets,
        component: (CPUSlice) -> (offset: Int, size: Int)
    ) -> (Bool, Bool) {
        func reader(_ slot: SliceSlot) -> BitReader {
            let (offset, size) = component(slot.slice)
            coefficients(slot).update(repeating: 0, count: 64 << log2Blocks)
            return BitReader(frame + offset, bytes: size)
        }
        func single(_ slot: SliceSlot) -> Bool {
            var only = reader(slot)
            return EntropyDecoder.decodeCoefficients(
                &only, into: coefficients(slot), log2Blocks: log2Blocks, interlaced: targets.interlacedScan)
        }
        switch (a.alive, b.alive) {
        case (true, true):
            var first = reader(a)
            var second = reader(b)
            return EntropyDecoder.decodeCoefficients(
                &first, into: coefficients(a), &second, into: coefficients(b), log2Blocks: log2Blocks,
                interlaced: targets.interlacedScan)
        case (true, false): return (single(a), true)
        case (false, true): return (true, single(b))
        case (false, false): return (true, true)
        }
    }

    private func transformLuma(_ slot: SliceSlot, mbs: Int, targets: PlaneTargets) {
        let slice = slot.slice
        let stride = targets.pictureStride(0)
        let blocks = coefficients(slot)
        let matrix = matrix(slot, chroma: false)
        for mb in 0..<mbs {
            // Blocks 0 and 1 side by side, 2 and 3 below them.
            let out = targets.row(0, pictureRow: slice.mbY * 16, parity: slice.parity) + (slice.mbX + mb) * 16
            for half in 0..<2 {
                let top = out + half * 8 * stride
                if IntegerIDCT.put2(
                    depth: targets.depth, blocks + (mb * 4 + half * 2) * 64, matrix: matrix, outA: top, outB: top + 8,
                    stride: stride)
                {
                    mayDiffer.pointee = true
                }
            }
        }
    }

    private func transformChroma(_ slot: SliceSlot, plane: Int, mbs: Int, chromaLog2: Int, targets: PlaneTargets) {
        let slice = slot.slice
        let stride = targets.pictureStride(plane)
        let mbChroma = 8 << (chromaLog2 - 1)
        let blocks = coefficients(slot)
        let matrix = matrix(slot, chroma: true)
        let base = targets.row(plane, pictureRow: slice.mbY * 16, parity: slice.parity) + slice.mbX * mbChroma
        // Per macroblock, columns of two blocks: top, bottom; a column's two
        // blocks go to the transform together.
        func out(_ block: Int) -> UnsafeMutablePointer<UInt16> {
            let mb = block >> chromaLog2
            let b = block & ((1 << chromaLog2) - 1)
            return base + mb * mbChroma + (b >> 1) * 8 + (b & 1) * 8 * stride
        }
        for block in Swift.stride(from: 0, to: mbs << chromaLog2, by: 2) {
            if IntegerIDCT.put2(
                depth: targets.depth, blocks + block * 64, matrix: matrix, outA: out(block), outB: out(block + 1),
                stride: stride)
            {
                mayDiffer.pointee = true
            }
        }
    }

    private func decodeAlpha(_ slice: CPUSlice, frame: UnsafePointer<UInt8>, targets: PlaneTargets) {
        guard slice.alphaSize > 0 else {
            fillRect(slice, targets, plane: 3, width: 16 << slice.log2Mbs, value: targets.fillAlpha)
            return
        }
        let count = 256 << slice.log2Mbs
        let width = 16 << slice.log2Mbs
        let start = frame + slice.dataOffset + slice.lumaSize + slice.cbSize + slice.crSize
        var reader = BitReader(start, bytes: slice.alphaSize)
        EntropyDecoder.decodeAlpha(
            &reader, into: alpha, count: count, streamBits: targets.alphaBits == 2 ? 16 : 8, depth: targets.depth)
        let stride = targets.pictureStride(3)
        let base = targets.row(3, pictureRow: slice.mbY * 16, parity: slice.parity) + slice.mbX * 16
        for y in 0..<16 { (base + y * stride).update(from: alpha + y * width, count: width) }
    }

    /// Conceals the components from the first failed one on: luma (and so
    /// everything), or chroma from Cb or from Cr; alpha with any of them.
    private func fill(_ slice: CPUSlice, _ targets: PlaneTargets, luma: Bool, cb: Bool, cr: Bool) {
        let width = 16 << slice.log2Mbs
        let chromaWidth = targets.chroma444 ? width : width / 2
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
