import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

/// The GPU decoder's device memory: batches share two coefficient sets and,
/// when no frame leaves the decoder, one set of surfaces, whatever the slot
/// count; frames handed out on the device keep surfaces of their own.
/// Every run is checked by the validation layer, its synchronisation
/// checks on (hazards within a command buffer, where a held transform sits
/// beside the next batch's entropy pass), and against independent
/// references: the python packer's md5 of each packed frame and `b3sum` of
/// FFmpeg's planar frames, so a batch reading another's coefficients or
/// surfaces shows as wrong bytes.
final class DecoderMemoryTests: XCTestCase {
    private static let compiler = Result { try ShaderCompiler(cacheDirectory: nil) }
    private static let clip = "hq.mov"
    private static let framesPerBatch = 2
    private static let frames = 14

    private struct Run {
        var packedMD5s: [String] = []
        var blake3s: [String] = []
        var peakDeviceBytes = 0
        var validationMessages: [String] = []
    }

    /// Decodes the clip, looped to `frames`, on a context of its own (so its
    /// memory ledger counts this session alone), reading every frame back
    /// and hashing it on the device.
    private func decode(
        slots: Int, overlap: Bool, deviceSurfaces: Bool = false,
        keep: ((DecodedFrame) -> Void)? = nil
    ) throws -> Run {
        let (format, samples) = try fixtureSamples(Self.clip)
        let context = try VulkanContext(options: .init(validation: true, synchronizationValidation: true))
        var run = Run()
        let session = try GPUDecodeSession(
            format: format, context: context, kernels: KernelCache(context: context, compiler: try Self.compiler.get()),
            configuration: .init(
                framesPerBatch: Self.framesPerBatch, slots: slots, readback: true, deviceSurfaces: deviceSurfaces,
                analysis: AnalysisRequest(hash: true, statistics: nil), overlapTransforms: overlap)
        ) { frame in
            XCTAssertEqual(frame.status, .ok)
            run.packedMD5s.append(MD5.hex(of: frame.pixelBuffer!.visibleSpans()))
            run.blake3s.append(frame.analysis?.digest?.hex ?? "none")
            keep?(frame)
        }
        for i in 0..<Self.frames { try session.decode(samples[i % samples.count].renumbered(as: i)) }
        try session.finish()
        run.peakDeviceBytes = context.memory.peak.device
        run.validationMessages = context.validation?.messages ?? []
        return run
    }

    private func references() throws -> (packed: [String], blake3: [String]) {
        let packed = try packedReferenceMD5s(Self.clip, layout: "v216")
        let blake3 = try ffmpegFrameBLAKE3s(Self.clip)
        return (
            (0..<Self.frames).map { packed[$0 % packed.count] }, (0..<Self.frames).map { blake3[$0 % blake3.count] }
        )
    }

    /// One v216 surface batch of the clip: the test's own arithmetic (4 bytes a pixel).
    private func surfaceBatchBytes() throws -> Int {
        let (format, _) = try fixtureSamples(Self.clip)
        return Self.framesPerBatch * format.width * format.height * 4
    }

    func testSlotsShareCoefficientsAndSurfaces() throws {
        let expected = try references()
        var peaks: [Int: Int] = [:]
        for slots in [2, 4] {
            for overlap in [true, false] {
                let run = try decode(slots: slots, overlap: overlap)
                XCTAssertEqual(run.packedMD5s, expected.packed, "slots \(slots) overlap \(overlap)")
                XCTAssertEqual(run.blake3s, expected.blake3, "slots \(slots) overlap \(overlap)")
                XCTAssertEqual(run.validationMessages, [], "slots \(slots) overlap \(overlap)")
                peaks[slots] = run.peakDeviceBytes
            }
        }
        // Two more slots add only their small per-slot buffers (status flags
        // and the bitstream where the device has its own copy), not a
        // coefficient set and a surface batch each (together over twice a
        // surface batch).
        let growth = peaks[4]! - peaks[2]!
        XCTAssertLessThan(
            growth, try surfaceBatchBytes() / 2, "device memory with 2 slots \(peaks[2]!), with 4 \(peaks[4]!)")
    }

    /// Frames handed out on the device are never overwritten while held:
    /// holding every frame makes each batch take surfaces of its own.
    func testHeldDeviceSurfacesAreNotShared() throws {
        var held: [DeviceSurface] = []
        let run = try decode(slots: 2, overlap: true, deviceSurfaces: true) { frame in
            held.append(frame.deviceSurface as! DeviceSurface)
        }
        let expected = try references()
        XCTAssertEqual(run.packedMD5s, expected.packed)
        XCTAssertEqual(run.blake3s, expected.blake3)
        XCTAssertEqual(run.validationMessages, [])
        let places = Set(held.map { "\(ObjectIdentifier($0.buffer)) \($0.offset)" })
        XCTAssertEqual(places.count, Self.frames, "two held frames share a surface")
        let batches = (Self.frames + Self.framesPerBatch - 1) / Self.framesPerBatch
        XCTAssertGreaterThanOrEqual(run.peakDeviceBytes, batches * (try surfaceBatchBytes()))
    }
}

/// `roofline`'s allocation timings: every shape measured twice, and the
/// context's ledger back where it started once they are freed (it counts
/// each allocation, dedicated or not, and its release).
final class AllocationTimingsTests: XCTestCase {
    func testEveryShapeIsTimedAndGivenBack() throws {
        let context = try VulkanContext()
        let before = context.memory.current
        let rows = try AllocationTimings.measure(context: context)
        XCTAssertEqual(rows.count, 12)
        XCTAssertEqual(Set(rows.map(\.label)).count, 6)
        for row in rows {
            XCTAssertEqual(row.bytes, context.sharesHostMemory ? 64 << 20 : 1 << 30, row.label)
            XCTAssertGreaterThan(row.allocateMilliseconds, 0, row.label)
            XCTAssertGreaterThanOrEqual(row.freeMilliseconds, 0, row.label)
        }
        XCTAssertEqual(context.memory.current, before)
        XCTAssertGreaterThanOrEqual(context.memory.peak.device - before.device, 64 << 20)
        XCTAssertGreaterThanOrEqual(context.memory.peak.host - before.host, 64 << 20)
    }
}
