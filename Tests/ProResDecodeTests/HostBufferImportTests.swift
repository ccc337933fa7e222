@testable import ProResCore
@testable import ProResFFmpeg
@testable import GPUKit
@testable import ProResGPU
import XCTest

/// Host-visible buffers as memory of our own the device imports
/// (`VulkanContext.Options.importedHostBuffers`), the default on a discrete
/// GPU. Lavapipe imports host memory too, so these force it there: the bytes
/// the host writes reach the GPU and the GPU's writes come back, and a whole
/// decode with its staging and read-back in imported memory equals the
/// independent references (the python packer's md5s, `b3sum` of FFmpeg's
/// frames).
final class HostBufferImportTests: XCTestCase {
    private func context(imported: Bool) throws -> VulkanContext {
        var options = VulkanContext.Options(validation: true)
        options.importedHostBuffers = imported
        return try VulkanContext(options: options)
    }

    func testHostBuffersAreImportedOnlyWhenAskedAndCarryBytesBothWays() throws {
        let context = try context(imported: true)
        try XCTSkipUnless(context.minImportedHostPointerAlignment > 0, "the device does not import host memory")
        XCTAssertTrue(context.importsHostBuffers)
        let bytes = 3 * 4096 + 100  // not a multiple of the import alignment
        let upload = try VulkanBuffer(context, size: bytes, usage: .transferSource, memory: .host)
        let onDevice = try VulkanBuffer(context, size: bytes, usage: [.transferSource, .transferDestination], memory: .device)
        let back = try VulkanBuffer(context, size: bytes, usage: .transferDestination, memory: .hostReadback)
        XCTAssertTrue(upload.isImportedHostMemory)
        XCTAssertTrue(back.isImportedHostMemory)
        XCTAssertFalse(onDevice.isImportedHostMemory)
        XCTAssertGreaterThanOrEqual(upload.size, bytes)
        XCTAssertEqual(upload.size % context.minImportedHostPointerAlignment, 0)

        let pattern = (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        try XCTUnwrap(upload.mapped).copyMemory(from: pattern, byteCount: bytes)
        let recorder = try CommandRecorder(context: context, count: 1)
        let commands = try recorder.begin(0)
        commands.copy(upload, to: onDevice, bytes: bytes)
        commands.copy(onDevice, to: back, bytes: bytes)
        try recorder.wait(for: try recorder.submit(commands))
        let returned = Array(UnsafeRawBufferPointer(start: try XCTUnwrap(back.mapped), count: bytes))
        XCTAssertTrue(returned == pattern, "first wrong byte at \(returned.indices.first { returned[$0] != pattern[$0] } ?? -1)")
        XCTAssertEqual(context.validation?.messages ?? [], [])

        let plain = try self.context(imported: false)
        XCTAssertFalse(plain.importsHostBuffers)
        XCTAssertFalse(try VulkanBuffer(plain, size: bytes, usage: .transferSource, memory: .host).isImportedHostMemory)
    }

    func testADecodeStagedAndReadBackThroughImportedMemoryEqualsTheReferences() throws {
        let clip = "hq.mov", frames = 10
        let (format, samples) = try fixtureSamples(clip)
        let context = try context(imported: true)
        try XCTSkipUnless(context.importsHostBuffers, "the device does not import host memory")
        var packed: [String] = [], blake3: [String] = []
        let session = try GPUDecodeSession(
            format: format, context: context, kernels: KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil)),
            configuration: .init(framesPerBatch: 4, slots: 2, readback: true, analysis: AnalysisRequest(hash: true, statistics: nil))) { frame in
            XCTAssertEqual(frame.status, .ok)
            packed.append(MD5.hex(of: frame.pixelBuffer!.visibleSpans()))
            blake3.append(frame.analysis?.digest?.hex ?? "none")
        }
        // Frames from plain memory, not the sample pool, so the decoder stages them in its (imported) staging buffers.
        for i in 0..<frames { try session.decode(samples[i % samples.count].renumbered(as: i)) }
        try session.finish()
        let expectedPacked = try packedReferenceMD5s(clip, layout: "v216"), expectedBLAKE3 = try ffmpegFrameBLAKE3s(clip)
        XCTAssertEqual(packed, (0..<frames).map { expectedPacked[$0 % expectedPacked.count] })
        XCTAssertEqual(blake3, (0..<frames).map { expectedBLAKE3[$0 % expectedBLAKE3.count] })
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }
}
