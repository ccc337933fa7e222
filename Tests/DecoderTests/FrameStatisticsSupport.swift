import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

/// One planar frame as the test holds it: LSB-aligned samples, planes
/// Y', Cb, Cr, [A], tight rows (`ffmpeg -f rawvideo`'s layout).
struct PlanarTestFrame {
    var format: PlanarFormat
    var width: Int
    var height: Int
    var planes: [[UInt16]]

    func sample(_ plane: Int, _ x: Int, _ y: Int) -> UInt16 {
        planes[plane][y * format.planeWidth(plane, width: width) + x]
    }

    /// The CPU still grid under test, on a view of these planes.
    func cpuGrid() -> StillGrid {
        let bytes = planes.map { plane in plane.withUnsafeBytes { Data($0) } }
        return bytes.withUnsafeSpans { spans in
            StillGrid(frame: NativeFrameView(spans: spans, format: format, width: width, height: height)!)
        }
    }

    /// The still grid written plainly from its definition (docs/check.md):
    /// rows 0, 4, 8, ...; in each, samples 0, 16, 32, ... of Y′, Cb, Cr, A.
    func referenceGrid() -> [UInt16] {
        var samples: [UInt16] = []
        var y = 0
        while y < height {
            for plane in 0..<format.planeCount {
                var x = 0
                while x < format.planeWidth(plane, width: width) {
                    samples.append(sample(plane, x, y))
                    x += 16
                }
            }
            y += 4
        }
        return samples
    }

    /// The CPU measurement under test, on a view of these planes.
    func cpuSums(range: ColorRange, light: LightLevelMeter?, gamut: GamutMeter? = nil) -> PictureSums {
        let bytes = planes.map { plane in plane.withUnsafeBytes { Data($0) } }
        return bytes.withUnsafeSpans { spans in
            PictureSums(
                frame: NativeFrameView(spans: spans, format: format, width: width, height: height)!, range: range,
                light: light, gamut: gamut)
        }
    }
}

extension Array where Element == Data {
    func withUnsafeSpans<R>(_ body: ([UnsafeRawBufferPointer]) -> R) -> R {
        func nest(_ i: Int, _ spans: [UnsafeRawBufferPointer]) -> R {
            guard i < count else { return body(spans) }
            return self[i].withUnsafeBytes { nest(i + 1, spans + [$0]) }
        }
        return nest(0, [])
    }
}

/// The frames of a fixture as the ffmpeg CLI decodes them to its native
/// pix_fmt (`Fixtures/ref/<clip>.pixfmt`): an independent decoder.
func ffmpegPlanarFrames(_ clip: String, format: PlanarFormat, width: Int, height: Int) throws -> [PlanarTestFrame] {
    let expectedName = try String(contentsOfFile: Repo.reference("\(clip).pixfmt"), encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(format.name, expectedName, clip)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "ffmpeg", "-nostdin", "-v", "error", "-i", Repo.fixture(clip), "-f", "rawvideo", "-pix_fmt", expectedName, "-",
    ]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let bytes = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "ffmpeg could not decode \(clip)")
    let planeSamples = (0..<format.planeCount).map { format.planeWidth($0, width: width) * height }
    let frameBytes = planeSamples.reduce(0, +) * 2
    XCTAssertEqual(bytes.count % frameBytes, 0, "\(clip): \(bytes.count) bytes is no whole number of frames")
    let words: [UInt16] = bytes.withUnsafeBytes {
        Array($0.bindMemory(to: UInt16.self)).map { UInt16(littleEndian: $0) }
    }
    return stride(from: 0, to: words.count - frameBytes / 2 + 1, by: frameBytes / 2).map { start in
        var at = start
        let planes = planeSamples.map { n -> [UInt16] in
            defer { at += n }
            return Array(words[at..<at + n])
        }
        return PlanarTestFrame(format: format, width: width, height: height, planes: planes)
    }
}

/// The statistics written out plainly, sample by sample, from the
/// definitions (docs/check.md, "Statistics"), not from our code: the
/// reference the CPU measurement must equal. No light.
func referenceSums(_ frame: PlanarTestFrame, videoRange: Bool) -> PictureSums {
    let depth = frame.format.bitDepth
    let luma = frame.planes[0]
    let chroma = frame.planes[1] + frame.planes[2]
    var outside: PictureSums.OutOfRangeCounts?
    if videoRange {
        let scale = 1 << (depth - 8)  // the 8-bit codes scaled to the depth
        let (yLow, yHigh, cLow, cHigh) = (16 * scale, 235 * scale, 16 * scale, 240 * scale)
        outside = .init(
            lumaBelow: UInt64(luma.filter { Int($0) < yLow }.count),
            lumaAbove: UInt64(luma.filter { Int($0) > yHigh }.count),
            chromaBelow: UInt64(chroma.filter { Int($0) < cLow }.count),
            chromaAbove: UInt64(chroma.filter { Int($0) > cHigh }.count))
    }
    // blackdetect's threshold: 16 + pix_th · (235 − 16) in 8-bit terms times
    // 2^(depth − 8), or pix_th · (2^depth − 1) full range, truncated.
    let factor = Double(1 << (depth - 8))
    let darkLevel = Int(videoRange ? 16 * factor + 0.10 * (235 - 16) * factor : 0.10 * Double((1 << depth) - 1))
    var alpha: PictureSums.AlphaCoverage?
    if frame.format.hasAlpha {
        let a = frame.planes[3]
        alpha = .init(
            transparent: UInt64(a.filter { $0 == 0 }.count),
            opaque: UInt64(a.filter { Int($0) == (1 << depth) - 1 }.count))
    }
    return PictureSums(
        lumaMin: Int(luma.min()!), lumaMax: Int(luma.max()!), lumaSum: luma.reduce(0) { $0 + UInt64($1) },
        darkPixels: UInt64(luma.filter { Int($0) <= darkLevel }.count),
        samples: UInt64(frame.width * frame.height), alpha: alpha, outOfRange: outside, light: nil)
}

/// Packs a frame into its native packed layout, written here from docs/formats.md
/// "Byte layouts" (not FramePacker): y416 A, Y', Cb, Cr a pixel; v216 Cb,
/// Y'0, Cr, Y'1 a pair, an odd width's last pair repeating Y'0. Samples
/// MSB-aligned, alpha widened by bit replication. `lowBits` fills the bits
/// below a Y'CbCr sample, which the unpacked frame does not have
/// (FrameUnpacker shifts them out), so the pass must ignore them too.
func packNative(_ frame: PlanarTestFrame, lowBits: UInt16 = 0) -> [UInt16] {
    let shift = UInt16(16 - frame.format.bitDepth)
    let low = lowBits & ((1 << shift) - 1)
    func code(_ v: UInt16) -> UInt16 { v << shift | low }
    var words: [UInt16] = []
    for y in 0..<frame.height {
        if frame.format.chroma == .c444 {
            for x in 0..<frame.width {
                let a: UInt16 =
                    frame.format.hasAlpha
                    ? frame.sample(3, x, y) << shift | frame.sample(3, x, y) >> (16 - 2 * shift) : 0xFFFF
                words += [a, code(frame.sample(0, x, y)), code(frame.sample(1, x, y)), code(frame.sample(2, x, y))]
            }
        } else {
            for k in 0..<(frame.width + 1) / 2 {
                let y0 = frame.sample(0, 2 * k, y)
                let y1 = 2 * k + 1 < frame.width ? frame.sample(0, 2 * k + 1, y) : y0
                words += [code(frame.sample(1, k, y)), code(y0), code(frame.sample(2, k, y)), code(y1)]
            }
        }
    }
    return words
}

/// Runs `FrameStatisticsPass` on lavapipe (or whatever device), with the
/// validation layer on, over frames packed into one buffer.
final class StatisticsDevice {
    let context: VulkanContext
    private let kernels: KernelCache
    private let recorder: CommandRecorder

    // nonisolated(unsafe): made once by Swift's thread-safe static initialisation; the device's types lock themselves.
    nonisolated(unsafe) static let shared = Result { try StatisticsDevice() }

    private init() throws {
        context = try VulkanContext(options: .init(validation: true))
        kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        recorder = try CommandRecorder(context: context, count: 1)
    }

    var validationMessages: [String] { context.validation?.messages ?? [] }

    /// Where things go in the buffers: both ranges start past a leading
    /// offset, frames `surfaceStride` bytes apart (more than a frame), so
    /// that offsets and strides are exercised; results are pre-filled with
    /// a sentinel, and the words after the last frame's must keep it.
    static let rangeOffset = 256
    static let sentinel: UInt32 = 0xDEAD_BEEF

    func sums(
        _ frames: [PlanarTestFrame], range: ColorRange, light: LightLevelMeter?, gamut: GamutMeter? = nil,
        lowBits: UInt16 = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [PictureSums] {
        try measure(frames, range: range, light: light, gamut: gamut, lowBits: lowBits, file: file, line: line).sums
    }

    /// The pass's sums and still grids of `frames`.
    func measure(
        _ frames: [PlanarTestFrame], range: ColorRange, light: LightLevelMeter?, gamut: GamutMeter? = nil,
        lowBits: UInt16 = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (sums: [PictureSums], grids: [StillGrid]) {
        let first = frames[0]
        precondition(
            frames.allSatisfy { $0.width == first.width && $0.height == first.height && $0.format == first.format },
            "a batch's frames share one format and size")
        let layout = PackedLayout.native(for: first.format.chroma)
        let frameBytes = layout.bytesPerRow(width: first.width) * first.height
        let surfaceStride = (frameBytes + 4 + 255) & ~255 + 20  // not a power of two, not 256-aligned
        let pass = try FrameStatisticsPass(
            kernels: kernels, format: first.format, layout: layout, width: first.width,
            height: first.height, range: range, light: light, gamut: gamut, slots: 2)
        XCTAssertEqual(pass.resultBytesPerFrame % 16, 0, file: file, line: line)

        let surfaces = try VulkanBuffer(
            context, size: Self.rangeOffset + frames.count * surfaceStride, usage: .storage, memory: .host)
        // between frames: not picture
        surfaces.mapped!.initializeMemory(as: UInt8.self, repeating: 0xA5, count: surfaces.size)
        for (i, frame) in frames.enumerated() {
            let words = packNative(frame, lowBits: lowBits)
            words.withUnsafeBytes {
                surfaces.mapped!.advanced(by: Self.rangeOffset + i * surfaceStride).copyMemory(
                    from: $0.baseAddress!, byteCount: $0.count)
            }
        }
        let resultBytes = frames.count * pass.resultBytesPerFrame
        let results = try VulkanBuffer(
            context, size: Self.rangeOffset + resultBytes + 64, usage: .storage, memory: .host)
        let resultWords = results.mapped!.bindMemory(to: UInt32.self, capacity: results.size / 4)
        for i in 0..<results.size / 4 { resultWords[i] = Self.sentinel }

        let cb = try recorder.begin(0)
        pass.record(
            cb, slot: 1, surfaces: BufferRange(surfaces, offset: Self.rangeOffset), surfaceStride: surfaceStride,
            frames: frames.count, results: BufferRange(results, offset: Self.rangeOffset, bytes: resultBytes))
        try recorder.wait(for: try recorder.submit(cb))

        for i in 0..<Self.rangeOffset / 4 {
            XCTAssertEqual(resultWords[i], Self.sentinel, "written before the results range", file: file, line: line)
        }
        for i in (Self.rangeOffset + resultBytes) / 4..<results.size / 4 {
            XCTAssertEqual(resultWords[i], Self.sentinel, "written after the results range", file: file, line: line)
        }
        let base = UnsafeRawPointer(results.mapped!) + Self.rangeOffset
        return (
            frames.indices.map { pass.sums(results: base + $0 * pass.resultBytesPerFrame) },
            frames.indices.map { pass.stillGrid(results: base + $0 * pass.resultBytesPerFrame) }
        )
    }
}

/// |a − b| / max(|a|, |b|); 0 when both are 0.
func relativeError(_ a: Double, _ b: Double) -> Double {
    let scale = max(abs(a), abs(b))
    return scale == 0 ? 0 : abs(a - b) / scale
}

/// Compares GPU sums with CPU sums: integers exactly, light within 1e-4
/// relative. Returns the larger light error.
@discardableResult
func assertSameSums(
    _ gpu: PictureSums, _ cpu: PictureSums, _ what: String, file: StaticString = #filePath, line: UInt = #line
) -> Double {
    XCTAssertEqual(gpu.integers, cpu.integers, "\(what): GPU integers differ from the CPU's", file: file, line: line)
    XCTAssertEqual(
        gpu.light == nil, cpu.light == nil, "\(what): light measured by one side only", file: file, line: line)
    guard let g = gpu.light, let c = cpu.light else { return 0 }
    let worst = max(relativeError(g.peak, c.peak), relativeError(g.average, c.average))
    XCTAssertLessThanOrEqual(worst, 1e-4, "\(what): GPU light \(g) vs CPU \(c)", file: file, line: line)
    return worst
}
