import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCPU
@testable import ProResCore
@testable import TestSupport

// Kernel tests of our CPU decoder, in the style of dav1d's tests/checkasm
// and of KernelTests for the GPU passes: each part alone on seeded random
// input against the independent references (KernelReference.swift,
// ProResTestEncoder.swift), the seed printed and replayed with
// KERNEL_TESTS_SEED.
//
// - the entropy decoder on components the test encoder wrote (every slice
//   width, typical and extreme values, both scans), alpha at 8 and 16 bits
//   to 10 and 12, corrupted codewords, FFmpeg's early end of data;
// - the IDCT on random blocks, matrices and scales (wrapping products and
//   sums) at 10 and 12 bits against ReferenceIDCT;
// - whole synthetic frames (every chroma format, field order, alpha type,
//   odd sizes) against ReferenceDecoder, which ReferenceKernelTests holds
//   to FFmpeg's own C decoder.
final class CPUEntropyKernelTests: XCTestCase {
    /// `bytes` followed by the padding every sample carries.
    static func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: CompressedSample.padding) }

    /// Decodes one component with ours; nil when it reports a failure.
    static func decode(_ bytes: [UInt8], log2Blocks: Int, interlaced: Bool) -> [Int16]? {
        var blocks = [Int16](repeating: 0, count: 64 << log2Blocks)
        let ok = padded(bytes).withUnsafeBufferPointer { data in
            blocks.withUnsafeMutableBufferPointer { out in
                var reader = BitReader(data.baseAddress!, bytes: bytes.count)
                return EntropyDecoder.decodeCoefficients(
                    &reader, into: out.baseAddress!, log2Blocks: log2Blocks, interlaced: interlaced)
            }
        }
        return ok ? blocks : nil
    }

    /// The reference's natural-order block, transposed as ours stores it.
    static func expectedBlocks(_ coded: [Int16], log2Blocks: Int, interlaced: Bool) -> [Int16] {
        var out: [Int16] = []
        for block in 0..<1 << log2Blocks {
            let natural = ProResScan.naturalBlock(
                coded[...], block: block, log2Blocks: log2Blocks, interlaced: interlaced)
            out += (0..<64).map { natural[($0 & 7) << 3 | $0 >> 3] }
        }
        return out
    }

    func testCoefficientsOfEverySliceWidth() throws {
        let seed = KernelTestSeed.seed(0xC0E0_0001)
        var rng = KernelRandom(seed: seed)
        var components = 0
        for style in [CoefficientStyle.typical, .extreme, .wrapping] {
            for log2Blocks in 1...5 {
                for interlaced in [false, true] {
                    for _ in 0..<6 {
                        var coded = rng.coefficients(log2Blocks: log2Blocks, style: style)
                        let bytes = ProResEntropyEncoder.encodeCoefficients(repairing: &coded, log2Blocks: log2Blocks)
                        let got = try XCTUnwrap(
                            Self.decode(bytes, log2Blocks: log2Blocks, interlaced: interlaced),
                            "seed 0x\(String(seed, radix: 16)): \(style) \(1 << log2Blocks) blocks reported damaged")
                        let expected = Self.expectedBlocks(coded, log2Blocks: log2Blocks, interlaced: interlaced)
                        if let i = (0..<got.count).first(where: { got[$0] != expected[$0] }) {
                            XCTFail(
                                "seed 0x\(String(seed, radix: 16)): \(style) \(1 << log2Blocks) blocks interlaced \(interlaced): "
                                    + "block \(i / 64) natural column \(i % 64 / 8) row \(i % 8): expected \(expected[i]), got \(got[i])"
                            )
                            return
                        }
                        components += 1
                    }
                }
            }
        }
        print("cpu entropy: seed 0x\(String(seed, radix: 16)), \(components) components")
    }

    /// Two components decoded together (as the slices of a pair are) give
    /// each the coefficients, outcome and end position it has alone, and
    /// alone it matches the reference on intact components: intact and
    /// damaged ones, of different lengths, ending in either order.
    func testTwoComponentsTogetherDecodeAsEachAlone() throws {
        let seed = KernelTestSeed.seed(0xC0E0_0002)
        var rng = KernelRandom(seed: seed)
        func component(log2Blocks: Int) throws -> (bytes: [UInt8], expected: [Int16]?) {
            var coded = rng.coefficients(
                log2Blocks: log2Blocks, style: rng.pick([CoefficientStyle.typical, .extreme, .wrapping]))
            var bytes = ProResEntropyEncoder.encodeCoefficients(repairing: &coded, log2Blocks: log2Blocks)
            guard rng.chance(0.4), !bytes.isEmpty else {
                return (bytes, Self.expectedBlocks(coded, log2Blocks: log2Blocks, interlaced: false))
            }
            if rng.chance(0.5) {
                for _ in 0..<rng.int(1...4) { bytes[rng.int(0..<bytes.count)] ^= UInt8(rng.int(1...255)) }
            } else {
                bytes = Array(bytes.prefix(rng.int(0..<bytes.count)))
            }
            return (bytes, nil)
        }
        func alone(_ bytes: [UInt8], log2Blocks: Int) -> (blocks: [Int16], ok: Bool, position: Int) {
            var blocks = [Int16](repeating: 0, count: 64 << log2Blocks)
            var position = 0
            let ok = Self.padded(bytes).withUnsafeBufferPointer { data in
                blocks.withUnsafeMutableBufferPointer { out in
                    var reader = BitReader(data.baseAddress!, bytes: bytes.count)
                    defer { position = reader.position }
                    return EntropyDecoder.decodeCoefficients(
                        &reader, into: out.baseAddress!, log2Blocks: log2Blocks, interlaced: false)
                }
            }
            return (blocks, ok, position)
        }
        var pairs = 0
        var failures = 0
        for log2Blocks in 1...5 {
            for _ in 0..<40 {
                let first = try component(log2Blocks: log2Blocks)
                let second = try component(log2Blocks: log2Blocks)
                let a = alone(first.bytes, log2Blocks: log2Blocks)
                let b = alone(second.bytes, log2Blocks: log2Blocks)
                for (one, run) in [(first, a), (second, b)] where one.expected != nil {
                    XCTAssertTrue(run.ok, "seed 0x\(String(seed, radix: 16)): an intact component failed")
                    XCTAssertEqual(
                        run.blocks, one.expected, "seed 0x\(String(seed, radix: 16)): an intact component alone")
                }
                var blocksA = [Int16](repeating: 0, count: 64 << log2Blocks)
                var blocksB = blocksA
                let dataA = Self.padded(first.bytes)
                let dataB = Self.padded(second.bytes)
                let (okA, okB, positionA, positionB) = dataA.withUnsafeBufferPointer { pa in
                    dataB.withUnsafeBufferPointer { pb in
                        blocksA.withUnsafeMutableBufferPointer { outA in
                            blocksB.withUnsafeMutableBufferPointer { outB in
                                var readerA = BitReader(pa.baseAddress!, bytes: first.bytes.count)
                                var readerB = BitReader(pb.baseAddress!, bytes: second.bytes.count)
                                let (okA, okB) = EntropyDecoder.decodeCoefficients(
                                    &readerA, into: outA.baseAddress!, &readerB,
                                    into: outB.baseAddress!, log2Blocks: log2Blocks,
                                    interlaced: false)
                                return (okA, okB, readerA.position, readerB.position)
                            }
                        }
                    }
                }
                let context = "seed 0x\(String(seed, radix: 16)): \(1 << log2Blocks) blocks, pair \(pairs)"
                XCTAssertEqual(okA, a.ok, context)
                XCTAssertEqual(okB, b.ok, context)
                XCTAssertEqual(positionA, a.position, context)
                XCTAssertEqual(positionB, b.position, context)
                if okA { XCTAssertEqual(blocksA, a.blocks, context) }
                if okB { XCTAssertEqual(blocksB, b.blocks, context) }
                pairs += 1
                failures += (a.ok ? 0 : 1) + (b.ok ? 0 : 1)
            }
        }
        XCTAssertGreaterThan(failures, 10, "the damaged components must include failing ones")
        print("cpu entropy pairs: seed 0x\(String(seed, radix: 16)), \(pairs) pairs, \(failures) failed components")
    }

    func testAlphaAtEachStreamAndDecodedDepth() {
        let seed = KernelTestSeed.seed(0xC0A1_0001)
        var rng = KernelRandom(seed: seed)
        for streamBits in [8, 16] {
            for depth in [10, 12] {
                for style in [CoefficientStyle.typical, .extreme] {
                    for log2Mbs in [0, 3] {
                        let count = 256 << log2Mbs
                        let samples = rng.alphaSamples(count: count, bits: streamBits, style: style)
                        let bytes = Self.padded(ProResEntropyEncoder.encodeAlpha(samples, bits: streamBits))
                        var got = [UInt16](repeating: 0xDEAD, count: count)
                        bytes.withUnsafeBufferPointer { data in
                            got.withUnsafeMutableBufferPointer { out in
                                var reader = BitReader(data.baseAddress!, bytes: bytes.count - CompressedSample.padding)
                                EntropyDecoder.decodeAlpha(
                                    &reader, into: out.baseAddress!, count: count, streamBits: streamBits, depth: depth)
                            }
                        }
                        let expected = samples.map { ReferenceAlpha.decoded($0, streamBits: streamBits, depth: depth) }
                        XCTAssertEqual(
                            got, expected,
                            "seed 0x\(String(seed, radix: 16)): alpha \(streamBits) to \(depth) bits, \(style)")
                    }
                }
            }
        }
    }

    /// Damaged codewords fail the component, as in FFmpeg (AVERROR_INVALIDDATA).
    func testCorruptedCodewordsFail() throws {
        // The first DC's exp-Golomb prefix runs past 31 bits.
        XCTAssertNil(Self.decode([0, 0, 0, 0, 0x80, 0xFF], log2Blocks: 2, interlaced: false))
        // A run that carries the position past the component's end.
        var w = BitWriter()
        try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: 0, count: 4))
        try ProResEntropyEncoder.write(&w, 64 * 4, codebook: ProResEntropyEncoder.runCodebooks[4])
        try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.levelCodebooks[2])
        w.write(0, bits: 1)
        XCTAssertNil(Self.decode(w.finished(), log2Blocks: 2, interlaced: false))
        // A level codeword whose prefix runs past 31 bits.
        w = BitWriter()
        try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: 0, count: 2))
        try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.runCodebooks[4])
        w.zeros(40)
        w.write(1, bits: 1)
        XCTAssertNil(Self.decode(w.finished(), log2Blocks: 1, interlaced: false))
        // A level codeword of exactly 32 bits: FFmpeg takes at most 31.
        w = BitWriter()
        try ProResEntropyEncoder.writeDCs(&w, [Int16](repeating: -3, count: 2))
        try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.runCodebooks[4])
        try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.levelCodebooks[2])
        w.write(1, bits: 1)
        try ProResEntropyEncoder.write(&w, 0, codebook: ProResEntropyEncoder.runCodebooks[0])
        w.zeros(16)
        w.write(0x8000, bits: 16)
        w.write(0, bits: 1)
        XCTAssertNil(Self.decode(w.finished(), log2Blocks: 1, interlaced: false))
    }

    /// FFmpeg stops reading a component when fewer than 32 bits are left and
    /// its cache holds only zeros after a long level codeword: the same
    /// coefficient must be lost (the scenario EntropyKernelTests confirms
    /// against FFmpeg's own decode).
    func testEarlyEndOfDataMatchesFFmpeg() throws {
        var luma = [Int16](repeating: 0, count: 256)
        luma[0...3] = [40, -30, 25, 60]
        luma[1 << 2 | 0] = 20000
        luma[2 << 2 | 1] = 50
        let bytes = try ProResEntropyEncoder.encodeCoefficients(luma, log2Blocks: 2, endOfDataCheck: false)
        var truncated = luma
        truncated[9] = 0
        let got = try XCTUnwrap(Self.decode(bytes, log2Blocks: 2, interlaced: false))
        XCTAssertEqual(got, Self.expectedBlocks(truncated, log2Blocks: 2, interlaced: false))
        XCTAssertNotEqual(
            got, Self.expectedBlocks(luma, log2Blocks: 2, interlaced: false), "the lost coefficient does not show")
    }
}

final class CPUTransformKernelTests: XCTestCase {
    func testBlocksMatchFFmpegsCIDCT() {
        let seed = KernelTestSeed.seed(0xC1DC_0001)
        var rng = KernelRandom(seed: seed)
        var out = [UInt16](repeating: 0, count: 8 * 11)
        var matrix = [Int16](repeating: 0, count: 64)
        var blocks = 0
        for depth in [10, 12] {
            for style in [CoefficientStyle.typical, .extreme, .wrapping] {
                for _ in 0..<400 {
                    let m = rng.matrix(style: style)
                    let qscale = SyntheticSlice(
                        picture: 0, mbX: 0, mbY: 0, log2Mbs: 0, qscaleCode: rng.qscaleCode(style: style),
                        luma: [], cb: [], cr: []
                    ).qscale
                    var coded = rng.coefficients(log2Blocks: 0, style: style)
                    if style == .wrapping {
                        rng.wrapSome(&coded, log2Blocks: 0, matrix: m, qscale: qscale, interlaced: false)
                    }
                    let natural = ProResScan.naturalBlock(coded[...], block: 0, log2Blocks: 0, interlaced: false)
                    let transposed = (0..<64).map { natural[($0 & 7) << 3 | $0 >> 3] }
                    for i in 0..<64 {
                        matrix[i] = Int16(truncatingIfNeeded: Int(m[(i & 7) << 3 | i >> 3]) * qscale)
                    }
                    let expected = ReferenceIDCT.reconstruct(natural, matrix: m, qscale: qscale, depth: depth)
                    // The decoder's kernel (SSE2 C on x86-64) and the Swift one.
                    for swift in [false, true] {
                        // Rows 11 samples apart, so a store past a row's 8 shows.
                        for i in out.indices { out[i] = 0xBEEF }
                        transposed.withUnsafeBufferPointer { c in
                            matrix.withUnsafeBufferPointer { q in
                                out.withUnsafeMutableBufferPointer { o in
                                    if !swift {
                                        IntegerIDCT.put(
                                            depth: depth, c.baseAddress!, matrix: q.baseAddress!, out: o.baseAddress!,
                                            stride: 11)
                                    } else if depth == 12 {
                                        IntegerIDCT.transform(
                                            IDCT12.self, c.baseAddress!, matrix: q.baseAddress!, out: o.baseAddress!,
                                            stride: 11)
                                    } else {
                                        IntegerIDCT.transform(
                                            IDCT10.self, c.baseAddress!, matrix: q.baseAddress!, out: o.baseAddress!,
                                            stride: 11)
                                    }
                                }
                            }
                        }
                        let got = (0..<64).map { out[($0 >> 3) * 11 + ($0 & 7)] }
                        let gaps = (0..<7).flatMap { row in (8..<11).map { out[row * 11 + $0] } }
                        if got != expected || gaps.contains(where: { $0 != 0xBEEF }) {
                            let i = (0..<64).first { got[$0] != expected[$0] } ?? 0
                            XCTFail(
                                "seed 0x\(String(seed, radix: 16)): \(swift ? "Swift" : "decoder's") \(depth)-bit \(style) block \(blocks), "
                                    + "qscale \(qscale): row \(i / 8) column \(i % 8): expected \(expected[i]), got \(got[i]); coefficients \(natural)"
                            )
                            return
                        }
                    }
                    blocks += 1
                }
            }
        }
        print("cpu idct: seed 0x\(String(seed, radix: 16)), \(blocks) blocks")
    }

    /// Two blocks transformed together (AVX2 where the CPU has it) give
    /// each the reference's samples: random pairs, and pairs where one or
    /// both blocks are a single value (DC only), or have no high rows or
    /// columns, so that every shortcut is taken for one block and not the other.
    func testBlockPairsMatchFFmpegsCIDCT() {
        let seed = KernelTestSeed.seed(0xC1DC_0002)
        var rng = KernelRandom(seed: seed)
        var pairs = 0
        func shaped(_ coded: [Int16], _ shape: Int) -> [Int16] {
            let natural = ProResScan.naturalBlock(coded[...], block: 0, log2Blocks: 0, interlaced: false)
            // 0: as drawn; 1: DC only; 2: natural columns 4-7 zero; 3: rows 4-7 zero.
            return (0..<64).map { i in
                switch shape {
                case 1: return i == 0 ? natural[i] : 0
                case 2: return i % 8 >= 4 ? 0 : natural[i]
                case 3: return i / 8 >= 4 ? 0 : natural[i]
                default: return natural[i]
                }
            }
        }
        for depth in [10, 12] {
            for style in [CoefficientStyle.typical, .extreme, .wrapping] {
                for _ in 0..<150 {
                    let m = rng.matrix(style: style)
                    let qscale = SyntheticSlice(
                        picture: 0, mbX: 0, mbY: 0, log2Mbs: 0, qscaleCode: rng.qscaleCode(style: style),
                        luma: [], cb: [], cr: []
                    ).qscale
                    let naturals = (0..<2).map { _ in
                        var coded = rng.coefficients(log2Blocks: 0, style: style)
                        if style == .wrapping {
                            rng.wrapSome(&coded, log2Blocks: 0, matrix: m, qscale: qscale, interlaced: false)
                        }
                        return shaped(coded, rng.int(0...3))
                    }
                    let transposed = naturals.flatMap { natural in (0..<64).map { natural[($0 & 7) << 3 | $0 >> 3] } }
                    let matrix = (0..<64).map { Int16(truncatingIfNeeded: Int(m[($0 & 7) << 3 | $0 >> 3]) * qscale) }
                    // Block A at column 0, block B at column 12 of rows 23 samples apart.
                    var out = [UInt16](repeating: 0xBEEF, count: 8 * 23)
                    transposed.withUnsafeBufferPointer { c in
                        matrix.withUnsafeBufferPointer { q in
                            out.withUnsafeMutableBufferPointer { o in
                                IntegerIDCT.put2(
                                    depth: depth, c.baseAddress!, matrix: q.baseAddress!, outA: o.baseAddress!,
                                    outB: o.baseAddress! + 12, stride: 23)
                            }
                        }
                    }
                    for (k, natural) in naturals.enumerated() {
                        let expected = ReferenceIDCT.reconstruct(natural, matrix: m, qscale: qscale, depth: depth)
                        let got = (0..<64).map { out[($0 >> 3) * 23 + k * 12 + ($0 & 7)] }
                        if got != expected {
                            XCTFail(
                                "seed 0x\(String(seed, radix: 16)): \(depth)-bit \(style) pair \(pairs) block \(k): expected \(expected), got \(got)"
                            )
                            return
                        }
                    }
                    let gaps = (0..<8).flatMap { row in [8, 9, 10, 11, 20, 21, 22].map { out[row * 23 + $0] } }
                    XCTAssertFalse(
                        gaps.contains { $0 != 0xBEEF }, "seed 0x\(String(seed, radix: 16)): a store outside the blocks")
                    pairs += 1
                }
            }
        }
        print("cpu idct pairs: seed 0x\(String(seed, radix: 16)), \(pairs) pairs")
    }
}

/// Whole synthetic frames through our decoder against ReferenceDecoder.
final class CPUFrameKernelTests: XCTestCase {
    func testSyntheticFramesMatchTheReference() throws {
        let seed = KernelTestSeed.seed(0xCF00_0001)
        var rng = KernelRandom(seed: seed)
        let cases: [(String, SyntheticFrameMaker, Int)] = [
            ("4:2:2 10-bit", .init(width: 240, height: 48, chroma444: false), 10),
            (
                "4:2:2 10-bit odd size bff",
                .init(width: 93, height: 45, chroma444: false, fieldOrder: .bottomFieldFirst), 10
            ),
            (
                "4:2:2 10-bit tff extreme",
                .init(width: 176, height: 64, chroma444: false, fieldOrder: .topFieldFirst, style: .extreme), 10
            ),
            ("4:2:2 12-bit wrapping", .init(width: 240, height: 32, chroma444: false, style: .wrapping), 12),
            (
                "4:4:4 12-bit alpha 16 tff",
                .init(width: 240, height: 32, chroma444: true, fieldOrder: .topFieldFirst, alpha: .bits16), 12
            ),
            ("4:4:4 12-bit alpha 8 odd", .init(width: 77, height: 40, chroma444: true, alpha: .bits8), 12),
            (
                "4:4:4 10-bit alpha 8", .init(width: 128, height: 16, chroma444: true, alpha: .bits8, style: .extreme),
                10
            ),
            ("4:4:4 12-bit no alpha wrapping", .init(width: 240, height: 32, chroma444: true, style: .wrapping), 12),
            ("4:2:2 10-bit alpha 16", .init(width: 64, height: 32, chroma444: false, alpha: .bits16), 10),
        ]
        for (name, maker, depth) in cases {
            for threads in [1, 3] {
                var frame = maker.make(&rng, log2SliceWidths: [rng.int(0...3), rng.int(0...3)])
                let encoded = EntropyKernelTests.encode(&frame, rng: &rng)
                for s in frame.slices.indices {
                    frame.slices[s].alphaDecoded = frame.slices[s].alphaCoded.map {
                        ReferenceAlpha.decoded($0, streamBits: frame.alpha.bits, depth: depth)
                    }
                }
                let bytes = CPUEntropyKernelTests.padded(ProResFrameWriter.frame(frame, slices: encoded))
                let decoder = ProResCPUDecoder(bitDepth: depth, threads: threads)
                let outcome = try bytes.withUnsafeBytes {
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: $0[0..<$0.count - CompressedSample.padding]))
                }
                defer { outcome.surface.releaseUse() }
                XCTAssertEqual(outcome.damagedSlices, 0, name)
                let reference = ReferenceDecoder.planes(frame, depth: depth)
                let planes =
                    [
                        (reference.y, reference.width), (reference.cb, reference.chromaWidth),
                        (reference.cr, reference.chromaWidth),
                    ]
                    + (reference.a.map { [($0, reference.width)] } ?? [])
                XCTAssertEqual(outcome.surface.layout.planes.count, planes.count, name)
                var differences: [String] = []
                for (p, (plane, stride)) in planes.enumerated() {
                    let layout = outcome.surface.layout.planes[p]
                    let samples = outcome.surface.plane(p).assumingMemoryBound(to: UInt16.self)
                    for row in 0..<frame.height {
                        for x in 0..<layout.visibleBytesPerRow / 2
                        where samples[row * layout.bytesPerRow / 2 + x] != plane[row * stride + x] {
                            differences.append(
                                "plane \(p) row \(row) x \(x): expected \(plane[row * stride + x]), "
                                    + "got \(samples[row * layout.bytesPerRow / 2 + x])")
                        }
                    }
                }
                XCTAssert(
                    differences.isEmpty,
                    "\(name), \(threads) threads, seed 0x\(String(seed, radix: 16)): \(differences.count) samples "
                        + "differ\n" + differences.prefix(12).joined(separator: "\n"))
            }
        }
        print("cpu frames: seed 0x\(String(seed, radix: 16)), \(cases.count * 2) frames")
    }
}
