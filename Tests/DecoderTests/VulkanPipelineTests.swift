import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Collects GPU-converted frames as Floats.
final class ConvertedCollector: ConvertedFrameSink {
    private(set) var frames: [(index: Int, width: Int, height: Int, values: [Float], halves: [UInt16])] = []
    func consume(_ frame: ConvertedFrame) throws {
        var values: [Float] = []
        values.reserveCapacity(frame.width * frame.height * 4)
        for y in 0..<frame.height {
            for x in 0..<frame.width { for c in 0..<4 { values.append(frame.value(x: x, y: y, channel: c)) } }
        }
        let halves = Array(frame.pixels.bindMemory(to: UInt16.self))
        frames.append((frame.index, frame.width, frame.height, values, halves))
    }
}

/// Keeps the y416 bytes of every frame, the input the reference converts.
final class BytesCollector: FrameSink {
    private(set) var frames: [[UInt8]] = []
    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        frames.append(spans.reduce(into: []) { $0 += $1 })
    }
    func finish() throws {}
    func abort() {}
}

/// Decode → pooled y416/v216 → texture cache → GPU conversion, end to end on
/// fixtures, against the float64 reference applied to the packed codes.
final class VulkanPipelineTests: XCTestCase {
    private func gpuOptions() -> DecodeRun.GPUOptions {
        .init(context: .init(validation: true))
    }

    private func run(_ clip: String, layout: PackedLayout, frames: Int? = nil, save: FrameSaver? = nil)
        throws -> (DecodeRun.Report, ConvertedCollector, BytesCollector)
    {
        let converted = ConvertedCollector()
        let bytes = BytesCollector()
        let run = try DecodeRun(
            source: try openSampleSource(Repo.fixture(clip)),
            options: .init(output: .packed(layout), frames: frames, threads: 2, gpu: gpuOptions()),
            sinks: [bytes], gpuSinks: [converted] + (save.map { [$0] } ?? []))
        let report = try run.run()
        XCTAssertEqual(report.gpu?.validationMessages ?? ["no GPU report"], [], "\(clip): validation layer messages")
        return (report, converted, bytes)
    }

    /// Every pixel of every frame against ReferenceConverter on the y416 codes.
    private func assertMatchesReference(
        _ clip: String, spec: ConversionSpec, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (report, converted, bytes) = try run(clip, layout: .y416)
        XCTAssertEqual(bytes.frames.count, 5, "\(clip): every fixture has 5 frames", file: file, line: line)
        XCTAssertEqual(converted.frames.map(\.index), Array(0..<bytes.frames.count), clip, file: file, line: line)
        XCTAssertEqual(report.gpu?.copiedFrames, 0, "surfaces should be imported, not copied", file: file, line: line)
        var worst = 0.0
        for (frame, raw) in zip(converted.frames, bytes.frames) {
            let words = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8 }
            for p in 0..<(frame.width * frame.height) {
                let ref = ReferenceConverter.convert(
                    y: words[4 * p + 1], cb: words[4 * p + 2], cr: words[4 * p + 3], a: words[4 * p], params: spec)
                let expected = [ref.r, ref.g, ref.b, ref.a]
                let largest = expected[0..<3].map(abs).max()!
                for c in 0..<4 {
                    let error = abs(Double(frame.values[4 * p + c]) - expected[c])
                    let allowed =
                        VulkanConversionTests.relativeTolerance
                        * (c == 3 ? abs(expected[c]) : max(abs(expected[c]), largest))
                        + VulkanConversionTests.absoluteTolerance
                    worst = max(worst, error / allowed)
                    if error > allowed {
                        return XCTFail(
                            "\(clip) frame \(frame.index) pixel \(p) channel \(c): GPU \(frame.values[4 * p + c]) vs float64 \(expected[c])",
                            file: file, line: line)
                    }
                }
            }
        }
        XCTAssertLessThanOrEqual(worst, 1, clip, file: file, line: line)
    }

    func testTaggedFixturesMatchTheReference() throws {
        try assertMatchesReference(
            "pq.mov", spec: ConversionSpec(matrixCode: 9, transferCode: 16, primariesCode: 9, range: .video))
        try assertMatchesReference(
            "hlg.mov", spec: ConversionSpec(matrixCode: 9, transferCode: 18, primariesCode: 9, range: .video))
        try assertMatchesReference(
            "bt709.mov", spec: ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video))
        try assertMatchesReference(
            "p3.mov", spec: ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 12, range: .video))
    }

    func testAlphaAndUntaggedFallback() throws {
        // 192x112 untagged: the documented fallback is SMPTE 170M primaries
        // and matrix (height ≤ 486) with the BT.709 transfer.
        let fallback = try ConversionSpec(matrixCode: 6, transferCode: 1, primariesCode: 6, range: .video)
        try assertMatchesReference("4444.mov", spec: fallback)
        // An odd width takes the shader's one-pixel-per-invocation variant.
        try assertMatchesReference("odd-size-444.mov", spec: fallback)
        let (report, _, _) = try run("hq.mov", layout: .y416, frames: 1)
        XCTAssertFalse(report.gpu?.colorFallbacks.isEmpty ?? true, "an untagged clip must report its fallback")
        XCTAssertEqual(report.gpu?.framesWithColorFallback, 1)
    }

    func testV216AndY416ConvertIdentically() throws {
        for clip in ["pq.mov", "odd-size.mov"] {
            let (_, viaY416, _) = try run(clip, layout: .y416)
            let (_, viaV216, _) = try run(clip, layout: .v216)
            XCTAssertEqual(viaY416.frames.count, 5, clip)
            XCTAssertEqual(viaY416.frames.count, viaV216.frames.count)
            for (a, b) in zip(viaY416.frames, viaV216.frames) {
                let firstDifference = zip(a.halves, b.halves).enumerated().first { $0.element.0 != $0.element.1 }
                XCTAssertEqual(a.halves.count, b.halves.count)
                XCTAssertNil(
                    firstDifference.map { "half \($0.offset): y416 \($0.element.0), v216 \($0.element.1)" },
                    "\(clip) frame \(a.index): v216 and y416 must give bit-identical RGBA16F")
            }
        }
    }

    /// Two surfaces, many frames: a surface recycled while the GPU still read
    /// it would show up as a frame converted from another frame's codes.
    func testPoolOfTwoSurfacesNeverRecyclesEarly() throws {
        let (context, compiler) = (
            try VulkanContext(options: .init(validation: true)), try ShaderCompiler(cacheDirectory: nil)
        )
        let sourceFrames = try run("pq.mov", layout: .y416).2.frames
        let spec = try ConversionSpec(matrixCode: 9, transferCode: 16, primariesCode: 9, range: .video)
        // Expected output per distinct source frame, from the float64 reference.
        let expected: [[Float]] = sourceFrames.map { raw in
            let words = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8 }
            return (0..<(words.count / 4)).flatMap { p -> [Float] in
                let r = ReferenceConverter.convert(
                    y: words[4 * p + 1], cb: words[4 * p + 2], cr: words[4 * p + 3], a: words[4 * p], params: spec)
                return [Float(r.r), Float(r.g), Float(r.b), Float(r.a)]
            }
        }
        let pool = PixelBufferPool(layout: .packed(.y416, width: 192, height: 112), maximumCount: 2)
        let total = 60
        var checked = 0
        let converter = try GPUFrameConverter(
            context: context, kernels: KernelCache(context: context, compiler: compiler), framesInFlight: 3
        ) { frame in
            let want = expected[frame.index % expected.count]
            for i in stride(from: 0, to: want.count, by: 97) {  // a spread of samples per frame
                let got = frame.value(x: (i / 4) % 192, y: (i / 4) / 192, channel: i % 4)
                let scale = max(abs(want[i]), abs(want[i - i % 4]), abs(want[i - i % 4 + 1]), abs(want[i - i % 4 + 2]))
                XCTAssertEqual(
                    Double(got), Double(want[i]), accuracy: 1e-3 * Double(scale) + 2e-5,
                    "frame \(frame.index) value \(i)")
            }
            XCTAssertEqual(frame.index, checked, "frames must complete in order")
            checked += 1
        }
        for index in 0..<total {
            let surface = try pool.makeBuffer()  // blocks until the GPU hands one back
            let raw = sourceFrames[index % sourceFrames.count]
            raw.withUnsafeBytes { surface.baseAddress.copyMemory(from: $0.baseAddress!, byteCount: raw.count) }
            try converter.submit(surface, parameters: ConversionParameters(spec), index: index, pts: nil)
            surface.releaseUse()  // ours; the GPU's use is released on completion
        }
        try converter.finish()
        XCTAssertEqual(checked, total)
        XCTAssertEqual(pool.statistics.allocated, 2)
        XCTAssertEqual(pool.statistics.vended, total)
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    /// The EXR files, read back by the ffmpeg CLI (an independent EXR
    /// reader), hold the converted values.
    func testSavedEXRReadsBackThroughFFmpeg() throws {
        let directory = try makeTemporaryDirectory(self)
        let saver = try FrameSaver(directory: directory.path, format: .exr, overwrite: false)
        let (_, converted, _) = try run("hlg.mov", layout: .v216, frames: 2, save: saver)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["frame-000000.exr", "frame-000001.exr"], "no temporary files may remain")
        for frame in converted.frames {
            let path = directory.appendingPathComponent(FrameSaver.fileName(index: frame.index, format: .exr)).path
            let planes = try exrPlanes(path)
            let n = frame.width * frame.height
            XCTAssertEqual(planes.r.count, n)
            for p in stride(from: 0, to: n, by: 7) {
                XCTAssertEqual(planes.r[p], frame.values[4 * p], "R of pixel \(p)")
                XCTAssertEqual(planes.g[p], frame.values[4 * p + 1], "G of pixel \(p)")
                XCTAssertEqual(planes.b[p], frame.values[4 * p + 2], "B of pixel \(p)")
                XCTAssertEqual(planes.a[p], frame.values[4 * p + 3], "A of pixel \(p)")
            }
        }
    }

    func testToneMapIsMonotoneAndContinuous() {
        XCTAssertEqual(FrameSaver.toneMapped([0.5, 0.2, 0.1]), [0.5, 0.2, 0.1])
        let justAbove = FrameSaver.toneMapped([0.7500001, 0, 0])[0]
        XCTAssertEqual(justAbove, 0.75, accuracy: 1e-6)
        var previous = 0.0
        for m in stride(from: 0.0, through: 50.0, by: 0.01) {
            let t = FrameSaver.toneMapped([m, 0, 0])[0]
            XCTAssertGreaterThanOrEqual(t, previous)
            XCTAssertLessThanOrEqual(t, 1.0, "the roll-off never exceeds display white")
            previous = t
        }
    }
}
