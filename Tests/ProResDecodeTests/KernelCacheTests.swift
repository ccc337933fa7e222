import Foundation
@testable import GPUKit
@testable import ProResGPU
import XCTest

/// Kernels build at once, each variant once: whoever asks first builds it,
/// the others wait for that build, and its error reaches every asker.
final class KernelCacheTests: XCTestCase {
    func testEachVariantIsBuiltOnceAndErrorsReachTheAsker() throws {
        let context = try VulkanContext(options: .init(validation: true))
        let compiler = try ShaderCompiler(cacheDirectory: nil)
        let kernels = KernelCache(context: context, compiler: compiler)
        let entropy = DecoderKernels.entropy(chroma444: false, depth: 10)
        let transform = DecoderKernels.transform(chroma444: false, depth: 10)
        kernels.prebuild([entropy, transform])
        let lock = NSLock()
        var asked: [ObjectIdentifier] = []
        DispatchQueue.concurrentPerform(iterations: 6) { i in
            let kernel = try? kernels.kernel(i.isMultiple(of: 2) ? entropy : transform)
            lock.withLock { asked.append(kernel.map(ObjectIdentifier.init) ?? ObjectIdentifier(NSNull())) }
        }
        XCTAssertEqual(Set(asked).count, 2, "one kernel per variant")
        XCTAssertEqual(Set(asked), [ObjectIdentifier(try kernels.kernel(entropy)), ObjectIdentifier(try kernels.kernel(transform))])
        XCTAssertEqual(compiler.compiledCount, 2)

        let missing = KernelInterface(shader: "no_such_shader.comp", bindings: [])
        kernels.prebuild([missing])
        XCTAssertThrowsError(try kernels.kernel(missing)) { error in
            XCTAssertTrue("\(error)".contains("no_such_shader.comp"), "\(error)")
        }
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    /// Asking for pipeline statistics enables them only where the device
    /// offers VK_KHR_pipeline_executable_properties (lavapipe 22.3 does not),
    /// and kernels build as before either way.
    func testPipelineStatisticsOnlyWhereOffered() throws {
        var options = VulkanContext.Options(validation: true)
        options.pipelineStatistics = true
        let context = try VulkanContext(options: options)
        let offered = VulkanContext.deviceExtensions(context.physicalDevice, context.vki).contains("VK_KHR_pipeline_executable_properties")
        XCTAssertEqual(context.capturesPipelineStatistics, offered)
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        let kernel = try kernels.kernel(DecoderKernels.transform(chroma444: true, depth: 12))
        if offered { XCTAssertFalse(PipelineStatistics.describe(kernel.pipeline, context: context).isEmpty) }
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }
}
