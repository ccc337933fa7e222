import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The `--effect` passes on the machine's Vulkan device (lavapipe in CI), with
/// the validation layer on, against the float64 `EffectReference`.
///
/// Each frame is converted twice by the same converter: without effects (the
/// effects' exact input, as half floats) and with them. The reference applies
/// the effect to that input in Double, so only the effect is being measured.
/// Tolerance per channel: half-float rounding of the result (2⁻¹¹ of the
/// value), float32 arithmetic on terms no larger than the pixel's largest
/// input or output (2e-6 of that, about 16 float32 steps), and 1e-7 for
/// results in half's subnormal range.
final class VulkanEffectTests: XCTestCase {
    // nonisolated(unsafe): XCTest runs a class's tests one after another, on one thread.
    nonisolated(unsafe) private static var shared: (VulkanContext, ShaderCompiler)?

    private func gpu() throws -> (VulkanContext, ShaderCompiler) {
        if let shared = Self.shared { return shared }
        let made = (try VulkanContext(options: .init(validation: true)), try ShaderCompiler(cacheDirectory: nil))
        Self.shared = made
        return made
    }

    override func tearDownWithError() throws {
        if let log = Self.shared?.0.validation {
            XCTAssertEqual(log.messages, [], "the validation layer reported problems")
        }
    }

    /// PQ, BT.2020, video range: HDR up to 49.3 (10000 nits over 203) and, for
    /// saturated chroma, negatives after the gamut conversion to P3.
    private let hdr = try! ConversionSpec(matrixCode: 9, transferCode: 16, primariesCode: 9, range: .video)

    /// A y416 surface of `width` columns holding (A, Y, Cb, Cr) codes.
    private func surface(_ codes: [(UInt16, UInt16, UInt16, UInt16)], width: Int) throws -> PixelBuffer {
        let pool = PixelBufferPool(layout: .packed(.y416, width: width, height: codes.count / width))
        let surface = try pool.makeBuffer()
        let words = surface.baseAddress.assumingMemoryBound(to: UInt16.self)
        for (i, c) in codes.enumerated() {
            (words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]) = (
                c.0.littleEndian, c.1.littleEndian, c.2.littleEndian, c.3.littleEndian
            )
        }
        return surface
    }

    /// 17 luma levels (black to above white) × 5 chroma pairs, alpha varying.
    private func gridCodes() -> [(UInt16, UInt16, UInt16, UInt16)] {
        var codes: [(UInt16, UInt16, UInt16, UInt16)] = []
        for (cb, cr) in [(32768, 32768), (8000, 50000), (60000, 12000), (20000, 20000), (50000, 52000)] {
            for y in stride(from: 0, through: 65535, by: 4096) {
                codes.append((UInt16(65535 - y / 2), UInt16(min(y, 65535)), UInt16(cb), UInt16(cr)))
            }
        }
        return codes
    }

    private struct Result {
        let input: [SIMD4<Double>]
        let output: [SIMD4<Double>]
        let halves: [UInt16]
        let inputHalves: [UInt16]
        let effectTimes: [Double]
    }

    private func pixels(_ frame: ConvertedFrame) -> [SIMD4<Double>] {
        (0..<frame.height).flatMap { y in
            (0..<frame.width).map { x in SIMD4((0..<4).map { Double(frame.value(x: x, y: y, channel: $0)) }) }
        }
    }

    private func apply(_ effects: [Effect], to surface: PixelBuffer, spec: ConversionSpec? = nil) throws -> Result {
        let (context, compiler) = try gpu()
        let spec = spec ?? hdr
        var plain: (values: [SIMD4<Double>], halves: [UInt16])?
        var processed: (values: [SIMD4<Double>], halves: [UInt16], times: [Double])?
        let without = try GPUFrameConverter(
            context: context, kernels: KernelCache(context: context, compiler: compiler)
        ) { plain = (self.pixels($0), Array($0.pixels.bindMemory(to: UInt16.self))) }
        try without.submit(surface, parameters: ConversionParameters(spec), index: 0, pts: nil, spec: spec)
        try without.finish()
        let with = try GPUFrameConverter(
            context: context, kernels: KernelCache(context: context, compiler: compiler), effects: effects
        ) { frame in
            processed = (self.pixels(frame), Array(frame.pixels.bindMemory(to: UInt16.self)), frame.effectMicroseconds)
        }
        try with.submit(surface, parameters: ConversionParameters(spec), index: 0, pts: nil, spec: spec)
        try with.finish()
        let a = try XCTUnwrap(plain)
        let b = try XCTUnwrap(processed)
        return Result(input: a.values, output: b.values, halves: b.halves, inputHalves: a.halves, effectTimes: b.times)
    }

    private func rgb(_ v: SIMD4<Double>) -> SIMD3<Double> { SIMD3(v.x, v.y, v.z) }
    private func largest(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

    /// Every pixel's colour against `reference(input)`, alpha unchanged; the
    /// `slack` multiplies the allowance for chains that round to half between passes.
    private func assertMatches(
        _ result: Result, _ what: String, slack: Double = 1,
        file: StaticString = #filePath, line: UInt = #line,
        _ reference: (SIMD3<Double>) -> SIMD3<Double>
    ) {
        for (p, (input, output)) in zip(result.input, result.output).enumerated() {
            let expected = reference(rgb(input))
            let scale = max(largest(expected), largest(rgb(input)))
            for c in 0..<3 {
                let allowed = slack * (pow(2, -11) * abs(expected[c]) + 2e-6 * scale + 1e-7)
                if abs(output[c] - expected[c]) > allowed {
                    return XCTFail(
                        "\(what) pixel \(p) channel \(c): GPU \(output[c]) vs float64 \(expected[c]) (input \(input))",
                        file: file, line: line)
                }
            }
            XCTAssertEqual(output.w, input.w, "\(what) pixel \(p): alpha must not change", file: file, line: line)
        }
    }

    func testColourMatrixEffectsMatchTheReference() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        let input = try apply([], to: source).input
        XCTAssertGreaterThan(input.map { largest(rgb($0)) }.max()!, 40, "the input must reach far into HDR")
        XCTAssertLessThan(
            input.map { min($0.x, $0.y, $0.z) }.min()!, -0.01, "the input must hold out-of-gamut negatives")
        for amount in [1.0, 0.4] {
            let result = try apply([.sepia(amount: amount)], to: source)
            assertMatches(result, "sepia \(amount)") { EffectReference.sepia($0, amount: amount) }
            XCTAssertGreaterThan(result.output.map(\.x).max()!, 40, "sepia must not clamp HDR")
        }
        for stops in [2.5, -3] {
            let result = try apply([.exposure(stops: stops)], to: source)
            assertMatches(result, "exposure \(stops)") { EffectReference.exposure($0, stops: stops) }
        }
        for s in [0.0, 0.6, 2.5] {
            let result = try apply([.saturation(factor: s)], to: source)
            assertMatches(result, "saturation \(s)") { EffectReference.saturation($0, s) }
            if s > 1 {
                XCTAssertLessThan(result.output.map { min($0.x, $0.y, $0.z) }.min()!, -0.1, "negatives survive")
            }
        }
    }

    /// Exposure +1 doubles a half float exactly: every colour half's value
    /// doubles bit for bit (its exponent goes up by one), alpha is untouched.
    func testExposureOneStopDoublesEveryValueExactly() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        let result = try apply([.exposure(stops: 1)], to: source)
        for (i, (before, after)) in zip(result.inputHalves, result.halves).enumerated() {
            let b = Float(Float16(bitPattern: before))
            let a = Float(Float16(bitPattern: after))
            XCTAssertEqual(a, i % 4 == 3 ? b : 2 * b, "half \(i)")
        }
    }

    /// In order: the GPU's chain matches the reference composed in the same
    /// order (three passes round to half three times: slack 3), and not the
    /// reversed one.
    func testChainAppliesEffectsInTheOrderGiven() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        let chain: [Effect] = [.exposure(stops: 1), .saturation(factor: 0.5), .sepia(amount: 0.7)]
        let result = try apply(chain, to: source)
        func forward(_ v: SIMD3<Double>) -> SIMD3<Double> {
            EffectReference.sepia(EffectReference.saturation(EffectReference.exposure(v, stops: 1), 0.5), amount: 0.7)
        }
        assertMatches(result, "chain", slack: 3, forward)
        let reversedDiffers = zip(result.input, result.output).contains { input, output in
            let reversed = EffectReference.exposure(
                EffectReference.saturation(EffectReference.sepia(rgb(input), amount: 0.7), 0.5), stops: 1)
            return abs(reversed.x - output.x) > 0.01 * max(1, abs(output.x))
        }
        XCTAssertTrue(reversedDiffers, "the order must matter for this chain")
        XCTAssertEqual(
            result.effectTimes.count, (try gpu()).0.timestampValidBits > 0 ? 3 : 0, "one GPU time per effect")
    }

    // MARK: - Chroma key

    /// Pure green in BT.709 video range at 10 bits, MSB-aligned, from the
    /// encoding equations: Y' = 0.7152, Cb = −0.7152 / 1.8556, Cr = −0.7152 / 1.5748.
    private let green10 = (
        y: UInt16((64 + 876 * 0.7152).rounded()) << 6,
        cb: UInt16((512 - 896 * 0.7152 / 1.8556).rounded()) << 6,
        cr: UInt16((512 - 896 * 0.7152 / 1.5748).rounded()) << 6
    )

    private func keyCodes() -> [(UInt16, UInt16, UInt16, UInt16)] {
        var codes: [(UInt16, UInt16, UInt16, UInt16)] = []
        // Green with up to ±8 10-bit codes of chroma noise, at two alphas.
        for (i, noise) in [-512, -256, 0, 256, 512].enumerated() {
            codes.append(
                (
                    i % 2 == 0 ? 65535 : 40000, green10.y, UInt16(Int(green10.cb) + noise),
                    UInt16(Int(green10.cr) - noise)
                ))
        }
        // Walking from green to neutral grey: inside the tolerance, across the ramp, beyond.
        for step in 1...15 {
            let t = Double(step) / 30
            let cb = Double(green10.cb) + t * (32768 - Double(green10.cb))
            let cr = Double(green10.cr) + t * (32768 - Double(green10.cr))
            codes.append((step % 3 == 0 ? 20000 : 65535, 30000, UInt16(cb.rounded()), UInt16(cr.rounded())))
        }
        codes += [
            (65535, 30000, 32768, 32768), (65535, 50000, 60000, 40000), (65535, 4096, 10000, 60000),
            (0, 40000, 12000, 9000),
        ]
        return codes
    }

    private func assertKeyMatches(
        _ result: Result, codes: [(UInt16, UInt16, UInt16, UInt16)], range: ColorRange, kr: Double, kb: Double,
        key: ChromaKey, file: StaticString = #filePath, line: UInt = #line
    ) {
        for (p, c) in codes.enumerated() {
            let keep = EffectReference.keep(
                cb: Double(c.2), cr: Double(c.3), range: range, kr: kr, kb: kb, key: key.color,
                tolerance: key.tolerance, softness: key.softness)
            let expected = result.input[p].w * keep
            XCTAssertEqual(
                result.output[p].w, expected, accuracy: pow(2, -11) * expected + 1e-5,
                "pixel \(p): keep \(keep)", file: file, line: line)
            for h in 0..<3 {
                XCTAssertEqual(
                    result.halves[4 * p + h], result.inputHalves[4 * p + h], "pixel \(p): the key changes only alpha",
                    file: file, line: line)
            }
        }
    }

    func testChromaKeyMatchesTheReference() throws {
        let codes = keyCodes()
        let source = try surface(codes, width: codes.count)
        defer { source.releaseUse() }
        let bt709 = try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video)
        for key in [
            ChromaKey(color: SIMD3(0, 1, 0)), ChromaKey(color: SIMD3(0.1, 0.8, 0.2), tolerance: 0.05, softness: 0.3),
            ChromaKey(color: SIMD3(0, 1, 0), tolerance: 0.2, softness: 0),
        ] {
            let result = try apply([.chromaKey(key)], to: source, spec: bt709)
            assertKeyMatches(result, codes: codes, range: .video, kr: 0.2126, kb: 0.0722, key: key)
            let ramp = result.output.filter { $0.w > 0.05 && $0.w < 0.95 }
            if key.softness > 0 { XCTAssertFalse(ramp.isEmpty, "\(key): some pixels must lie on the ramp") }
        }
        // Another matrix and full range: the key follows the frame's own coding.
        let bt2020Full = try ConversionSpec(matrixCode: 9, transferCode: 16, primariesCode: 9, range: .full)
        let key = ChromaKey(color: SIMD3(0, 0.9, 0.1), tolerance: 0.15, softness: 0.2)
        assertKeyMatches(
            try apply([.chromaKey(key)], to: source, spec: bt2020Full), codes: codes, range: .full, kr: 0.2627,
            kb: 0.0593, key: key)
    }

    func testDefaultsKeyACleanGreenScreenFully() throws {
        let codes = keyCodes()
        let source = try surface(codes, width: codes.count)
        defer { source.releaseUse() }
        let result = try apply(
            [.chromaKey(ChromaKey(color: SIMD3(0, 1, 0)))], to: source,
            spec: try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video))
        for p in 0..<5 { XCTAssertEqual(result.output[p].w, 0, "noisy green pixel \(p) must be fully transparent") }
        XCTAssertEqual(result.output[20].w, 1, "neutral grey stays opaque")
    }

    /// The key reads chroma from the decoded surface: a v216 surface with the
    /// same chroma gives the same alpha bits, and an exposure before the key
    /// changes nothing about it.
    func testChromaKeyReadsTheSourceInEitherLayout() throws {
        let codes = keyCodes().map { (UInt16(65535), $0.1, $0.2, $0.3) }  // v216 has no alpha
        let width = codes.count
        let y416 = try surface(codes, width: width)
        defer { y416.releaseUse() }
        let pool = PixelBufferPool(layout: .packed(.v216, width: 2 * width, height: 1))
        let v216 = try pool.makeBuffer()
        defer { v216.releaseUse() }
        let words = v216.baseAddress.assumingMemoryBound(to: UInt16.self)
        for (i, c) in codes.enumerated() {  // each y416 pixel becomes a v216 pair: Cb Y'0 Cr Y'1
            (words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]) = (c.2, c.1, c.3, c.1)
        }
        let spec = try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video)
        let key: [Effect] = [.chromaKey(ChromaKey(color: SIMD3(0, 1, 0), tolerance: 0.05, softness: 0.4))]
        let viaY416 = try apply(key, to: y416, spec: spec)
        let viaV216 = try apply(key, to: v216, spec: spec)
        for p in 0..<width {
            XCTAssertEqual(viaV216.halves[8 * p + 3], viaY416.halves[4 * p + 3], "pair \(p), first pixel")
            XCTAssertEqual(viaV216.halves[8 * p + 7], viaY416.halves[4 * p + 3], "pair \(p), second pixel")
        }
        let afterExposure = try apply([.exposure(stops: 3)] + key, to: y416, spec: spec)
        for p in 0..<width { XCTAssertEqual(afterExposure.halves[4 * p + 3], viaY416.halves[4 * p + 3], "pixel \(p)") }
    }

    // MARK: - LUT

    /// size³ entries from `f` of the lattice coordinates (0…1).
    private func lut(size: Int, domain: ClosedRange<Double> = 0...1, _ f: (SIMD3<Double>) -> SIMD3<Double>) throws
        -> CubeLUT
    {
        var text =
            "LUT_3D_SIZE \(size)\nDOMAIN_MIN \(domain.lowerBound) \(domain.lowerBound) \(domain.lowerBound)\n"
            + "DOMAIN_MAX \(domain.upperBound) \(domain.upperBound) \(domain.upperBound)\n"
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let v = f(SIMD3(Double(r), Double(g), Double(b)) / Double(size - 1))
                    text += "\(v.x) \(v.y) \(v.z)\n"
                }
            }
        }
        return try CubeLUT(parsing: text, path: "test.cube")
    }

    /// A fixed pseudo-random LUT: values in [−0.5, 1.5] (LUT outputs may leave 0…1).
    private func randomLUT(size: Int, domain: ClosedRange<Double> = 0...1) throws -> CubeLUT {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 0.5
        }
        return try lut(size: size, domain: domain) { _ in SIMD3(next(), next(), next()) }
    }

    func testLinearShaperLUTMatchesTheReference() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        let effect = LUTEffect(path: "test.cube", lut: try randomLUT(size: 5, domain: -0.25...8), shaper: .linear)
        let result = try apply([.lut(effect)], to: source)
        assertMatches(result, "linear LUT") { EffectReference.lut($0, effect) }
    }

    /// With the PQ shaper the GPU's float32 PQ curves add error that grows
    /// with the LUT's slope; compared in the PQ domain, where 1e-4 is a tenth
    /// of a 10-bit code, after allowing for the half-float rounding of the result.
    func testPQShaperLUTMatchesTheReference() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        let effect = LUTEffect(path: "test.cube", lut: try randomLUT(size: 9), shaper: .pq(referenceWhite: 203))
        let result = try apply([.lut(effect)], to: source)
        for (p, (input, output)) in zip(result.input, result.output).enumerated() {
            let expected = EffectReference.lut(rgb(input), effect)
            for c in 0..<3 {
                let got = EffectReference.pqEncode(nits: output[c] * 203)
                let want = EffectReference.pqEncode(nits: expected[c] * 203)
                // Half rounding of the linear value moves the PQ signal by at most this much.
                let halfStep = abs(EffectReference.pqEncode(nits: expected[c] * (1 + pow(2, -11)) * 203) - want)
                XCTAssertEqual(
                    got, want, accuracy: 1e-4 + halfStep,
                    "pixel \(p) channel \(c): GPU \(output[c]) vs float64 \(expected[c])")
            }
            XCTAssertEqual(output.w, input.w, "alpha")
        }
    }

    /// Tetrahedral interpolation reproduces an affine map exactly, so a LUT
    /// sampled from f(c) = A·c + b must give f of the clamped coordinate for
    /// every pixel: a check that does not go through the reference's lookup.
    func testAffineLUTIsReproducedExactlyAndHoldsItsEdges() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        func f(_ c: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(2 * c.x - 0.5 * c.y + 0.25, c.y + 0.3 * c.z, -c.x + 4 * c.z)
        }
        let effect = LUTEffect(path: "affine.cube", lut: try lut(size: 3, domain: -1...7, f), shaper: .linear)
        let result = try apply([.lut(effect)], to: source)
        assertMatches(result, "affine LUT") { v in
            f(SIMD3((0..<3).map { min(max((v[$0] + 1) / 8, 0), 1) }))
        }
        XCTAssertTrue(result.input.contains { largest(rgb($0)) > 7 }, "the input must reach beyond the domain's top")
    }

    /// An identity LUT behind the PQ shaper gives back every value in its
    /// domain (0 to 10000 nits) and holds the domain's edges outside it:
    /// negatives become 0, light above 10000 nits stays at 10000 nits.
    func testIdentityPQLUTKeepsItsDomainAndClampsOutside() throws {
        let source = try surface(gridCodes(), width: 17)
        defer { source.releaseUse() }
        let identity = LUTEffect(path: "identity.cube", lut: try lut(size: 17) { $0 }, shaper: .pq(referenceWhite: 203))
        let result = try apply([.exposure(stops: 1), .lut(identity)], to: source)
        let peak = 10000.0 / 203
        for (p, (input, output)) in zip(result.input, result.output).enumerated() {
            for c in 0..<3 {
                let wanted = min(max(2 * input[c], 0), peak)
                XCTAssertEqual(output[c], wanted, accuracy: 3e-3 * wanted + 1e-5, "pixel \(p) channel \(c)")
            }
        }
        XCTAssertTrue(result.input.contains { 2 * largest(rgb($0)) > peak }, "some values must lie above the domain")
    }
}
