import CFFmpeg
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Our Vulkan ProRes decoder against FFmpeg's software decoder (the CPU
/// path), on lavapipe with the validation layer on: every byte of every
/// frame must match.
final class GPUDecoderTests: XCTestCase {
    private static let context = Result { try VulkanContext(options: .init(validation: true)) }
    private static let compiler = Result { try ShaderCompiler(cacheDirectory: nil) }

    static let fixtures = [
        "proxy.mov", "lt.mov", "422.mov", "hq.mov", "4444.mov", "4444xq.mov", "4444-alpha8.mov",
        "4444-noalpha.mov", "aw-hq.mov", "slices1.mov", "interlaced-tff.mov", "interlaced-bff.mov",
        "odd-size.mov", "odd-size-444.mov", "hq.mxf", "pq.mov", "hlg.mov", "p3.mov", "bt709.mov",
    ]

    /// Each frame's native packed bytes (v216 or y416) from the CPU decoder.
    private func cpuFrames(_ path: String) throws -> [(FrameStatus, [UInt8])] {
        let source = try openSampleSource(path)
        var frames: [(FrameStatus, [UInt8])] = []
        let layout = source.format.nativePackedLayout
        let session = try FFmpegDecodeSession(format: source.format, configuration: .init(threads: 2)) { frame in
            guard let surface = frame.pixelBuffer else { return frames.append((frame.status, [])) }
            let packed = try PixelBufferPool(
                layout: .packed(layout, width: surface.layout.width, height: surface.layout.height)
            ).makeBuffer()
            FramePacker.pack(surface, into: packed)
            frames.append((frame.status, packed.visibleSpans().flatMap { Array($0) }))
        }
        while let sample = try source.nextSample() { try session.decode(sample) }
        try session.finish()
        return frames
    }

    private func gpuFrames(
        _ path: String, framesPerBatch: Int? = nil, upload: UploadPath? = nil, overlap: Bool = false,
        uploads: ((path: UploadPath, inPlace: Int, staged: Int)) -> Void = { _ in },
        held: (Int) -> Void = { _ in }
    ) throws -> [(FrameStatus, [UInt8])] {
        let source = try openSampleSource(path)
        var frames: [(FrameStatus, [UInt8])] = []
        let context = try Self.context.get()
        let session = try GPUDecodeSession(
            format: source.format, context: context,
            kernels: KernelCache(context: context, compiler: try Self.compiler.get()),
            configuration: .init(
                framesPerBatch: framesPerBatch, upload: upload,
                overlapTransforms: overlap)
        ) { frame in
            frames.append((frame.status, frame.pixelBuffer.map { $0.visibleSpans().flatMap { Array($0) } } ?? []))
        }
        while let sample = try source.nextSample() { try session.decode(sample) }
        try session.finish()
        uploads(session.uploads)
        held(session.heldTransforms)
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
                let cpu = Int(a[2 * i]) | Int(a[2 * i + 1]) << 8
                let gpu = Int(b[2 * i]) | Int(b[2 * i + 1]) << 8
                first =
                    "word \(i) (row \(i * 2 / (width * unitBytes)), byte \(i * 2 % (width * unitBytes))): cpu \(cpu) gpu \(gpu)"
            }
        }
        return "\(count) of \(words) samples differ; first at \(first ?? "-")"
    }

    /// Decodes `path` with both decoders and fails on any byte that differs.
    private func assertBitExact(
        _ path: String, framesPerBatch: Int? = nil, upload: UploadPath? = nil, overlap: Bool = false,
        uploads: ((path: UploadPath, inPlace: Int, staged: Int)) -> Void = { _ in },
        held: (Int) -> Void = { _ in }, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let cpu = try cpuFrames(path)
        let gpu = try gpuFrames(
            path, framesPerBatch: framesPerBatch, upload: upload, overlap: overlap, uploads: uploads, held: held)
        XCTAssertEqual(cpu.count, gpu.count, name, file: file, line: line)
        XCTAssertGreaterThan(cpu.count, 0, name, file: file, line: line)
        let format = try openSampleSource(path).format
        let unit = format.nativePackedLayout == .y416 ? 8 : 4
        for (i, (c, g)) in zip(cpu, gpu).enumerated() {
            XCTAssertEqual(c.0, g.0, "\(name) frame \(i) status", file: file, line: line)
            if c.1 != g.1 {
                XCTFail(
                    "\(name) frame \(i): \(firstDifference(c.1, g.1, width: format.width, unitBytes: unit))",
                    file: file, line: line)
            }
        }
    }

    func testEveryFixtureDecodesBitExactly() throws {
        for clip in Self.fixtures { try assertBitExact(Repo.fixture(clip)) }
        XCTAssertEqual(try Self.context.get().validation?.messages ?? [], [])
    }

    /// Batches of one frame and of two (a partial last batch) take other
    /// offsets through the tables than the default batch of up to 16.
    func testBatchSizesDoNotChangeTheOutput() throws {
        for batch in [1, 2] { try assertBitExact(Repo.fixture("4444.mov"), framesPerBatch: batch) }
    }

    /// A discrete GPU's two upload paths, run on lavapipe (which would read
    /// the staging memory in place): every frame staged by the CPU, and
    /// every frame of a MOV file DMA'd from the reader's imported blocks;
    /// MXF goes through libavformat's packets, so its frames are staged.
    func testUploadPathsDecodeTheSame() throws {
        try XCTSkipUnless(try Self.context.get().info.hostMemoryImport, "the device cannot import host memory")
        for clip in ["hq.mov", "4444-alpha8.mov", "interlaced-bff.mov", "odd-size.mov", "hq.mxf"] {
            let frames = try openSampleSource(Repo.fixture(clip)).format.frameCount ?? 0
            try assertBitExact(Repo.fixture(clip), upload: .copy) { uploads in
                XCTAssertEqual(uploads.path, .copy, clip)
                XCTAssertEqual(uploads.inPlace, 0, clip)
            }
            try assertBitExact(Repo.fixture(clip), framesPerBatch: 2, upload: .fromSampleMemory) { uploads in
                XCTAssertEqual(uploads.path, .fromSampleMemory, clip)
                XCTAssertGreaterThan(uploads.inPlace + uploads.staged, 0, clip)
                if clip.hasSuffix(".mov") {
                    XCTAssertEqual(uploads.staged, 0, clip)
                    XCTAssertEqual(uploads.inPlace, frames, clip)
                } else {
                    XCTAssertEqual(uploads.inPlace, 0, clip)
                }
            }
        }
        XCTAssertEqual(try Self.context.get().validation?.messages ?? [], [])
    }

    /// A device imports each sample-memory region once, when it is first
    /// used, and its decoders share the imports (`check` makes a decoder a
    /// kind of file).
    func testADevicesDecodersShareItsRegionImports() throws {
        let context = try Self.context.get()
        try XCTSkipUnless(
            context.info.hostMemoryImport && context.minImportedHostPointerAlignment > 0,
            "the device cannot import host memory")
        let device = try GPUDevice(context: context)
        let block = try XCTUnwrap(SampleMemory.shared.allocate(bytes: 7_654_321))
        let region = try XCTUnwrap(SampleMemory.shared.region(containing: block.pointer))
        XCTAssertFalse(device.regionImports.hasImported(region))
        let buffer = try XCTUnwrap(device.regionImports.buffer(for: region))
        XCTAssertEqual(buffer.size, region.size)
        XCTAssertTrue(device.regionImports.buffer(for: region) === buffer, "imported once")
        var configuration = GPUDecodeSession.Configuration(framesPerBatch: 2)
        configuration.upload = .fromSampleMemory
        for clip in ["hq.mov", "4444.mov"] {
            let format = try openSampleSource(Repo.fixture(clip)).format
            let lane = try GPUDecodeLane(format: format, device: device, configuration: configuration)
            XCTAssertTrue(lane.decoder.regionImports === device.regionImports, clip)
            lane.close()
        }
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    /// Transforms held for the next batch's command buffer
    /// (`overlapTransforms`): every frame the same, in order, with both
    /// upload paths; and some transforms were indeed held (one-frame
    /// batches keep a parsed batch waiting nearly always).
    func testOverlappedTransformsDecodeTheSame() throws {
        var held = 0
        for clip in ["hq.mov", "4444-alpha8.mov", "interlaced-bff.mov", "odd-size-444.mov", "hq.mxf"] {
            try assertBitExact(Repo.fixture(clip), framesPerBatch: 1, overlap: true, held: { held += $0 })
            try assertBitExact(
                Repo.fixture(clip), framesPerBatch: 2, upload: .fromSampleMemory, overlap: true, held: { held += $0 })
        }
        XCTAssertGreaterThan(held, 0, "no transform was held: the overlapped path did not run")
        XCTAssertEqual(try Self.context.get().validation?.messages ?? [], [])
    }

    /// The encoder-variant matrix of scripts/prores-variants.sh (prores_ks
    /// and prores_aw: every profile, slice width, quantisation matrix, alpha
    /// depth, field order, odd sizes, extreme bit rates), made by the ffmpeg CLI.
    func testEveryEncoderVariantDecodesBitExactly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prores-variants-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/bin/bash")
        script.arguments = [Repo.root.appendingPathComponent("scripts/prores-variants.sh").path, directory.path]
        let names = Pipe()
        script.standardOutput = names
        try script.run()
        let listing = String(decoding: names.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        XCTAssertEqual(script.terminationStatus, 0, "scripts/prores-variants.sh failed")
        let clips = listing.split(separator: "\n").map(String.init)
        XCTAssertGreaterThanOrEqual(clips.count, 37)
        for clip in clips { try assertBitExact(directory.appendingPathComponent(clip).path) }
        XCTAssertEqual(try Self.context.get().validation?.messages ?? [], [])
    }
}

/// Damaged input: the GPU decoder must neither crash nor hang nor read out
/// of bounds (the validation layer and the CPU-side checks), and it must
/// report each damaged frame as the CPU path does, with the same pixels:
/// FFmpeg's concealment (untouched slices filled with black) is reproduced.
final class GPUDecoderDamageTests: XCTestCase {
    private struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 17
        }
    }

    private func packet(_ bytes: [UInt8], index: Int, format: FormatDescription) -> CompressedSample {
        let packet = av_packet_alloc()!
        av_new_packet(packet, Int32(bytes.count))
        bytes.withUnsafeBytes {
            packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count)
        }
        return CompressedSample(packet: packet, index: index, format: format, readStart: 0, demuxNanoseconds: 0)
    }

    private func decode(_ frames: [[UInt8]], format: FormatDescription, gpu context: VulkanContext?) throws -> [(
        FrameStatus, [UInt8]
    )] {
        var out: [(FrameStatus, [UInt8])] = []
        let layout = format.nativePackedLayout
        let handler: FFmpegDecodeSession.OutputHandler = { frame in
            guard let surface = frame.pixelBuffer else { return out.append((frame.status, [])) }
            if case .packed = surface.layout.content {
                return out.append((frame.status, surface.visibleSpans().flatMap { Array($0) }))
            }
            let packed = try PixelBufferPool(
                layout: .packed(layout, width: surface.layout.width, height: surface.layout.height)
            ).makeBuffer()
            FramePacker.pack(surface, into: packed)
            out.append((frame.status, packed.visibleSpans().flatMap { Array($0) }))
        }
        let session: FrameDecoding =
            try context.map {
                try GPUDecodeSession(
                    format: format, context: $0,
                    kernels: KernelCache(context: $0, compiler: try ShaderCompiler(cacheDirectory: nil)),
                    outputHandler: handler)
            } ?? FFmpegDecodeSession(format: format, configuration: .init(threads: 1), outputHandler: handler)
        for (i, bytes) in frames.enumerated() { try session.decode(packet(bytes, index: i, format: format)) }
        try session.finish()
        return out
    }

    private func kind(_ status: FrameStatus) -> String {
        switch status {
        case .ok: return "ok"
        case .damaged: return "damaged"
        case .failed: return "failed"
        }
    }

    /// Decodes `damaged` with FFmpeg (the reference) and with the GPU
    /// decoder: the same status and the same pixels, frame by frame.
    private func assertGPUMatchesCPU(
        _ damaged: [[UInt8]], format: FormatDescription, context: VulkanContext, clip: String,
        statuses: inout [String: Int]
    ) throws {
        let cpu = try decode(damaged, format: format, gpu: nil)
        let gpu = try decode(damaged, format: format, gpu: context)
        XCTAssertEqual(cpu.count, damaged.count, clip)
        XCTAssertEqual(gpu.count, damaged.count, clip)
        for (i, (c, g)) in zip(cpu, gpu).enumerated() {
            statuses[kind(c.0), default: 0] += 1
            XCTAssertEqual(kind(c.0), kind(g.0), "\(clip) damaged frame \(i): cpu \(c.0), gpu \(g.0)")
            XCTAssert(c.1 == g.1, "\(clip) damaged frame \(i) (\(c.0)): the pixels differ")
        }
    }

    /// Every frame of `clip`, each slice damaged by `damage`, which gets the
    /// frame's bytes, the slice's index and where its components (Y', Cb,
    /// Cr, alpha) lie in those bytes, from the slice index.
    private func damagingEverySlice(
        of clip: String,
        _ damage: (inout [UInt8], _ slice: Int, _ components: [Range<Int>]) -> Void
    ) throws
        -> (frames: [[UInt8]], format: FormatDescription)
    {
        let source = try openSampleSource(Repo.fixture(clip))
        let geometry = SliceTable.Geometry(
            width: source.format.width, height: source.format.height, chroma: source.format.chroma)
        var frames: [[UInt8]] = []
        while let sample = try source.nextSample() {
            var bytes = Array(sample.bytes)
            let table = try bytes.withUnsafeBytes { try SliceTable(frame: $0, geometry: geometry) }
            for slice in 0..<table.sliceCount {
                let entry = Array(table.slices[slice * SliceTable.sliceWords..<(slice + 1) * SliceTable.sliceWords])
                let sizes = [Int(entry[2] & 0xFFFF), Int(entry[2] >> 16), Int(entry[3] & 0xFFFF), Int(entry[3] >> 16)]
                var start = Int(entry[0]) + Int(entry[1] & 0xFF)
                let components = sizes.map { size in
                    defer { start += size }
                    return start..<start + size
                }
                damage(&bytes, slice, components)
            }
            frames.append(bytes)
        }
        return (frames, source.format)
    }

    func testBitFlippedFramesMatchTheCPUPath() throws {
        let context = try VulkanContext(options: .init(validation: true))
        var random = Generator(state: 0x5EED)
        var statuses: [String: Int] = [:]
        for clip in ["hq.mov", "4444.mov", "interlaced-bff.mov", "odd-size-444.mov", "slices1.mov"] {
            let source = try openSampleSource(Repo.fixture(clip))
            var originals: [[UInt8]] = []
            while let sample = try source.nextSample() { originals.append(Array(sample.bytes)) }
            var damaged: [[UInt8]] = []
            for i in 0..<40 {
                var bytes = originals[i % originals.count]
                // Mostly slice data; now and then the headers too.
                let from = i % 8 == 0 ? 8 : 200
                for _ in 0..<(1 + Int(random.next() % 6)) {
                    let bit = from * 8 + Int(random.next() % UInt64((bytes.count - from) * 8))
                    bytes[bit / 8] ^= UInt8(1 << (bit % 8))
                }
                if i % 13 == 5 { bytes.removeLast(Int(random.next() % UInt64(bytes.count / 2))) }  // truncated
                damaged.append(bytes)
            }
            try assertGPUMatchesCPU(damaged, format: source.format, context: context, clip: clip, statuses: &statuses)
        }
        XCTAssertEqual(context.validation?.messages ?? [], [])
        print("damage corpus statuses: \(statuses.sorted { $0.key < $1.key })")
        // The corpus must really exercise damage, not only clean frames.
        XCTAssertGreaterThan(statuses["damaged", default: 0], 20, "\(statuses)")
        XCTAssertGreaterThan(statuses["failed", default: 0], 3, "\(statuses)")
    }

    /// A component whose declared size ends inside its codewords (the next
    /// component's grows by as much, so the slice stays whole): the reader
    /// reaches its limit (the size + 8 bits) part-way through a run, a level
    /// or a sign, 1 to 6 bytes before the coded data ends, where the entropy
    /// pass leaves its joined run-and-level read for one read at a time.
    /// The reference is FFmpeg's decode of the same bytes; the cuts must
    /// change the pictures, or the test proves nothing.
    func testComponentsCutInsideTheirCodewordsMatchTheCPUPath() throws {
        let context = try VulkanContext(options: .init(validation: true))
        var statuses: [String: Int] = [:]
        var changed = 0
        var frames = 0
        for clip in ["hq.mov", "4444.mov", "4444-alpha8.mov", "interlaced-bff.mov", "proxy.mov"] {
            var cuts = 0
            let (damaged, format) = try damagingEverySlice(of: clip) { bytes, slice, components in
                // Y' into Cb, or Cb into Cr: the slice header holds both sizes.
                let first = slice % 2
                let cut = 1 + slice % 6
                // Cr's size is in the header only where it is 8 bytes or more.
                guard components[first].count > cut + 4, let header = Self.sliceHeader(bytes, components: components),
                    first == 0 || bytes[header] >> 3 > 7
                else { return }
                let at = header + 2 + 2 * first
                Self.writeSize(&bytes, at: at, components[first].count - cut)
                Self.writeSize(&bytes, at: at + 2, components[first + 1].count + cut)
                cuts += 1
            }
            XCTAssertGreaterThan(cuts, 0, "\(clip): no slice was cut")
            try assertGPUMatchesCPU(damaged, format: format, context: context, clip: clip, statuses: &statuses)
            let clean = try damagingEverySlice(of: clip) { _, _, _ in }.frames
            changed += zip(clean, damaged).filter { $0 != $1 }.count
            frames += damaged.count
        }
        XCTAssertEqual(changed, frames, "every frame had a slice cut")
        XCTAssertEqual(context.validation?.messages ?? [], [])
        print("cut-component statuses: \(statuses.sorted { $0.key < $1.key })")
    }

    /// Where the slice header of the slice whose components are
    /// `components` starts: the byte before the first component whose
    /// header size (its top 5 bits) reaches it and whose size fields say
    /// the Y' and Cb sizes. Nil where none fits (the slice is then left alone).
    static func sliceHeader(_ bytes: [UInt8], components: [Range<Int>]) -> Int? {
        for size in 6...15 {
            let start = components[0].lowerBound - size
            guard start >= 0, Int(bytes[start] >> 3) == size else { continue }
            let luma = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
            let cb = Int(bytes[start + 4]) << 8 | Int(bytes[start + 5])
            if luma == components[0].count && cb == components[1].count { return start }
        }
        return nil
    }

    static func writeSize(_ bytes: inout [UInt8], at index: Int, _ value: Int) {
        bytes[index] = UInt8(value >> 8)
        bytes[index + 1] = UInt8(value & 0xFF)
    }

    /// Damage in the last bytes of each component, where FFmpeg's reader
    /// decides that the data has ended: on its 32-bit cache as the previous
    /// coefficient left it, which the GPU reader must reproduce, not on the
    /// bytes themselves. Every slice of every frame gets one flipped bit in
    /// the last 4 bytes of one of its components (the slice positions come
    /// from the slice index; the reference is FFmpeg's decode).
    func testFlipsAtComponentEndsMatchTheCPUPath() throws {
        let context = try VulkanContext(options: .init(validation: true))
        var random = Generator(state: 0x7A11)
        var statuses: [String: Int] = [:]
        for clip in ["hq.mov", "4444.mov", "interlaced-tff.mov", "slices1.mov", "proxy.mov"] {
            let (damaged, format) = try damagingEverySlice(of: clip) { bytes, slice, components in
                let component = Int(random.next() % 3)
                guard components[component].count >= 4 else { return }
                let end = components[component].upperBound
                if slice % 2 == 0 {
                    let bit = (end - 4) * 8 + Int(random.next() % 32)
                    bytes[bit / 8] ^= UInt8(1 << (bit % 8))
                } else {
                    // Zeros, then a last 1 bit: data that has ended for FFmpeg's cache but not for a plain reader.
                    bytes.replaceSubrange(end - 4..<end, with: [0, 0, 0, 1])
                }
            }
            try assertGPUMatchesCPU(damaged, format: format, context: context, clip: clip, statuses: &statuses)
        }
        XCTAssertEqual(context.validation?.messages ?? [], [])
        print("component-end damage statuses: \(statuses.sorted { $0.key < $1.key })")
    }

    /// Damage in the alpha component (8- and 16-bit alpha), where the GPU
    /// reader takes a sample's flag, difference and continuation bit, or a
    /// run's length, in one read: at its end (where FFmpeg stops reading
    /// continuation bits and a combined read must not pass the end), in its
    /// middle, and both. The reference is FFmpeg's decode.
    func testFlipsInAlphaMatchTheCPUPath() throws {
        let context = try VulkanContext(options: .init(validation: true))
        var random = Generator(state: 0xA1FA)
        var statuses: [String: Int] = [:]
        var flipped = 0
        for clip in ["4444.mov", "4444-alpha8.mov", "4444xq.mov", "odd-size-444.mov"] {
            let (damaged, format) = try damagingEverySlice(of: clip) { bytes, slice, components in
                let alpha = components[3]
                guard alpha.count >= 8 else { return }
                let bits: [Int]
                switch slice % 3 {
                case 0: bits = [(alpha.upperBound - 4) * 8 + Int(random.next() % 32)]
                case 1: bits = [alpha.lowerBound * 8 + Int(random.next() % UInt64(alpha.count * 8))]
                default:
                    bits = [
                        (alpha.upperBound - 3) * 8 + Int(random.next() % 24),
                        alpha.lowerBound * 8 + Int(random.next() % UInt64(alpha.count * 8)),
                    ]
                }
                for bit in bits { bytes[bit / 8] ^= UInt8(1 << (bit % 8)) }
                flipped += 1
            }
            try assertGPUMatchesCPU(damaged, format: format, context: context, clip: clip, statuses: &statuses)
        }
        XCTAssertEqual(context.validation?.messages ?? [], [])
        XCTAssertGreaterThan(flipped, 100, "the clips must have alpha to damage")
        print("alpha damage statuses: \(statuses.sorted { $0.key < $1.key }), \(flipped) slices damaged")
    }
}

/// The GPU session keeps the CPU session's contract: in order, bounded
/// memory under a slow consumer, a handler's error ends it.
final class GPUDecodeSessionTests: XCTestCase {
    func testFramesComeOutInOrderWithSurfacesRecycled() throws {
        let (format, samples) = try fixtureSamples("hq.mov")
        let context = try VulkanContext(options: .init(validation: true))
        // The independent python packer's v216 of ffmpeg's frames (Fixtures/ref).
        let expected = try packedReferenceMD5s("hq.mov", layout: "v216")
        XCTAssertEqual(expected.count, samples.count)

        let total = 120
        var seen: [(Int, String)] = []
        let session = try GPUDecodeSession(
            format: format, context: context,
            kernels: KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil)),
            configuration: .init(framesPerBatch: 4)
        ) { frame in
            XCTAssertEqual(frame.status, .ok)
            seen.append((frame.index, MD5.hex(of: frame.pixelBuffer!.visibleSpans())))
            usleep(1000)  // a slow consumer must throttle the decoder, not grow memory
        }
        for i in 0..<total { try session.decode(samples[i % samples.count].renumbered(as: i)) }
        try session.finish()
        XCTAssertEqual(seen.map(\.0), Array(0..<total))
        XCTAssertEqual(seen.map(\.1), (0..<total).map { expected[$0 % expected.count] })
        let stats = session.poolStatistics
        XCTAssertEqual(stats.vended, total)
        // In flight at most: every slot's 4 frames, the output queue (4 + 2) and the handler's frame.
        let slots = GPUDecodeSession.Configuration().slots
        XCTAssertLessThanOrEqual(stats.allocated, slots * 4 + 6 + 1, "host surfaces must be recycled: \(stats)")
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    /// Buffers allocated up front (`expectedFrameBytes`) give the same
    /// frames, whether the estimate was generous or too small (the staging
    /// buffer then grows as without one).
    func testReservedBuffersDecodeTheSame() throws {
        let (format, samples) = try fixtureSamples("4444.mov")
        let context = try VulkanContext(options: .init(validation: true))
        var results: [[String]] = []
        for expected in [nil, 1, 8 << 20] as [Int?] {
            var digests: [String] = []
            let session = try GPUDecodeSession(
                format: format, context: context,
                kernels: KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil)),
                configuration: .init(framesPerBatch: 2, expectedFrameBytes: expected)
            ) { frame in
                XCTAssertEqual(frame.status, .ok)
                digests.append(MD5.hex(of: frame.pixelBuffer!.visibleSpans()))
            }
            for i in 0..<10 { try session.decode(samples[i % samples.count].renumbered(as: i)) }
            try session.finish()
            results.append(digests)
        }
        XCTAssertEqual(results[0].count, 10)
        XCTAssertEqual(results[1], results[0])
        XCTAssertEqual(results[2], results[0])
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    func testHandlerErrorStopsTheSession() throws {
        struct Stop: Error {}
        let (format, samples) = try fixtureSamples("4444.mov")
        let context = try VulkanContext()
        var calls = 0
        let session = try GPUDecodeSession(
            format: format, context: context,
            kernels: KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil)),
            configuration: .init(framesPerBatch: 1)
        ) { _ in
            calls += 1
            throw Stop()
        }
        var thrown: Error?
        do {
            for i in 0..<50 { try session.decode(samples[i % samples.count].renumbered(as: i)) }
            try session.finish()
        } catch {
            thrown = error
        }
        XCTAssertTrue(thrown is Stop, "\(String(describing: thrown))")
        XCTAssertEqual(calls, 1, "no frame may reach the handler after it threw")
    }
}
