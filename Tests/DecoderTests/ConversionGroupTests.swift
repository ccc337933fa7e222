import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

/// `--vulkan` converts several frames per submission (a GPU decoder
/// batch's, or whatever the CPU decoder has queued): the files saved must
/// be those of one frame per submission, frame for frame, in order.
final class ConversionGroupTests: XCTestCase {
    /// 40 frames, every one different (ffmpeg's testsrc2 draws a moving
    /// pattern and a counter): more than two of the GPU decoder's batches
    /// (at least 16 frames each), and a swap of two frames would show.
    private func makeClip(in directory: URL) throws -> String {
        let clip = directory.appendingPathComponent("moving.mov").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25",
                "-frames:v", "40", "-c:v", "prores_ks", "-profile:v", "3", clip,
            ])
        return clip
    }

    private struct Run {
        let files: [String: Data]
        let timingFrames: [Int]
        let submissions: Int
    }

    private func run(_ clip: String, _ arguments: [String], in directory: URL) throws -> Run {
        let name = arguments.joined(separator: "_").replacingOccurrences(of: "/", with: "_")
        let saved = directory.appendingPathComponent("saved-\(name)")
        let timing = directory.appendingPathComponent("timing-\(name).jsonl").path
        let result = try runTool(
            [clip, "--vulkan", "--save", saved.path, "--save-format", "exr", "--timing", timing, "--json", "--quiet"]
                + arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let gpu = try XCTUnwrap(summary["gpu"] as? [String: Any])
        var files: [String: Data] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: saved.path) {
            files[file] = try Data(contentsOf: saved.appendingPathComponent(file))
        }
        let frames = try String(contentsOfFile: timing, encoding: .utf8).split(separator: "\n").map { line in
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["frame"] as? Int)
        }
        return Run(
            files: files, timingFrames: frames, submissions: try XCTUnwrap(gpu["conversion_submissions"] as? Int))
    }

    /// The GPU decoder hands over a batch's frames together and they are
    /// converted in groups; the CPU decoder's frames arrive one by one. The
    /// two decoders are bit-exact, so the saved files must be the same.
    /// (Groups against single submissions of the same frames: the
    /// converter's own test below.)
    func testGroupedConversionsSaveWhatTheCPUDecodersFramesSave() throws {
        let directory = try makeTemporaryDirectory(self)
        let clip = try makeClip(in: directory)
        let names = (0..<40).map { String(format: "frame-%06d.exr", $0) }
        for effects in [[], ["--effect", "chroma-key:color=0,1,0", "--effect", "sepia:0.5"]] {
            let grouped = try run(clip, ["--decoder", "gpu"] + effects, in: directory)
            let reference = try run(clip, ["--decoder", "cpu"] + effects, in: directory)
            XCTAssertLessThan(grouped.submissions, 10, "\(effects): the GPU decoder's conversions were not grouped")
            XCTAssertEqual(grouped.files.keys.sorted(), names, "\(effects)")
            XCTAssertEqual(reference.files.keys.sorted(), names, "\(effects)")
            XCTAssertEqual(Set(reference.files.values).count, 40, "\(effects): every frame of the clip differs")
            for name in names {
                XCTAssertTrue(grouped.files[name] == reference.files[name], "\(effects): \(name) differs when grouped")
            }
            XCTAssertEqual(grouped.timingFrames, Array(0..<40), "\(effects): frames out of order")
            XCTAssertEqual(reference.timingFrames, Array(0..<40), "\(effects)")
        }
    }

    // MARK: - The converter itself, with host surfaces (the CPU decoder's)

    /// A y416 surface whose codes depend on `frame`, so no two frames convert alike.
    private func surface(_ frame: Int) throws -> PixelBuffer {
        let surface = try PixelBufferPool(layout: .packed(.y416, width: 24, height: 8)).makeBuffer()
        let words = surface.baseAddress.assumingMemoryBound(to: UInt16.self)
        for p in 0..<(24 * 8) {
            for c in 0..<4 {
                words[4 * p + c] = UInt16(truncatingIfNeeded: frame &* 7919 &+ p &* 263 &+ c &* 16411).littleEndian
            }
        }
        return surface
    }

    private let spec = try! ConversionSpec(matrixCode: 9, transferCode: 16, primariesCode: 9, range: .video)

    /// Converts 22 frames, each recorded back to back, with `framesPerSubmission`;
    /// returns each frame's RGBA16F bytes in delivery order, and the submissions made.
    private func convert(framesPerSubmission: Int, effects: [Effect], _ context: VulkanContext, _ kernels: KernelCache)
        throws -> (frames: [(index: Int, bytes: [UInt8])], submissions: Int)
    {
        var frames: [(index: Int, bytes: [UInt8])] = []
        let converter = try GPUFrameConverter(
            context: context, kernels: kernels, framesInFlight: 8, framesPerSubmission: framesPerSubmission,
            effects: effects
        ) { frames.append(($0.index, Array($0.pixels))) }
        let surfaces = try (0..<22).map(surface)
        for (index, surface) in surfaces.enumerated() {
            try converter.record(
                .host(surface), parameters: ConversionParameters(spec), index: index, pts: nil, spec: spec)
        }
        try converter.finish()
        for surface in surfaces {
            XCTAssertEqual(surface.useCount, 1, "the converter must give back its use of every surface")
            surface.releaseUse()
        }
        return (frames, converter.submissions)
    }

    func testGroupsOfHostSurfacesConvertLikeSingleFrames() throws {
        let context = try VulkanContext(options: .init(validation: true))
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        for effects in [[], [Effect.sepia(amount: 0.5)]] {
            let single = try convert(framesPerSubmission: 1, effects: effects, context, kernels)
            let grouped = try convert(framesPerSubmission: 4, effects: effects, context, kernels)
            XCTAssertEqual(single.submissions, 22)
            XCTAssertEqual(grouped.submissions, 6, "five full groups of 4, the last 2 by finish()")
            XCTAssertEqual(grouped.frames.map(\.index), Array(0..<22), "frames must be delivered in order")
            XCTAssertEqual(single.frames.map(\.index), Array(0..<22))
            XCTAssertEqual(Set(single.frames.map(\.bytes)).count, 22, "every frame converts differently")
            for (a, b) in zip(single.frames, grouped.frames) {
                XCTAssertTrue(a.bytes == b.bytes, "\(effects) frame \(a.index): grouped conversion differs")
            }
        }
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    /// Frames recorded but not yet submitted are dropped by `cancel`
    /// (DecodeRun's error path): never delivered, their surfaces given back.
    func testCancelDropsTheFramesHeld() throws {
        let context = try VulkanContext(options: .init(validation: true))
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        var delivered: [Int] = []
        let converter = try GPUFrameConverter(
            context: context, kernels: kernels, framesInFlight: 8, framesPerSubmission: 4
        ) {
            delivered.append($0.index)
        }
        let surfaces = try (0..<4).map(surface)
        defer { surfaces.forEach { $0.releaseUse() } }
        for index in 0..<3 {
            try converter.record(.host(surfaces[index]), parameters: ConversionParameters(spec), index: index, pts: nil)
        }
        XCTAssertEqual(surfaces[0].useCount, 2, "a frame held keeps its surface")
        converter.cancel()
        XCTAssertEqual(surfaces.map(\.useCount), [1, 1, 1, 1])
        XCTAssertThrowsError(
            try converter.record(.host(surfaces[3]), parameters: ConversionParameters(spec), index: 3, pts: nil))
        XCTAssertThrowsError(try converter.finish())
        XCTAssertEqual(surfaces[3].useCount, 1)
        XCTAssertEqual(delivered, [])
        XCTAssertEqual(converter.submissions, 0)
    }

    /// A converter is freed once its owner lets go (its completion thread
    /// does not keep it), and gives back the surfaces of frames it held.
    func testAConverterLetGoIsFreedWithTheFramesItHeld() throws {
        let context = try VulkanContext(options: .init(validation: true))
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        let surfaces = try (0..<3).map(surface)
        defer { surfaces.forEach { $0.releaseUse() } }
        weak var freed: GPUFrameConverter?
        do {
            let converter = try GPUFrameConverter(
                context: context, kernels: kernels, framesInFlight: 8, framesPerSubmission: 4
            ) { _ in }
            freed = converter
            try converter.submit(.host(surfaces[0]), parameters: ConversionParameters(spec), index: 0, pts: nil)
            try converter.finish()
            for index in 1..<3 {
                try converter.record(
                    .host(surfaces[index]), parameters: ConversionParameters(spec), index: index, pts: nil)
            }
        }
        XCTAssertNil(freed, "the converter outlived its owner")
        XCTAssertEqual(surfaces.map(\.useCount), [1, 1, 1])
    }

    // MARK: - The sessions' idle hook, which submits a group

    /// Frame indices, and -1 for each idle call, in the order the output thread made them.
    private final class Events: @unchecked Sendable {
        var list: [Int] = []
    }

    private func assertIdleCalls(_ events: [Int], frames: Int, atMost: Int, _ what: String) {
        XCTAssertEqual(events.filter { $0 >= 0 }, Array(0..<frames), "\(what): frames in order")
        XCTAssertEqual(events.last, -1, "\(what): the last frame must be followed by an idle call (or its group waits)")
        XCTAssertFalse(
            zip(events, events.dropFirst()).contains { $0 == -1 && $1 == -1 }, "\(what): idle calls come after frames")
        XCTAssertLessThanOrEqual(events.filter { $0 < 0 }.count, atMost, "\(what): \(events)")
    }

    func testSessionsCallTheIdleHandlerWhenNoFrameIsQueued() throws {
        let (format, clip) = try fixtureSamples("hq.mov")
        let total = 20
        let cpuEvents = Events()
        let cpu = try FFmpegDecodeSession(
            format: format, configuration: .init(threads: 2), outputHandler: { cpuEvents.list.append($0.index) },
            outputIdleHandler: { cpuEvents.list.append(-1) })
        for i in 0..<total { try cpu.decode(clip[i % clip.count].renumbered(as: i)) }
        try cpu.finish()
        assertIdleCalls(cpuEvents.list, frames: total, atMost: total, "cpu")

        // A batch's frames are queued together: at most one idle call a batch.
        let context = try VulkanContext(options: .init(validation: true))
        let gpuEvents = Events()
        let gpu = try GPUDecodeSession(
            format: format, context: context,
            kernels: KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil)),
            configuration: .init(framesPerBatch: 4), outputHandler: { gpuEvents.list.append($0.index) },
            outputIdleHandler: { gpuEvents.list.append(-1) })
        for i in 0..<total { try gpu.decode(clip[i % clip.count].renumbered(as: i)) }
        try gpu.finish()
        let batches = gpu.completedBatches
        XCTAssertGreaterThanOrEqual(batches, total / 4, "batches of at most 4 frames")
        assertIdleCalls(gpuEvents.list, frames: total, atMost: batches, "gpu")
    }
}
