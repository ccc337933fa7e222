import Foundation
import XCTest

@testable import GPUKit
@testable import ProResGPU
@testable import TestSupport

/// The driver's builds kept on disk between runs (`PipelineCache`): written
/// after a build, handed to the next run's driver, and never handed over
/// when the file is another device's or driver's (the header is read here,
/// byte by byte, against the device's own properties, not the code's).
final class PipelineCacheTests: XCTestCase {
    private func header(_ context: VulkanContext) -> [UInt8] {
        let id = context.info.pipelineCacheIdentity
        var bytes: [UInt8] = [32, 0, 0, 0, 1, 0, 0, 0]
        for value in [id.vendorID, id.deviceID] {
            bytes += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) }
        }
        return bytes + id.uuid
    }

    func testABuildIsSavedAndGivenToTheNextRun() throws {
        let root = try makeTemporaryDirectory(self)
        let context = try VulkanContext(options: .init(validation: true))
        XCTAssertEqual(context.info.pipelineCacheIdentity.uuid.count, 16)
        let interface = DecoderKernels.transform(chroma444: false, depth: 10)

        let first = KernelCache(
            context: context, compiler: try ShaderCompiler(cacheDirectory: root.appendingPathComponent("spirv")))
        _ = try first.kernel(interface)
        XCTAssertEqual(first.pipelineCacheLoadedBytes, 0, "nothing was saved before")
        let file = try XCTUnwrap(first.pipelineCacheFile)
        XCTAssertEqual(file.deletingLastPathComponent().lastPathComponent, "pipelines")
        let saved = try Data(contentsOf: file)
        XCTAssertEqual(Array(saved.prefix(32)), header(context), "the file starts with this device's cache header")

        let second = KernelCache(
            context: context, compiler: try ShaderCompiler(cacheDirectory: root.appendingPathComponent("spirv")))
        _ = try second.kernel(interface)
        XCTAssertEqual(
            second.pipelineCacheLoadedBytes, saved.count - CacheFile.trailerBytes,
            "the next run hands the driver all it saved")
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    func testAnotherDevicesFileIsNotGivenToTheDriverAndIsReplaced() throws {
        let root = try makeTemporaryDirectory(self)
        let context = try VulkanContext(options: .init(validation: true))
        let directory = root.appendingPathComponent("pipelines")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var foreign = header(context)
        foreign[16] ^= 0xff  // another driver build's UUID
        let file = directory.appendingPathComponent(context.info.pipelineCacheIdentity.fileName)
        try Data(foreign + [UInt8](repeating: 0xa5, count: 4096)).write(to: file)

        let kernels = KernelCache(
            context: context, compiler: try ShaderCompiler(cacheDirectory: root.appendingPathComponent("spirv")))
        _ = try kernels.kernel(DecoderKernels.transform(chroma444: true, depth: 10))
        XCTAssertEqual(kernels.pipelineCacheLoadedBytes, 0, "a foreign header must not reach the driver")
        XCTAssertEqual(
            Array(try Data(contentsOf: file).prefix(32)), header(context), "the build replaced the foreign file")
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    func testACacheThatCannotBeWrittenOnlyCostsTime() throws {
        let root = try makeTemporaryDirectory(self)
        let blocker = root.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let context = try VulkanContext()
        // `pipelines` would have to be made inside a regular file.
        let kernels = KernelCache(
            context: context, compiler: try ShaderCompiler(cacheDirectory: blocker.appendingPathComponent("spirv")))
        XCTAssertNoThrow(try kernels.kernel(DecoderKernels.transform(chroma444: false, depth: 12)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: blocker.appendingPathComponent("pipelines").path))
    }

    func testNoCompilerCacheMeansNoPipelineCache() throws {
        let context = try VulkanContext()
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        _ = try kernels.kernel(DecoderKernels.transform(chroma444: false, depth: 10))
        XCTAssertNil(kernels.pipelineCacheFile)
    }
}
