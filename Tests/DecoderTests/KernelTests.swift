import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

// Kernel-level tests of the GPU ProRes decoder, in the style of dav1d's
// tests/checkasm: each compute pass runs ALONE (KernelHarness) on random
// inputs and is compared with an independent CPU reference
// (KernelReference.swift, ProResTestEncoder.swift), so that a failure names
// the frame, slice, macroblock, block and sample.
//
// TransformKernelTests: prores_idct.comp alone, on coefficient buffers
//   filled here (coded order, random gaps between slice regions), with the
//   slice and frame tables written here from SliceTable's documented layout;
//   every 16-bit sample of the surface (and the gaps around each frame)
//   against ReferenceDecoder: 10-bit 4:2:2 (v216) and 12-bit 4:4:4 (y416,
//   with 8- or 16-bit alpha and without), the other two variants,
//   progressive and both field orders, odd sizes, typical, extreme and
//   wrapping coefficients, and concealment of failed slices.
// EntropyKernelTests: prores_vld.comp alone, on synthetic frames made by
//   ProResTestEncoder and parsed by SliceTable; the coefficient buffer
//   against the coefficients that were encoded, the status against zero;
//   corrupted codewords must be flagged; FFmpeg's early end of a component
//   must be reproduced.
// ReferenceKernelTests: the references themselves against FFmpeg's decoder.
//
// Seeds are fixed per test, printed, and overridden by KERNEL_TESTS_SEED
// (decimal or 0x-hex) to try others.

enum KernelTestSeed {
    static func seed(_ fallback: UInt64) -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment["KERNEL_TESTS_SEED"] else { return fallback }
        if text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) { return value }
        return UInt64(text) ?? fallback
    }
}

enum CoefficientStyle: String {
    /// Sparse, small AC values, smooth DCs, moderate scales and matrices: what real streams hold.
    case typical
    /// Dense full-range int16 values, edge values, any scale and matrix: the 16-bit products and
    /// 32-bit sums wrap, as they do in FFmpeg.
    case extreme
    /// Typical content with some coefficients replaced by large ones whose 16-bit dequantised
    /// product wraps to a small value: the picture stays unclipped, so every sample shows
    /// whether the wrap was done as FFmpeg does it.
    case wrapping
}

extension KernelRandom {
    /// One component's quantised coefficients in coded order (scan position × blocks + block).
    mutating func coefficients(log2Blocks: Int, style: CoefficientStyle) -> [Int16] {
        let blocks = 1 << log2Blocks
        var coded = [Int16](repeating: 0, count: 64 << log2Blocks)
        switch style {
        case .typical, .wrapping:
            let density = pick([0.0, 0.04, 0.2, 0.5])
            var dc = int(-700...700)
            for b in 0..<blocks {
                dc += int(-60...60)
                coded[b] = Int16(clamping: dc)
            }
            for scan in 1..<64 {
                let p = density * exp(-Double(scan) / 20)
                for b in 0..<blocks where chance(p) {
                    var magnitude = 1
                    while magnitude < 1024 && chance(0.4) { magnitude *= 2 }
                    magnitude = int(max(1, magnitude / 2)...magnitude)
                    coded[scan << log2Blocks | b] = Int16(chance(0.5) ? -magnitude : magnitude)
                }
            }
        case .extreme:
            let density = pick([0.3, 0.9, 1.0])
            for p in 0..<coded.count where p < blocks || chance(density) { coded[p] = extremeInt16() }
        }
        return coded
    }

    mutating func extremeInt16() -> Int16 {
        chance(0.3)
            ? pick([Int16.min, Int16.max, Int16.min + 1, -1, 1, 16384, -16384, 8191, -8192])
            : Int16(truncatingIfNeeded: next())
    }

    /// A quantisation matrix (natural order).
    mutating func matrix(style: CoefficientStyle) -> [UInt8] {
        switch style {
        case .typical, .wrapping:
            let base = int(2...6)
            let slope = int(0...5)
            return (0..<64).map { UInt8(min(255, base + ($0 / 8 + $0 % 8) * slope + int(0...3))) }
        case .extreme:
            return (0..<64).map { _ in chance(0.25) ? pick([0, 1, 255, 128]) : UInt8(int(0...255)) }
        }
    }

    /// Slice header byte 1 (FFmpeg clips it to 1...224; above 128 it scales by 4).
    mutating func qscaleCode(style: CoefficientStyle) -> Int {
        switch style {
        case .typical: return chance(0.8) ? int(1...12) : int(1...224)
        case .wrapping: return chance(0.5) ? int(1...12) : int(129...224)
        case .extreme: return chance(0.4) ? pick([0, 1, 128, 129, 224, 255]) : int(0...255)
        }
    }

    /// Replaces some coefficients of a component by values whose product
    /// with their (int16) scaled matrix entry overflows 16 bits and wraps to
    /// a small value.
    mutating func wrapSome(_ coded: inout [Int16], log2Blocks: Int, matrix: [UInt8], qscale: Int, interlaced: Bool) {
        let scan = interlaced ? ProResScan.interlaced : ProResScan.progressive
        for p in coded.indices where (coded[p] != 0 || p < 1 << log2Blocks) && chance(0.4) {
            let q = Int(Int16(truncatingIfNeeded: Int(matrix[scan[p >> log2Blocks]]) * qscale))
            guard q != 0 else { continue }
            for _ in 0..<300 {
                let c = Int(Int16(truncatingIfNeeded: next()))
                let product = Int(Int16(truncatingIfNeeded: c * q))
                if abs(c * q) > 32767 && abs(product) < (p < 1 << log2Blocks ? 3000 : 600) {
                    coded[p] = Int16(c)
                    break
                }
            }
        }
    }

    /// Alpha samples of `bits` bits: runs, small steps (the compact code), jumps.
    mutating func alphaSamples(count: Int, bits: Int, style: CoefficientStyle) -> [UInt16] {
        let mask = (1 << bits) - 1
        if style == .extreme && chance(0.5) { return (0..<count).map { _ in UInt16(int(0...mask)) } }
        let compact = bits == 16 ? 64 : 8
        var samples: [UInt16] = []
        var current = chance(0.5) ? mask : int(0...mask)
        while samples.count < count {
            switch int(0..<4) {
            case 0:
                let run = pick([int(1...3), int(4...20), int(15...17), int(100...2100)])
                samples += [UInt16](repeating: UInt16(current), count: run)
            case 1:
                current = (current + (chance(0.5) ? 1 : -1) * int(1...compact)) & mask
                samples.append(UInt16(current))
            case 2:
                current = chance(0.2) ? pick([0, mask]) : int(0...mask)
                samples.append(UInt16(current))
            default:
                // One step just past the compact range, or a wrap around the mask.
                current = (current + pick([compact + 1, -(compact + 1), mask, 1 - mask])) & mask
                samples.append(UInt16(current))
            }
        }
        return Array(samples.prefix(count))
    }
}

/// Builds random synthetic frames (the slices of RDD 36's layout, with
/// random coefficients).
struct SyntheticFrameMaker {
    var width: Int
    var height: Int
    var chroma444: Bool
    var fieldOrder: ProResFrameHeader.FieldOrder = .progressive
    var alpha: ProResFrameHeader.Alpha = .none
    var style: CoefficientStyle = .typical

    /// `log2SliceWidths`: per picture; nil picks at random.
    func make(_ rng: inout KernelRandom, log2SliceWidths: [Int]? = nil, alphaDepth: Int? = nil) -> SyntheticFrame {
        var frame = SyntheticFrame(
            width: width, height: height, chroma444: chroma444, fieldOrder: fieldOrder, alpha: alpha,
            lumaMatrix: rng.matrix(style: style), chromaMatrix: rng.matrix(style: style), log2SliceWidths: [])
        frame.log2SliceWidths = log2SliceWidths ?? (0..<frame.pictures).map { _ in rng.int(0...3) }
        for picture in 0..<frame.pictures {
            for place in SyntheticFrame.sliceLayout(
                mbWidth: frame.mbWidth, mbHeight: frame.mbHeight,
                log2SliceWidth: frame.log2SliceWidths[picture])
            {
                let l = place.log2Mbs
                var slice = SyntheticSlice(
                    picture: picture, mbX: place.mbX, mbY: place.mbY, log2Mbs: l,
                    qscaleCode: rng.qscaleCode(style: style),
                    luma: rng.coefficients(log2Blocks: l + 2, style: style),
                    cb: rng.coefficients(log2Blocks: l + frame.chromaLog2, style: style),
                    cr: rng.coefficients(log2Blocks: l + frame.chromaLog2, style: style))
                if style == .wrapping {
                    let q = slice.qscale
                    let interlaced = frame.interlaced
                    rng.wrapSome(
                        &slice.luma, log2Blocks: l + 2, matrix: frame.lumaMatrix, qscale: q, interlaced: interlaced)
                    rng.wrapSome(
                        &slice.cb, log2Blocks: l + frame.chromaLog2, matrix: frame.chromaMatrix, qscale: q,
                        interlaced: interlaced)
                    rng.wrapSome(
                        &slice.cr, log2Blocks: l + frame.chromaLog2, matrix: frame.chromaMatrix, qscale: q,
                        interlaced: interlaced)
                }
                if alpha != .none {
                    slice.alphaCoded = rng.alphaSamples(count: 256 << l, bits: alpha.bits, style: style)
                    if let alphaDepth {
                        slice.alphaDecoded = rng.alphaSamples(count: 256 << l, bits: alphaDepth, style: style)
                    }
                }
                frame.slices.append(slice)
            }
        }
        return frame
    }
}

// MARK: - Transform pass

final class TransformKernelTests: XCTestCase {
    struct Case {
        var name: String
        var maker: SyntheticFrameMaker
        var depth: Int
        var frames = 2
        var slicesPerRow = 32
        /// Slices with failed components, rejected headers, no chroma or no alpha.
        var damage = false
        var seed: UInt64
    }

    private static let sentinel: UInt64 = 0xA5A5_5A5A_C3C3_3C3C

    func testProgressive422At10Bits() throws {
        for style in [CoefficientStyle.typical, .extreme, .wrapping] {
            try run(
                Case(
                    name: "4:2:2 10-bit progressive \(style)",
                    maker: .init(width: 240, height: 48, chroma444: false, style: style), depth: 10, seed: 0x4221_0001))
        }
        // An odd width (the last v216 pair repeats Y'0), a partial macroblock row, narrow dispatch rows.
        try run(
            Case(
                name: "4:2:2 10-bit progressive odd size", maker: .init(width: 77, height: 37, chroma444: false),
                depth: 10,
                frames: 3, slicesPerRow: 3, seed: 0x4221_0002))
    }

    func testInterlaced422At10Bits() throws {
        for (order, style) in [
            (ProResFrameHeader.FieldOrder.topFieldFirst, CoefficientStyle.typical), (.bottomFieldFirst, .typical),
            (.topFieldFirst, .extreme), (.bottomFieldFirst, .extreme), (.topFieldFirst, .wrapping),
        ] {
            try run(
                Case(
                    name: "4:2:2 10-bit \(order.rawValue) \(style)",
                    maker: .init(width: 240, height: 54, chroma444: false, fieldOrder: order, style: style), depth: 10,
                    slicesPerRow: 8, seed: 0x4221_0003))
        }
    }

    func testProgressive444At12Bits() throws {
        for (alpha, style) in [
            (ProResFrameHeader.Alpha.none, CoefficientStyle.typical), (.bits16, .typical), (.bits8, .typical),
            (.none, .extreme), (.bits16, .extreme), (.bits16, .wrapping),
        ] {
            try run(
                Case(
                    name: "4:4:4 12-bit progressive alpha \(alpha.bits) \(style)",
                    maker: .init(width: 240, height: 32, chroma444: true, alpha: alpha, style: style), depth: 12,
                    seed: 0x4441_0001))
        }
        try run(
            Case(
                name: "4:4:4 12-bit progressive odd size",
                maker: .init(width: 45, height: 19, chroma444: true, alpha: .bits16),
                depth: 12, frames: 3, slicesPerRow: 2, seed: 0x4441_0002))
    }

    func testInterlaced444At12Bits() throws {
        for (order, alpha, style) in [
            (ProResFrameHeader.FieldOrder.topFieldFirst, ProResFrameHeader.Alpha.bits16, CoefficientStyle.typical),
            (.bottomFieldFirst, .none, .typical), (.topFieldFirst, .none, .extreme),
            (.bottomFieldFirst, .bits8, .extreme), (.bottomFieldFirst, .none, .wrapping),
        ] {
            try run(
                Case(
                    name: "4:4:4 12-bit \(order.rawValue) alpha \(alpha.bits) \(style)",
                    maker: .init(
                        width: 240, height: 45, chroma444: true, fieldOrder: order, alpha: alpha, style: style),
                    depth: 12, slicesPerRow: 8, seed: 0x4441_0003))
        }
    }

    /// The two variants FFmpeg produces less often (a 4444 FourCC on 4:2:2
    /// frames decodes at 12 bits, a 4:2:2 FourCC on 4:4:4 frames at 10).
    func testOtherDepthAndChromaVariants() throws {
        for style in [CoefficientStyle.typical, .extreme, .wrapping] {
            try run(
                Case(
                    name: "4:2:2 12-bit \(style)", maker: .init(width: 120, height: 32, chroma444: false, style: style),
                    depth: 12, seed: 0x4222_0001))
            try run(
                Case(
                    name: "4:4:4 10-bit alpha 16 \(style)",
                    maker: .init(
                        width: 120, height: 32, chroma444: true, fieldOrder: .topFieldFirst, alpha: .bits16,
                        style: style),
                    depth: 10, seed: 0x4442_0001))
        }
    }

    /// Components the entropy pass flagged, headers the host rejected,
    /// slices without chroma or alpha data: FFmpeg's order (Y', Cb, Cr,
    /// alpha; the first failure ends the slice) over the neutral pre-fill.
    func testConcealment() throws {
        try run(
            Case(
                name: "4:2:2 10-bit damage", maker: .init(width: 240, height: 48, chroma444: false), depth: 10,
                damage: true, seed: 0xDA4A_0001))
        try run(
            Case(
                name: "4:4:4 12-bit damage",
                maker: .init(
                    width: 240, height: 45, chroma444: true, fieldOrder: .bottomFieldFirst,
                    alpha: .bits16), depth: 12, damage: true, seed: 0xDA4A_0002))
    }

    // MARK: Harness

    private func run(_ c: Case, file: StaticString = #filePath, line: UInt = #line) throws {
        let seed = KernelTestSeed.seed(c.seed)
        var rng = KernelRandom(seed: seed)
        let started = Date()
        var frames: [SyntheticFrame] = []
        for i in 0..<c.frames {
            // The first frame has every slice width (8, 4, 2, 1 in a 15-macroblock row).
            var frame = c.maker.make(&rng, log2SliceWidths: i == 0 ? [3, 3] : nil, alphaDepth: c.depth)
            if c.damage {
                for s in frame.slices.indices where rng.chance(0.4) {
                    switch rng.int(0..<5) {
                    case 0: frame.slices[s].headerValid = false
                    case 1: frame.slices[s].noChroma = true
                    case 2: frame.slices[s].noAlpha = true
                    default: frame.slices[s].statusFlags = UInt32(rng.int(1...15))
                    }
                }
            }
            frames.append(frame)
        }

        let harness = try KernelHarness.shared.get()
        let batch = Self.batch(frames, depth: c.depth, rng: &rng, slicesPerRow: c.slicesPerRow)
        let (got, report) = try harness.runTransformPass(batch.pass)
        // Bits 0-3 (the failed components) as given; bit 4 is the may-differ flag.
        XCTAssertEqual(
            report.map { $0 & 15 }, batch.pass.status, "[\(c.name)] every slice's status words, reported back as given",
            file: file, line: line)
        let planes = frames.map { ReferenceDecoder.planes($0, depth: c.depth) }
        var expected = [UInt64](repeating: Self.sentinel, count: batch.pass.surfaceUnits)
        for (f, frame) in frames.enumerated() {
            let packed = ReferenceDecoder.pack(planes[f], frame: frame, depth: c.depth)
            expected.replaceSubrange(batch.surfaceOffsets[f]..<batch.surfaceOffsets[f] + packed.count, with: packed)
        }
        let slices = frames.map(\.slices.count).reduce(0, +)
        print(
            "kernel transform [\(c.name)]: seed 0x\(String(seed, radix: 16)), \(frames.count) frames, \(slices) slices, "
                + "\(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        let failures = Self.compare(
            got: got, expected: expected, frames: frames, planes: planes, batch: batch, depth: c.depth)
        if !failures.isEmpty {
            XCTFail(
                "transform [\(c.name)] seed 0x\(String(seed, radix: 16)): \(failures.count) samples differ "
                    + "(\(zip(got, expected).filter { $0 != $1 }.count) of \(got.count) 8-byte units)\n"
                    + failures.prefix(12).joined(separator: "\n") + (failures.count > 12 ? "\n..." : "")
                    + Self.firstBlockDump(got: got, expected: expected, frames: frames, planes: planes, batch: batch),
                file: file, line: line)
        }
        XCTAssertEqual(harness.validationMessages, [], "validation layer", file: file, line: line)
    }

    struct Batch {
        var pass: KernelHarness.TransformPass
        var surfaceOffsets: [Int]
        var firstSlices: [Int]
        var unitsPerFrame: Int
    }

    /// The slice and frame tables (packed with DecoderKernels' declared fields), the coefficient regions with random
    /// gaps between them, and a surface with gaps between frames.
    static func batch(_ frames: [SyntheticFrame], depth: Int, rng: inout KernelRandom, slicesPerRow: Int) -> Batch {
        let first = frames[0]
        let unitsPerRow = first.chroma444 ? first.width : (first.width + 1) / 2
        let unitsPerFrame = unitsPerRow * first.height
        var slices: [UInt32] = []
        var frameWords: [UInt32] = []
        var coefficients: [Int16] = []
        var surfaceOffsets: [Int] = []
        var firstSlices: [Int] = []
        var surfaceCursor = 0
        var sliceCount = 0
        var maxSlices = 0
        var maxLog2 = 0
        func junk(_ count: Int) -> [Int16] { (0..<count).map { _ in Int16(truncatingIfNeeded: rng.next()) } }
        for (f, frame) in frames.enumerated() {
            surfaceCursor += rng.int(0...3) * 17  // a gap the pass must not write
            surfaceOffsets.append(surfaceCursor)
            firstSlices.append(sliceCount)
            for slice in frame.slices {
                coefficients += junk(rng.pick([0, 0, 64, 128]))
                let start = coefficients.count
                coefficients += slice.luma + slice.cb + slice.cr
                if frame.alpha != .none {
                    coefficients += slice.alphaDecoded.map { Int16(truncatingIfNeeded: $0) }
                }
                let parity = frame.interlaced ? (frame.fieldOrder == .bottomFieldFirst ? 1 : 0) ^ slice.picture : 0
                let alphaSize = frame.alpha != .none && !slice.noAlpha ? 40 : 0
                typealias Entry = DecoderKernels.Slice
                var entry = [UInt32](repeating: 0, count: SliceTable.sliceWords)
                func set(_ field: BitField, _ value: Int) { entry[field.word] |= field.encode(value) }
                // The byte offset is not read by the transform: left 0.
                set(Entry.headerSize, 6)
                set(Entry.qscale, slice.qscale)
                set(Entry.log2Macroblocks, slice.log2Mbs)
                set(Entry.valid, slice.headerValid ? 1 : 0)
                set(Entry.lumaSize, 100)
                set(Entry.cbSize, slice.noChroma ? 0 : 60)
                set(Entry.crSize, slice.noChroma ? 0 : 60)
                set(Entry.alphaSize, alphaSize)
                set(Entry.column, slice.mbX)
                set(Entry.row, slice.mbY)
                set(Entry.frame, f)
                set(Entry.fieldParity, parity)
                set(Entry.interlaced, frame.interlaced ? 1 : 0)
                set(Entry.firstCoefficient, start)
                slices += entry
                maxLog2 = max(maxLog2, slice.log2Mbs)
            }
            sliceCount += frame.slices.count
            maxSlices = max(maxSlices, frame.slices.count)
            typealias FrameEntry = DecoderKernels.Frame
            var words = [UInt32](repeating: 0, count: SliceTable.frameWords)
            words[FrameEntry.firstSlice.word] |= FrameEntry.firstSlice.encode(firstSlices[f])
            words[FrameEntry.sliceCount.word] |= FrameEntry.sliceCount.encode(frame.slices.count)
            words[FrameEntry.surfaceOffset.word] |= FrameEntry.surfaceOffset.encode(surfaceOffsets[f])
            words[FrameEntry.alphaBits.word] |= FrameEntry.alphaBits.encode(frame.alpha.rawValue)
            for i in 0..<FrameEntry.lumaMatrix.count {
                func word(_ m: [UInt8]) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(m[4 * i + $1]) << (8 * $1) } }
                words[FrameEntry.lumaMatrix.word + i] = word(frame.lumaMatrix)
                words[FrameEntry.chromaMatrix.word + i] = word(frame.chromaMatrix)
            }
            frameWords += words
            surfaceCursor += unitsPerFrame
        }
        coefficients += junk(64)
        let status = frames.flatMap { $0.slices.map(\.statusFlags) }
        let pass = KernelHarness.TransformPass(
            chroma444: first.chroma444, depth12: depth == 12, slices: slices, frames: frameWords,
            coefficients: coefficients,
            status: status, frameCount: frames.count, maxSlicesPerFrame: maxSlices, log2MaxMbs: maxLog2,
            width: first.width, height: first.height, unitsPerRow: unitsPerRow,
            surfaceUnits: surfaceCursor + 29, surfaceFill: sentinel, slicesPerRow: slicesPerRow)
        return Batch(pass: pass, surfaceOffsets: surfaceOffsets, firstSlices: firstSlices, unitsPerFrame: unitsPerFrame)
    }

    private struct Sample {
        var frame: Int
        var row: Int
        var x: Int
        var component: String
        var origin: ReferencePlanes.Origin?
        var expected: UInt16
        var got: UInt16
        /// The luma column of the sample (v216 chroma: of its pair).
        var lumaX: Int { component == "Cb" || component == "Cr" ? (chromaPair ? 2 * x : x) : x }
        var chromaPair = false
    }

    /// The slice (and macroblock in it) that covers a frame sample.
    private static func slice(at row: Int, lumaX: Int, in frame: SyntheticFrame) -> (index: Int, mb: Int)? {
        let picture = frame.interlaced ? (row & 1) ^ (frame.fieldOrder == .bottomFieldFirst ? 1 : 0) : 0
        let pictureRow = frame.interlaced ? row >> 1 : row
        let mbX = lumaX >> 4
        let mbY = pictureRow >> 4
        guard
            let index = frame.slices.firstIndex(where: {
                $0.picture == picture && $0.mbY == mbY && $0.mbX <= mbX && mbX < $0.mbX + (1 << $0.log2Mbs)
            })
        else { return nil }
        return (index, mbX - frame.slices[index].mbX)
    }

    /// Every differing 16-bit sample of the surface, named.
    private static func mismatches(
        got: [UInt64], expected: [UInt64], frames: [SyntheticFrame], planes: [ReferencePlanes],
        batch: Batch
    ) -> (samples: [Sample], stray: [String]) {
        var samples: [Sample] = []
        var stray: [String] = []
        let unitsPerRow = batch.pass.unitsPerRow
        for i in got.indices where got[i] != expected[i] {
            guard let f = batch.surfaceOffsets.indices.last(where: { batch.surfaceOffsets[$0] <= i }),
                i < batch.surfaceOffsets[f] + batch.unitsPerFrame
            else {
                stray.append(
                    "unit \(i), outside every frame's surface: expected 0x\(String(expected[i], radix: 16)) (untouched), "
                        + "got 0x\(String(got[i], radix: 16))")
                continue
            }
            let local = i - batch.surfaceOffsets[f]
            let row = local / unitsPerRow
            let unit = local % unitsPerRow
            let p = planes[f]
            for lane in 0..<4 {
                let e = UInt16(truncatingIfNeeded: expected[i] >> UInt64(16 * lane))
                let g = UInt16(truncatingIfNeeded: got[i] >> UInt64(16 * lane))
                guard e != g else { continue }
                var sample = Sample(frame: f, row: row, x: unit, component: "", origin: nil, expected: e, got: g)
                if frames[f].chroma444 {
                    sample.component = ["A", "Y'", "Cb", "Cr"][lane]
                    switch lane {
                    case 1: sample.origin = p.yOrigin[row * p.width + unit]
                    case 2: sample.origin = p.cbOrigin[row * p.chromaWidth + unit]
                    case 3: sample.origin = p.crOrigin[row * p.chromaWidth + unit]
                    default: break
                    }
                } else {
                    sample.component = ["Cb", "Y'0", "Cr", "Y'1"][lane]
                    sample.chromaPair = true
                    switch lane {
                    case 0: sample.origin = p.cbOrigin[row * p.chromaWidth + unit]
                    case 2: sample.origin = p.crOrigin[row * p.chromaWidth + unit]
                    default:
                        // An odd width's last Y'1 repeats Y'0.
                        sample.x = lane == 3 && 2 * unit + 1 < frames[f].width ? 2 * unit + 1 : 2 * unit
                        sample.origin = p.yOrigin[row * p.width + sample.x]
                    }
                }
                samples.append(sample)
            }
        }
        return (samples, stray)
    }

    static func compare(
        got: [UInt64], expected: [UInt64], frames: [SyntheticFrame], planes: [ReferencePlanes], batch: Batch,
        depth: Int
    ) -> [String] {
        let (samples, stray) = mismatches(got: got, expected: expected, frames: frames, planes: planes, batch: batch)
        let shift = 16 - depth
        return stray
            + samples.map { s in
                var text =
                    "frame \(s.frame) row \(s.row) \(s.chromaPair && !s.component.hasPrefix("Y") ? "chroma column" : "x") \(s.x) \(s.component)"
                func describe(_ index: Int) -> String {
                    let slice = frames[s.frame].slices[index]
                    var damage: [String] = []
                    if !slice.headerValid { damage.append("header rejected") }
                    if slice.statusFlags != 0 { damage.append("status 0x\(String(slice.statusFlags, radix: 16))") }
                    if slice.noChroma { damage.append("no chroma data") }
                    if slice.noAlpha { damage.append("no alpha data") }
                    return "slice \(index) (picture \(slice.picture), macroblock column \(slice.mbX) row \(slice.mbY), "
                        + "\(1 << slice.log2Mbs) wide, qscale \(slice.qscale)\(damage.isEmpty ? "" : ", " + damage.joined(separator: ", ")))"
                }
                if let o = s.origin {
                    let perMb = 1 << frames[s.frame].chromaLog2
                    let block =
                        o.block < 4
                        ? "Y' block \(o.block)"
                        : o.block < 4 + perMb ? "Cb block \(o.block - 4)" : "Cr block \(o.block - 4 - perMb)"
                    text +=
                        ": " + describe(o.slice)
                        + ", macroblock \(o.mb), \(block), block row \(o.row), column \(o.column)"
                } else if let (index, mb) = slice(at: s.row, lumaX: s.lumaX, in: frames[s.frame]) {
                    text += ": " + describe(index) + ", macroblock \(mb), not decoded (fill value expected)"
                }
                let value = { (v: UInt16) in
                    s.component == "A" ? "\(v)" : "\(v >> UInt16(shift)) (0x\(String(v, radix: 16)))"
                }
                return text + ": expected \(value(s.expected)), got \(value(s.got))"
            }
    }

    /// The first differing sample's block: its quantised coefficients in natural order.
    private static func firstBlockDump(
        got: [UInt64], expected: [UInt64], frames: [SyntheticFrame], planes: [ReferencePlanes],
        batch: Batch
    ) -> String {
        let (samples, _) = mismatches(got: got, expected: expected, frames: frames, planes: planes, batch: batch)
        guard let s = samples.first(where: { $0.origin != nil }), let o = s.origin else { return "" }
        let frame = frames[s.frame]
        let slice = frame.slices[o.slice]
        let luma = o.block < 4
        let blocksPerMb = luma ? 4 : 1 << frame.chromaLog2
        let log2Blocks = slice.log2Mbs + (luma ? 2 : frame.chromaLog2)
        let inComponent = luma ? o.mb * 4 + o.block : o.mb * blocksPerMb + (o.block - 4) % blocksPerMb
        let coded = luma ? slice.luma : (o.block - 4) < blocksPerMb ? slice.cb : slice.cr
        let natural = ProResScan.naturalBlock(
            coded[...], block: inComponent, log2Blocks: log2Blocks, interlaced: frame.interlaced)
        let matrix = luma ? frame.lumaMatrix : frame.chromaMatrix
        let rows = (0..<8).map { r in (0..<8).map { String(natural[r * 8 + $0]) }.joined(separator: " ") }
        let mrows = (0..<8).map { r in (0..<8).map { String(matrix[r * 8 + $0]) }.joined(separator: " ") }
        return "\nfirst differing block's quantised coefficients (natural order), qscale \(slice.qscale):\n  "
            + rows.joined(separator: "\n  ") + "\nmatrix:\n  " + mrows.joined(separator: "\n  ")
    }
}

// MARK: - Entropy pass

final class EntropyKernelTests: XCTestCase {
    struct Case {
        var name: String
        var maker: SyntheticFrameMaker
        /// Frames in the batch; the first has slices of every width.
        var frames = 3
        /// Alpha samples stored at 12 bits (else 10).
        var alphaShift12 = true
        var seed: UInt64
    }

    private static let sentinel: Int16 = 0x5A5B

    func test422AllSliceWidths() throws {
        for style in [CoefficientStyle.typical, .extreme] {
            try run(
                Case(
                    name: "4:2:2 progressive \(style)",
                    maker: .init(width: 240, height: 80, chroma444: false, style: style),
                    frames: 4, seed: 0xE422_0001))
        }
        try run(Case(name: "4:2:2 odd size", maker: .init(width: 93, height: 41, chroma444: false), seed: 0xE422_0002))
    }

    func test422Interlaced() throws {
        for (order, style) in [
            (ProResFrameHeader.FieldOrder.topFieldFirst, CoefficientStyle.typical), (.bottomFieldFirst, .extreme),
        ] {
            try run(
                Case(
                    name: "4:2:2 \(order.rawValue) \(style)",
                    maker: .init(width: 240, height: 64, chroma444: false, fieldOrder: order, style: style),
                    seed: 0xE422_0003))
        }
    }

    func test444WithAndWithoutAlpha() throws {
        for (alpha, shift12, style) in [
            (ProResFrameHeader.Alpha.none, true, CoefficientStyle.typical), (.bits16, true, .typical),
            (.bits8, true, .typical), (.bits16, false, .typical), (.bits8, false, .extreme),
            (.bits16, true, .extreme), (.none, true, .extreme),
        ] {
            try run(
                Case(
                    name: "4:4:4 alpha \(alpha.bits) at \(shift12 ? 12 : 10) bits \(style)",
                    maker: .init(width: 240, height: 48, chroma444: true, alpha: alpha, style: style),
                    alphaShift12: shift12, seed: 0xE444_0001))
        }
        try run(
            Case(
                name: "4:4:4 interlaced alpha 16",
                maker: .init(
                    width: 240, height: 64, chroma444: true, fieldOrder: .topFieldFirst,
                    alpha: .bits16), seed: 0xE444_0002))
    }

    /// 4:2:2 with alpha (which the GPU decoder as a whole refuses: v216 has
    /// no alpha) still goes through the entropy pass's alpha path.
    func test422WithAlpha() throws {
        try run(
            Case(
                name: "4:2:2 alpha 8", maker: .init(width: 176, height: 32, chroma444: false, alpha: .bits8),
                alphaShift12: false, seed: 0xE422_0004))
    }

    /// Damaged codewords must set the slice's failure bit for that component
    /// (and only that one), not decode silently.
    func testCorruptedCodewordsAreFlagged() throws {
        let seed = KernelTestSeed.seed(0xBAD0_0001)
        var rng = KernelRandom(seed: seed)
        let maker = SyntheticFrameMaker(width: 240, height: 48, chroma444: false)
        var frame = maker.make(&rng, log2SliceWidths: [3])
        var encoded = Self.encode(&frame, rng: &rng)
        let blocks = { (i: Int, luma: Bool) in 1 << (frame.slices[i].log2Mbs + (luma ? 2 : 1)) }

        // The DC's exp-Golomb prefix runs past 31 bits (FFmpeg: AVERROR_INVALIDDATA).
        encoded[0].luma = [0, 0, 0, 0, 0x80] + encoded[0].luma
        // A run that carries the position past the component's end.
        do {
            var w = BitWriter()
            try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: 0, count: blocks(1, false)))
            try ProResEntropyEncoder.write(&w, 64 * blocks(1, false), codebook: ProResEntropyEncoder.runCodebooks[4])
            try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.levelCodebooks[2])
            w.write(0, bits: 1)
            encoded[1].cb = w.finished()
        }
        // A level codeword whose prefix runs past 31 bits.
        do {
            var w = BitWriter()
            try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: 0, count: blocks(2, false)))
            try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.runCodebooks[4])
            w.zeros(40)
            w.write(1, bits: 1)
            encoded[2].cr = w.finished()
        }
        // A first DC codeword that is valid, then garbage where a run is due, whose prefix is too long.
        do {
            var w = BitWriter()
            try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: 7, count: blocks(3, true)))
            w.zeros(33)
            w.write(0xFF, bits: 8)
            encoded[3].luma = w.finished()
        }
        // A level codeword of exactly 32 bits (32768 after a level of 1): FFmpeg takes at most 31.
        do {
            var w = BitWriter()
            try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: -3, count: blocks(4, false)))
            try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.runCodebooks[4])
            try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.levelCodebooks[2])
            w.write(1, bits: 1)
            try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.runCodebooks[0])
            XCTAssertThrowsError(
                try ProResEntropyEncoder.codeword(32767, codebook: ProResEntropyEncoder.levelCodebooks[1]))
            w.zeros(16)
            w.write(0x8000, bits: 16)
            w.write(0, bits: 1)
            encoded[4].cb = w.finished()
        }
        let expectedFlags: [Int: UInt32] = [0: 1, 1: 2, 2: 4, 3: 1, 4: 2]

        let bytes = ProResFrameWriter.frame(frame, slices: encoded)
        let harness = try KernelHarness.shared.get()
        let (pass, table) = try Self.pass([bytes], frames: [frame], alphaShift12: false)
        let (coefficients, status) = try harness.runEntropyPass(pass)
        print("kernel entropy [corrupted codewords]: seed 0x\(String(seed, radix: 16)), status \(status)")
        XCTAssertEqual(status.count, frame.slices.count, "a status word for every slice")
        for (i, flags) in status.enumerated() {
            XCTAssertEqual(flags, expectedFlags[i] ?? 0, "slice \(i): status bits (1 Y', 2 Cb, 4 Cr)")
        }
        XCTAssertEqual(table[0].invalidSlices, 0)
        // The components that were not damaged still decode exactly.
        var damaged = frame
        for (i, flags) in expectedFlags {
            if flags & 1 != 0 { damaged.slices[i].luma = [] }
            if flags & 2 != 0 { damaged.slices[i].cb = [] }
            if flags & 4 != 0 { damaged.slices[i].cr = [] }
        }
        let failures = Self.compare(coefficients: coefficients, frames: [damaged], alphaShift12: false)
        XCTAssert(
            failures.isEmpty, "seed 0x\(String(seed, radix: 16)):\n" + failures.prefix(12).joined(separator: "\n"))

        // FFmpeg's own decoder finds the same frame damaged.
        let ffmpeg = try FFmpegProRes.decode(
            bytes, width: frame.width, height: frame.height, chroma444: false, depth: 10,
            alpha: false, plainC: true)
        XCTAssertNotEqual(ffmpeg.decodeErrorFlags, 0, "FFmpeg decoded the corrupted frame without an error flag")
        XCTAssertEqual(harness.validationMessages, [], "validation layer")
    }

    /// FFmpeg stops reading a component when fewer than 32 bits are left
    /// and the bits its 32-bit cache still holds after a long level
    /// codeword are zeros (`EndsEarlyInFFmpeg`); the entropy pass must lose
    /// the same coefficients. FFmpeg's own decode of the frame confirms
    /// which coefficients are lost.
    func testEarlyEndOfDataMatchesFFmpeg() throws {
        let seed = KernelTestSeed.seed(0xE0D0_0001)
        var rng = KernelRandom(seed: seed)
        var frame = SyntheticFrameMaker(width: 32, height: 16, chroma444: false).make(&rng, log2SliceWidths: [0])
        frame.lumaMatrix = [UInt8](repeating: 4, count: 64)
        frame.slices[0].qscaleCode = 1
        var luma = [Int16](repeating: 0, count: 256)
        luma[0...3] = [40, -30, 25, 60]
        // Scan position 1 of block 0: a level whose codeword (30 bits) leaves one bit in the cache...
        luma[1 << 2 | 0] = 20000
        // ...then scan position 2 of block 1, whose run codeword starts with zeros, within the last 32 bits.
        luma[2 << 2 | 1] = 50
        XCTAssertThrowsError(try ProResEntropyEncoder.encodeCoefficients(luma, log2Blocks: 2)) { error in
            XCTAssertEqual((error as? ProResEntropyEncoder.EndsEarlyInFFmpeg)?.lostFrom, 9, "\(error)")
        }
        var encoded = Self.encode(&frame, rng: &rng)
        frame.slices[0].luma = luma
        encoded[0].luma = try ProResEntropyEncoder.encodeCoefficients(luma, log2Blocks: 2, endOfDataCheck: false)
        var truncated = frame
        truncated.slices[0].luma[9] = 0

        let bytes = ProResFrameWriter.frame(frame, slices: encoded)
        let harness = try KernelHarness.shared.get()
        let (pass, _) = try Self.pass([bytes], frames: [frame], alphaShift12: false)
        let (coefficients, status) = try harness.runEntropyPass(pass)
        XCTAssertEqual(status, [0, 0], "status")
        let failures = Self.compare(coefficients: coefficients, frames: [truncated], alphaShift12: false)
        XCTAssert(
            failures.isEmpty, "seed 0x\(String(seed, radix: 16)):\n" + failures.prefix(12).joined(separator: "\n"))

        let ffmpeg = try FFmpegProRes.decode(
            bytes, width: 32, height: 16, chroma444: false, depth: 10, alpha: false, plainC: true)
        XCTAssertEqual(ffmpeg.decodeErrorFlags, 0)
        let lost = ReferenceDecoder.planes(truncated, depth: 10)
        let kept = ReferenceDecoder.planes(frame, depth: 10)
        let luma16 = (0..<16).flatMap { row in (0..<32).map { lost.y[row * lost.width + $0] } }
        let lumaKept = (0..<16).flatMap { row in (0..<32).map { kept.y[row * kept.width + $0] } }
        XCTAssertEqual(ffmpeg.planes[0], luma16, "FFmpeg's luma is not the picture without the lost coefficient")
        XCTAssertNotEqual(ffmpeg.planes[0], lumaKept, "the lost coefficient does not show: the test proves nothing")
        XCTAssertEqual(harness.validationMessages, [], "validation layer")
    }

    // MARK: Harness

    private func run(_ c: Case, file: StaticString = #filePath, line: UInt = #line) throws {
        let seed = KernelTestSeed.seed(c.seed)
        var rng = KernelRandom(seed: seed)
        let started = Date()
        var frames: [SyntheticFrame] = []
        var bitstreams: [[UInt8]] = []
        for i in 0..<c.frames {
            var frame = c.maker.make(&rng, log2SliceWidths: i == 0 ? [3, 3] : nil)
            let encoded = Self.encode(&frame, rng: &rng)
            frames.append(frame)
            bitstreams.append(ProResFrameWriter.frame(frame, slices: encoded))
        }
        let harness = try KernelHarness.shared.get()
        let (pass, tables) = try Self.pass(bitstreams, frames: frames, alphaShift12: c.alphaShift12)
        for (f, table) in tables.enumerated() {
            XCTAssertEqual(
                table.sliceCount, frames[f].slices.count, "frame \(f): SliceTable's slices", file: file, line: line)
            XCTAssertEqual(
                table.invalidSlices, 0, "frame \(f): SliceTable rejected slice headers", file: file, line: line)
        }
        let (coefficients, status) = try harness.runEntropyPass(pass)
        let slices = frames.map(\.slices.count).reduce(0, +)
        print(
            "kernel entropy [\(c.name)]: seed 0x\(String(seed, radix: 16)), \(frames.count) frames, \(slices) slices, "
                + "\(bitstreams.map(\.count).reduce(0, +)) bytes, \(String(format: "%.2f", Date().timeIntervalSince(started))) s"
        )
        var failures: [String] = []
        for (i, flags) in status.enumerated() where flags != 0 {
            failures.append(
                "slice \(i) of the batch: status 0x\(String(flags, radix: 16)) (1 Y', 2 Cb, 4 Cr, 8 alpha), expected 0")
        }
        failures += Self.compare(coefficients: coefficients, frames: frames, alphaShift12: c.alphaShift12)
        if !failures.isEmpty {
            XCTFail(
                "entropy [\(c.name)] seed 0x\(String(seed, radix: 16)): \(failures.count) mismatches\n"
                    + failures.prefix(12).joined(separator: "\n") + (failures.count > 12 ? "\n..." : ""), file: file,
                line: line)
        }
        XCTAssertEqual(harness.validationMessages, [], "validation layer", file: file, line: line)
    }

    /// Each slice's components, encoded (the rare values no codeword can
    /// hold are changed in `frame` first); alpha slices need the 8-byte
    /// slice header.
    static func encode(_ frame: inout SyntheticFrame, rng: inout KernelRandom) -> [ProResFrameWriter.EncodedSlice] {
        let chromaLog2 = frame.chromaLog2
        let alpha = frame.alpha
        return frame.slices.indices.map { i in
            let l = frame.slices[i].log2Mbs
            return ProResFrameWriter.EncodedSlice(
                headerSize: alpha != .none || rng.chance(0.5) ? 8 : 6,
                luma: ProResEntropyEncoder.encodeCoefficients(repairing: &frame.slices[i].luma, log2Blocks: l + 2),
                cb: ProResEntropyEncoder.encodeCoefficients(repairing: &frame.slices[i].cb, log2Blocks: l + chromaLog2),
                cr: ProResEntropyEncoder.encodeCoefficients(repairing: &frame.slices[i].cr, log2Blocks: l + chromaLog2),
                alpha: alpha == .none
                    ? [] : ProResEntropyEncoder.encodeAlpha(frame.slices[i].alphaCoded, bits: alpha.bits))
        }
    }

    /// Parses each frame with SliceTable and lays the batch out as the
    /// decoder does: padded bitstreams, then the tables it writes.
    static func pass(_ bitstreams: [[UInt8]], frames: [SyntheticFrame], alphaShift12: Bool) throws
        -> (KernelHarness.EntropyPass, [SliceTable])
    {
        let first = frames[0]
        let geometry = SliceTable.Geometry(
            width: first.width, height: first.height, chroma: first.chroma444 ? .c444 : .c422)
        var tables: [SliceTable] = []
        var bitstream: [UInt8] = []
        var offsets: [Int] = []
        for bytes in bitstreams {
            tables.append(try bytes.withUnsafeBytes { try SliceTable(frame: $0, geometry: geometry) })
            offsets.append(bitstream.count)
            bitstream += bytes
            // The decoder's padding: 64 zero bytes, word-aligned.
            bitstream += [UInt8](repeating: 0, count: (bytes.count + 64 + 3) / 4 * 4 - bytes.count)
        }
        let sliceCount = tables.map(\.sliceCount).reduce(0, +)
        var slices = [UInt32](repeating: 0, count: sliceCount * SliceTable.sliceWords)
        var frameWords = [UInt32](repeating: 0xFFFF_FFFF, count: frames.count * SliceTable.frameWords)
        var firstSlice = 0
        var firstCoefficient = 0
        slices.withUnsafeMutableBufferPointer { s in
            frameWords.withUnsafeMutableBufferPointer { f in
                for (i, table) in tables.enumerated() {
                    table.write(
                        slices: s.baseAddress! + firstSlice * SliceTable.sliceWords,
                        frame: f.baseAddress! + i * SliceTable.frameWords,
                        frameIndex: i, firstSlice: firstSlice, bitstreamOffset: offsets[i],
                        firstCoefficient: firstCoefficient,
                        surfaceOffset: 0)
                    firstSlice += table.sliceCount
                    firstCoefficient += table.coefficientCount
                }
            }
        }
        let pass = KernelHarness.EntropyPass(
            chroma444: first.chroma444, alphaShift12: alphaShift12, components: first.alpha == .none ? 3 : 4,
            bitstream: bitstream, slices: slices, frames: frameWords, frameCount: frames.count,
            maxSlicesPerFrame: tables.map(\.sliceCount).max() ?? 0,
            coefficientCount: firstCoefficient + 64, coefficientFill: sentinel)
        return (pass, tables)
    }

    /// The coefficient buffer against the coefficients that were encoded:
    /// per slice, Y', Cb, Cr (and alpha) regions in bitstream order, each
    /// in coded order; alpha as final samples. An empty component is not
    /// compared; nothing may be written past the last region.
    static func compare(coefficients got: [Int16], frames: [SyntheticFrame], alphaShift12: Bool) -> [String] {
        var failures: [String] = []
        var base = 0
        for (f, frame) in frames.enumerated() {
            for (s, slice) in frame.slices.enumerated() {
                let where_ =
                    "frame \(f) slice \(s) (picture \(slice.picture), macroblock column \(slice.mbX) row \(slice.mbY), "
                    + "\(1 << slice.log2Mbs) wide)"
                let lumaLog2 = slice.log2Mbs + 2
                let chromaLog2 = slice.log2Mbs + frame.chromaLog2
                let components: [(String, [Int16], Int, Int)] = [
                    ("Y'", slice.luma, lumaLog2, 4), ("Cb", slice.cb, chromaLog2, 1 << frame.chromaLog2),
                    ("Cr", slice.cr, chromaLog2, 1 << frame.chromaLog2),
                ]
                for (name, expected, log2Blocks, blocksPerMb) in components {
                    defer { base += 64 << log2Blocks }
                    guard !expected.isEmpty else { continue }
                    for p in 0..<64 << log2Blocks where got[base + p] != expected[p] {
                        let block = p & ((1 << log2Blocks) - 1)
                        failures.append(
                            "\(where_) \(name) coefficient \(p) (scan position \(p >> log2Blocks) of block \(block): "
                                + "macroblock \(block / blocksPerMb), block \(block % blocksPerMb)): expected \(expected[p]), got \(got[base + p])"
                        )
                    }
                }
                if frame.alpha != .none {
                    let width = 16 << slice.log2Mbs
                    for (i, raw) in slice.alphaCoded.enumerated() {
                        let expected = Int16(
                            ReferenceAlpha.decoded(raw, streamBits: frame.alpha.bits, depth: alphaShift12 ? 12 : 10))
                        if got[base + i] != expected {
                            failures.append(
                                "\(where_) alpha sample \(i) (row \(i / width), column \(i % width)): coded \(raw), "
                                    + "expected \(expected), got \(got[base + i])")
                        }
                    }
                    base += 256 << slice.log2Mbs
                }
            }
        }
        for i in base..<got.count where got[i] != sentinel {
            failures.append("coefficient \(i), past every slice's region: written (\(got[i]))")
        }
        return failures
    }
}

// MARK: - The references themselves

/// The CPU references against FFmpeg's own decoder (its C code, SIMD off):
/// the encoder must make frames FFmpeg decodes without error, to the very
/// samples the reference IDCT computes. Without this the kernel tests would
/// only show that the shaders agree with our reading of FFmpeg.
final class ReferenceKernelTests: XCTestCase {
    func testScanTablesArePermutations() {
        XCTAssertEqual(ProResScan.progressive.sorted(), Array(0..<64))
        XCTAssertEqual(ProResScan.interlaced.sorted(), Array(0..<64))
    }

    func testCodewordsRoundTrip() throws {
        // Every codebook, every value up to 4096: decoded as RDD 36 (and FFmpeg's DECODE_CODEWORD) reads them.
        let codebooks = Set(
            ProResEntropyEncoder.dcCodebooks + ProResEntropyEncoder.runCodebooks + ProResEntropyEncoder.levelCodebooks
                + [ProResEntropyEncoder.firstDCCodebook])
        for codebook in codebooks {
            for value in 0...4096 {
                let (bits, length) = try ProResEntropyEncoder.codeword(value, codebook: codebook)
                let window = UInt32(truncatingIfNeeded: bits << UInt64(32 - length))
                let switchBits = Int(codebook & 3)
                let rice = Int(codebook >> 5)
                let exp = Int((codebook >> 2) & 7)
                let q = window.leadingZeroBitCount
                let decoded: Int
                let used: Int
                if q > switchBits {
                    used = exp - switchBits + 2 * q
                    decoded = Int(window >> UInt32(32 - used)) - (1 << exp) + ((switchBits + 1) << rice)
                } else {
                    used = q + 1 + rice
                    decoded = (q << rice) + (rice == 0 ? 0 : Int((window << UInt32(q + 1)) >> UInt32(32 - rice)))
                }
                XCTAssertEqual(decoded, value, "codebook 0x\(String(codebook, radix: 16))")
                XCTAssertEqual(used, length, "codebook 0x\(String(codebook, radix: 16)) value \(value)")
            }
        }
    }

    func testReferenceMatchesFFmpeg() throws {
        let seed = KernelTestSeed.seed(0xFF_0001)
        var rng = KernelRandom(seed: seed)
        var simdDifferences: [String] = []
        let cases: [(String, SyntheticFrameMaker, Int)] = [
            ("4:2:2 10-bit", .init(width: 240, height: 48, chroma444: false), 10),
            (
                "4:2:2 10-bit interlaced",
                .init(width: 93, height: 45, chroma444: false, fieldOrder: .bottomFieldFirst), 10
            ),
            (
                "4:4:4 12-bit alpha 16",
                .init(width: 240, height: 32, chroma444: true, fieldOrder: .topFieldFirst, alpha: .bits16), 12
            ),
            ("4:4:4 12-bit alpha 8", .init(width: 77, height: 40, chroma444: true, alpha: .bits8), 12),
            ("4:2:2 10-bit extreme", .init(width: 240, height: 32, chroma444: false, style: .extreme), 10),
            (
                "4:2:2 10-bit wrapping",
                .init(width: 240, height: 32, chroma444: false, fieldOrder: .topFieldFirst, style: .wrapping), 10
            ),
            (
                "4:4:4 12-bit wrapping",
                .init(width: 240, height: 32, chroma444: true, alpha: .bits8, style: .wrapping), 12
            ),
            (
                "4:4:4 12-bit extreme",
                .init(
                    width: 240, height: 32, chroma444: true, fieldOrder: .topFieldFirst, alpha: .bits16,
                    style: .extreme), 12
            ),
        ]
        for (name, maker, depth) in cases {
            var frame = maker.make(&rng, log2SliceWidths: [3, 2])
            let encoded = EntropyKernelTests.encode(&frame, rng: &rng)
            for s in frame.slices.indices {
                frame.slices[s].alphaDecoded = frame.slices[s].alphaCoded.map {
                    ReferenceAlpha.decoded($0, streamBits: frame.alpha.bits, depth: depth)
                }
            }
            let bytes = ProResFrameWriter.frame(frame, slices: encoded)
            let reference = ReferenceDecoder.planes(frame, depth: depth)
            let clipped = reference.y.filter { $0 == 4 || Int($0) == (1 << depth) - 5 }.count
            print(
                "kernel reference [\(name)]: \(reference.y.count - clipped) of \(reference.y.count) luma samples unclipped"
            )
            for plainC in [true, false] {
                let decoded = try FFmpegProRes.decode(
                    bytes, width: frame.width, height: frame.height, chroma444: frame.chroma444,
                    depth: depth, alpha: frame.alpha != .none, plainC: plainC)
                var differences: [String] = []
                if decoded.decodeErrorFlags != 0 {
                    differences.append("FFmpeg flagged the frame damaged (\(decoded.decodeErrorFlags))")
                }
                let expectedPlanes =
                    [
                        (reference.y, reference.width), (reference.cb, reference.chromaWidth),
                        (reference.cr, reference.chromaWidth),
                    ]
                    + (reference.a.map { [($0, reference.width)] } ?? [])
                for (p, (plane, stride)) in expectedPlanes.enumerated() {
                    let width = decoded.planeWidths[p]
                    for row in 0..<frame.height {
                        for x in 0..<width where decoded.planes[p][row * width + x] != plane[row * stride + x] {
                            differences.append(
                                "plane \(p) row \(row) x \(x): reference \(plane[row * stride + x]), "
                                    + "FFmpeg \(decoded.planes[p][row * width + x])")
                        }
                    }
                }
                if plainC {
                    XCTAssert(
                        differences.isEmpty,
                        "\(name), seed 0x\(String(seed, radix: 16)): \(differences.count) samples differ "
                            + "from FFmpeg's C decoder\n" + differences.prefix(12).joined(separator: "\n"))
                } else if !differences.isEmpty {
                    simdDifferences.append("\(name): \(differences.count) samples, first \(differences[0])")
                }
            }
        }
        // FFmpeg's x86 SIMD IDCT (10-bit only) need not agree with its C code on overflowing input; report, do not fail.
        print(
            "kernel reference: seed 0x\(String(seed, radix: 16)); FFmpeg with SIMD differs from its C code in: "
                + (simdDifferences.isEmpty ? "nothing" : simdDifferences.joined(separator: "; ")))
    }
}
