import Foundation
import XCTest

@testable import GPUKit
@testable import ProResGPU
@testable import TestSupport

/// Asking for pipeline statistics enables them only where the device offers
/// VK_KHR_pipeline_executable_properties (lavapipe 22.3 does not), and
/// kernels build as before either way.
final class PipelineStatisticsTests: XCTestCase {
    func testPipelineStatisticsOnlyWhereOffered() throws {
        var options = VulkanContext.Options(validation: true)
        options.pipelineStatistics = true
        let context = try VulkanContext(options: options)
        let offered = VulkanContext.deviceExtensions(context.physicalDevice, context.vki).contains(
            "VK_KHR_pipeline_executable_properties")
        XCTAssertEqual(context.capturesPipelineStatistics, offered)
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        let kernel = try kernels.kernel(DecoderKernels.transform(chroma444: true, depth: 12))
        if offered { XCTAssertFalse(PipelineStatistics.describe(kernel.pipeline, context: context).isEmpty) }
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }
}
