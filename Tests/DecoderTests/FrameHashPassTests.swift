import Foundation
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

/// `FrameHashPass` (frame_hash.comp) against `b3sum` of the planar frame.
/// The planar frames come from outside our decoder: the ffmpeg CLI's for
/// every fixture the GPU decoder takes, or random samples for synthetic
/// sizes. This file packs them into v216/y416 itself (junk wherever the
/// planar frame has no sample: the low bits below the depth, y416's alpha
/// without alpha, an odd width's last Y'1, the gaps between frames), runs
/// the pass on several frames of one buffer on lavapipe with the validation
/// layer on, and wants every digest to be b3sum's.
final class FrameHashPassTests: XCTestCase {
    private final class Device {
        let context: VulkanContext
        let kernels: KernelCache
        let recorder: CommandRecorder

        init() throws {
            context = try VulkanContext(options: .init(validation: true))
            kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
            recorder = try CommandRecorder(context: context, count: 1)
        }
    }

    // nonisolated(unsafe): made once by Swift's thread-safe static initialisation; the device's types lock themselves.
    nonisolated(unsafe) private static let device = Result { try Device() }

    /// Where the bindings start in their buffers: not at 0, as in a batch.
    private static let bindingOffset = 256
    private static let sentinel: UInt8 = 0xA5

    // MARK: - Fixtures through ffmpeg

    func testEveryGPUFixtureFrameHashesAsB3sumOfFFmpegsFrame() throws {
        let device = try Self.device.get()
        let clips = try FileManager.default.contentsOfDirectory(atPath: Repo.fixtures.path)
            .filter { $0.hasSuffix(".mov") || $0.hasSuffix(".mxf") || $0.hasSuffix(".prores") }.sorted()
        var hashed: [String] = []
        for clip in clips {
            let format = try openSampleSource(Repo.fixture(clip)).format
            if GPUProResDecoder.unsupportedReason(format) != nil { continue }
            let pixelFormat = try String(contentsOfFile: Repo.reference("\(clip).pixfmt"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(format.nativeFormat.name, pixelFormat, clip)
            let frameBytes = format.nativeFormat.tightByteCount(width: format.width, height: format.height)
            // ffmpeg 5.1 cannot read a raw ProRes stream; hq.prores is hq.mov's
            // packets (Fixtures/make-fixtures.sh checks it), so its frames are hq.mov's.
            let decoded = try ffmpegRawFrames(
                Repo.fixture(clip == "hq.prores" ? "hq.mov" : clip), pixelFormat: pixelFormat)
            XCTAssertEqual(decoded.count % frameBytes, 0, "\(clip): not whole frames")
            let frames = stride(from: 0, to: decoded.count, by: frameBytes).map {
                decoded.subdata(in: $0..<$0 + frameBytes)
            }
            XCTAssertGreaterThan(frames.count, 1, clip)
            let expected = try B3Sum.hexes(frames)
            let got = try gpuHashes(
                frames, format: format.nativeFormat, width: format.width, height: format.height, device: device)
            XCTAssertEqual(
                got.digests.map(\.hex), expected, "\(clip) (\(pixelFormat) \(format.width)x\(format.height))")
            hashed.append(clip)
        }
        // Every clip but 4:2:2 with alpha (none in Fixtures/ today).
        XCTAssertGreaterThanOrEqual(hashed.count, 20, "hashed only \(hashed)")
        XCTAssertNotNil(device.context.validation, "the validation layer is on")
        XCTAssertEqual(device.context.validation?.messages ?? [], [])
    }

    // MARK: - Synthetic sizes and formats

    struct Case {
        let format: PlanarFormat
        let width: Int, height: Int
        var frames = 3
        var what: String
    }

    static let c422x10 = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
    static let c444x12 = PlanarFormat(decoding: .c444, bitDepth: 12, alpha: false)
    static let c4444x12 = PlanarFormat(decoding: .c444, bitDepth: 12, alpha: true)

    /// 128 chunks (128 KiB) make one workgroup.
    static let cases: [Case] = [
        Case(format: c422x10, width: 1, height: 1, what: "one pixel"),
        Case(format: c4444x12, width: 1, height: 1, what: "one pixel with alpha"),
        Case(format: c422x10, width: 17, height: 9, what: "odd width and height"),
        Case(format: c444x12, width: 17, height: 9, what: "odd 4:4:4"),
        Case(format: c422x10, width: 16, height: 16, what: "one macroblock"),
        Case(format: c422x10, width: 256, height: 1, what: "exactly one chunk"),
        Case(format: c444x12, width: 171, height: 1, what: "one chunk and 2 bytes"),
        Case(format: c4444x12, width: 128, height: 128, what: "exactly one workgroup (128 chunks)"),
        Case(format: c4444x12, width: 256, height: 128, what: "exactly two workgroups (256 chunks)"),
        Case(format: c4444x12, width: 129, height: 128, what: "one workgroup and one chunk"),
        Case(format: c422x10, width: 187, height: 101, what: "the odd fixture's size, many rows a chunk"),
        Case(format: c422x10, width: 1001, height: 257, frames: 2, what: "many workgroups, odd width"),
        Case(format: c4444x12, width: 8192, height: 17, frames: 2, what: "8K rows"),
        Case(
            format: PlanarFormat(decoding: .c422, bitDepth: 12, alpha: false), width: 33, height: 5,
            what: "4:2:2 at 12 bits"),
        Case(
            format: PlanarFormat(decoding: .c444, bitDepth: 10, alpha: true), width: 35, height: 41,
            what: "4:4:4:4 at 10 bits"),
    ]

    func testSyntheticFramesHashAsB3sum() throws {
        let device = try Self.device.get()
        var random = KernelRandom(seed: 7)
        for test in Self.cases {
            let frames = (0..<test.frames).map { _ in
                randomPlanarFrame(test.format, width: test.width, height: test.height, &random)
            }
            let expected = try B3Sum.hexes(frames)
            let label = "\(test.what): \(test.format) \(test.width)x\(test.height)"
            let got = try gpuHashes(frames, format: test.format, width: test.width, height: test.height, device: device)
            XCTAssertEqual(got.digests.map(\.hex), expected, label)
            // The workgroups' CVs are the CPU's aligned subtrees; a frame of
            // one workgroup gets its digest straight from the shader.
            let chunks = BLAKE3.chunkCount(bytes: frames[0].count)
            let size = FrameHashKernel.groupChunks
            for (frame, results) in zip(frames, got.results) {
                frame.withUnsafeBytes { bytes in
                    if chunks <= size {
                        XCTAssertEqual(
                            results, [BLAKE3.hash(bytes).words], "\(label): the single workgroup's root output")
                    } else {
                        let cpu = stride(from: 0, to: chunks, by: size).map {
                            BLAKE3.chainingValue([bytes], chunks: $0..<min(chunks, $0 + size))
                        }
                        XCTAssertEqual(results, cpu, "\(label): workgroup CVs")
                    }
                }
            }
        }
        XCTAssertNotNil(device.context.validation, "the validation layer is on")
        XCTAssertEqual(device.context.validation?.messages ?? [], [])
    }

    /// The PACKED variant (`--format v216|y416 --framehash` on the GPU
    /// decoder): the digest is b3sum's of the packed surface's own bytes,
    /// junk included, for every size above.
    func testPackedMessageHashesAsB3sumOfTheSurface() throws {
        let device = try Self.device.get()
        var random = KernelRandom(seed: 11)
        for test in Self.cases {
            let frames = (0..<test.frames).map { _ in
                randomPlanarFrame(test.format, width: test.width, height: test.height, &random)
            }
            let got = try gpuHashes(
                frames, format: test.format, width: test.width, height: test.height, device: device, packedMessage: true
            )
            XCTAssertEqual(
                got.digests.map(\.hex), try B3Sum.hexes(got.packed),
                "\(test.what): \(test.format) \(test.width)x\(test.height)")
        }
        XCTAssertEqual(device.context.validation?.messages ?? [], [])
    }

    // MARK: - Packing and running

    /// Planar samples below 2^depth, each plane tight: a frame as `--format native` writes it.
    private func randomPlanarFrame(_ format: PlanarFormat, width: Int, height: Int, _ random: inout KernelRandom)
        -> Data
    {
        let samples = (0..<format.planeCount).reduce(0) { $0 + format.planeWidth($1, width: width) * height }
        let mask = UInt16((1 << format.bitDepth) - 1)
        var bytes = [UInt8](repeating: 0, count: 2 * samples)
        for i in 0..<samples {
            let sample = UInt16(truncatingIfNeeded: random.next()) & mask
            bytes[2 * i] = UInt8(sample & 0xFF)
            bytes[2 * i + 1] = UInt8(sample >> 8)
        }
        return Data(bytes)
    }

    /// `frame` in its native packed layout, as 16-bit words; where the
    /// planar frame has nothing (see the class comment), junk.
    private func pack(_ frame: Data, _ format: PlanarFormat, width: Int, height: Int, _ random: inout KernelRandom)
        -> [UInt16]
    {
        let layout = PackedLayout.native(for: format.chroma)
        let shift = UInt16(16 - format.bitDepth)
        var planeStarts: [Int] = []
        var start = 0
        for plane in 0..<format.planeCount {
            planeStarts.append(start)
            start += format.planeWidth(plane, width: width) * height
        }
        let planar: [UInt16] = frame.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { UInt16(raw[2 * $0]) | UInt16(raw[2 * $0 + 1]) << 8 }
        }
        func sample(_ plane: Int, _ row: Int, _ column: Int) -> UInt16 {
            planar[planeStarts[plane] + row * format.planeWidth(plane, width: width) + column]
        }
        func junk() -> UInt16 { UInt16(truncatingIfNeeded: random.next()) }
        // MSB-aligned, junk in the bits below the depth (a shift drops them).
        func word(_ plane: Int, _ row: Int, _ column: Int) -> UInt16 {
            sample(plane, row, column) << shift | junk() >> (16 - shift)
        }
        let wordsPerRow = layout.bytesPerRow(width: width) / 2
        var words = [UInt16](repeating: 0, count: wordsPerRow * height)
        for row in 0..<height {
            let out = row * wordsPerRow
            switch layout {
            case .y416:
                for x in 0..<width {
                    words[out + 4 * x] = format.hasAlpha ? word(3, row, x) : junk()
                    words[out + 4 * x + 1] = word(0, row, x)
                    words[out + 4 * x + 2] = word(1, row, x)
                    words[out + 4 * x + 3] = word(2, row, x)
                }
            case .v216:
                for pair in 0..<(width + 1) / 2 {
                    words[out + 4 * pair] = word(1, row, pair)
                    words[out + 4 * pair + 1] = word(0, row, 2 * pair)
                    words[out + 4 * pair + 2] = word(2, row, pair)
                    words[out + 4 * pair + 3] = 2 * pair + 1 < width ? word(0, row, 2 * pair + 1) : junk()
                }
            }
        }
        return words
    }

    /// Runs the pass once on all `frames` (tight planar), packed into one
    /// buffer at a surface stride that is a multiple of 4 only; returns each
    /// frame's digest and its raw results (the workgroups' CVs).
    private func gpuHashes(
        _ frames: [Data], format: PlanarFormat, width: Int, height: Int, device: Device,
        packedMessage: Bool = false
    ) throws -> (digests: [BLAKE3Digest], results: [[SIMD8<UInt32>]], packed: [Data]) {
        var random = KernelRandom(seed: UInt64(width * 7919 + height))
        let layout = PackedLayout.native(for: format.chroma)
        let surfaceBytes = layout.bytesPerRow(width: width) * height
        let surfaceStride = (surfaceBytes + 255) / 256 * 256 + 132
        let pass = try FrameHashPass(
            kernels: device.kernels, format: format, layout: layout, width: width, height: height, slots: 1,
            message: packedMessage ? PackedLayout.native(for: format.chroma) : nil)
        XCTAssertEqual(pass.resultBytesPerFrame % 16, 0)

        let offset = Self.bindingOffset
        let surfaceRange = (frames.count - 1) * surfaceStride + surfaceBytes
        let surfaces = try VulkanBuffer(
            device.context, size: offset + surfaceRange + 256, usage: .storage, memory: .host)
        let junk = random.bytes(surfaces.size)
        junk.withUnsafeBytes { surfaces.mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        var packedFrames: [Data] = []
        for (i, frame) in frames.enumerated() {
            let packed = pack(frame, format, width: width, height: height, &random)
            packed.withUnsafeBytes {
                (surfaces.mapped! + offset + i * surfaceStride).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            packedFrames.append(packed.withUnsafeBytes { Data($0) })
        }
        let resultRange = frames.count * pass.resultBytesPerFrame
        let results = try VulkanBuffer(device.context, size: offset + resultRange + 256, usage: .storage, memory: .host)
        results.mapped!.initializeMemory(as: UInt8.self, repeating: Self.sentinel, count: results.size)

        let cb = try device.recorder.begin(0)
        pass.record(
            cb, slot: 0, surfaces: BufferRange(surfaces, offset: offset, bytes: surfaceRange),
            surfaceStride: surfaceStride,
            frames: frames.count, results: BufferRange(results, offset: offset, bytes: resultRange))
        try device.recorder.wait(for: try device.recorder.submit(cb))

        let mapped = results.mapped!
        let outside =
            (0..<offset).map { mapped.load(fromByteOffset: $0, as: UInt8.self) }
            + (offset + resultRange..<results.size).map { mapped.load(fromByteOffset: $0, as: UInt8.self) }
        XCTAssertTrue(outside.allSatisfy { $0 == Self.sentinel }, "the pass wrote outside its results")
        let cvsPerFrame = pass.resultBytesPerFrame / 32
        return (
            frames.indices.map { pass.digest(results: mapped + offset + $0 * pass.resultBytesPerFrame) },
            frames.indices.map { i in
                (0..<cvsPerFrame).map { cv in
                    var words = SIMD8<UInt32>()
                    for w in 0..<8 {
                        words[w] = mapped.load(
                            fromByteOffset: offset + i * pass.resultBytesPerFrame + 32 * cv + 4 * w, as: UInt32.self)
                    }
                    return words
                }
            }, packedFrames
        )
    }
}

/// A clip decoded by the ffmpeg CLI to raw frames of `pixelFormat`: the
/// independent path to the planar frames.
func ffmpegRawFrames(_ path: String, pixelFormat: String) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = [
        "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-",
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "ffmpeg could not decode \(path)")
    return data
}
