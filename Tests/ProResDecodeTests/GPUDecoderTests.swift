@testable import ProResDecode
import XCTest

/// Our Vulkan ProRes decoder against FFmpeg's software decoder (the CPU
/// path), on lavapipe with the validation layer on: every byte of every
/// frame must match.
final class GPUDecoderTests: XCTestCase {
    private static let context = Result { try VulkanContext(options: .init(validation: true)) }
    private static let compiler = Result { try ShaderCompiler(cacheDirectory: nil) }

    static let fixtures = ["proxy.mov", "lt.mov", "422.mov", "hq.mov", "4444.mov", "4444xq.mov", "4444-alpha8.mov",
                           "4444-noalpha.mov", "aw-hq.mov", "slices1.mov", "interlaced-tff.mov", "interlaced-bff.mov",
                           "odd-size.mov", "odd-size-444.mov", "hq.mxf", "pq.mov", "hlg.mov", "p3.mov", "bt709.mov"]

    /// Each frame's native packed bytes (v216 or y416) from the CPU decoder.
    private func cpuFrames(_ clip: String) throws -> [(FrameStatus, [UInt8])] {
        let source = try openSampleSource(Repo.fixture(clip))
        var frames: [(FrameStatus, [UInt8])] = []
        let layout = source.format.nativePackedLayout
        let session = try DecodeSession(format: source.format, configuration: .init(threads: 2)) { frame in
            guard let surface = frame.pixelBuffer else { return frames.append((frame.status, [])) }
            let packed = try PixelBufferPool(layout: .packed(layout, width: surface.layout.width, height: surface.layout.height)).makeBuffer()
            FramePacker.pack(surface, into: packed)
            frames.append((frame.status, packed.visibleSpans().flatMap { Array($0) }))
        }
        while let sample = try source.nextSample() { try session.decode(sample) }
        try session.finish()
        return frames
    }

    private func gpuFrames(_ clip: String, framesPerBatch: Int? = nil) throws -> [(FrameStatus, [UInt8])] {
        let source = try openSampleSource(Repo.fixture(clip))
        var frames: [(FrameStatus, [UInt8])] = []
        let session = try GPUDecodeSession(format: source.format, context: try Self.context.get(), compiler: try Self.compiler.get(),
                                           configuration: .init(framesPerBatch: framesPerBatch)) { frame in
            frames.append((frame.status, frame.pixelBuffer.map { $0.visibleSpans().flatMap { Array($0) } } ?? []))
        }
        while let sample = try source.nextSample() { try session.decode(sample) }
        try session.finish()
        return frames
    }

    private func firstDifference(_ a: [UInt8], _ b: [UInt8], width: Int, unitBytes: Int) -> String {
        guard a.count == b.count else { return "sizes \(a.count) vs \(b.count)" }
        let words = a.count / 2
        var count = 0
        var first: String?
        for i in 0..<words where a[2 * i] != b[2 * i] || a[2 * i + 1] != b[2 * i + 1] {
            count += 1
            if first == nil {
                let cpu = Int(a[2 * i]) | Int(a[2 * i + 1]) << 8, gpu = Int(b[2 * i]) | Int(b[2 * i + 1]) << 8
                first = "word \(i) (row \(i * 2 / (width * unitBytes)), byte \(i * 2 % (width * unitBytes))): cpu \(cpu) gpu \(gpu)"
            }
        }
        return "\(count) of \(words) samples differ; first at \(first ?? "-")"
    }

    func testEveryFixtureDecodesBitExactly() throws {
        for clip in Self.fixtures {
            let cpu = try cpuFrames(clip)
            let gpu = try gpuFrames(clip)
            XCTAssertEqual(cpu.count, gpu.count, clip)
            let format = try openSampleSource(Repo.fixture(clip)).format
            let unit = format.nativePackedLayout == .y416 ? 8 : 4
            for (i, (c, g)) in zip(cpu, gpu).enumerated() {
                XCTAssertEqual(c.0, g.0, "\(clip) frame \(i) status")
                if c.1 != g.1 { XCTFail("\(clip) frame \(i): \(firstDifference(c.1, g.1, width: format.width, unitBytes: unit))") }
            }
        }
        XCTAssertEqual(try Self.context.get().validation?.messages ?? [], [])
    }
}
