import CVulkan
import Foundation

/// What the driver says it compiled a kernel to (VK_KHR_pipeline_executable_properties):
/// NVIDIA's registers per invocation and shared memory, say. Printed to stderr
/// once per kernel when `VulkanContext.Options.pipelineStatistics` is on; a
/// measurement aid, so nothing depends on it and a driver without the
/// extension prints nothing.
enum PipelineStatistics {
    /// "name = value" for each statistic of each executable of `pipeline`.
    static func describe(_ pipeline: VkPipeline, context: VulkanContext) -> [String] {
        let vk = context.vk
        guard let properties = vk.vkGetPipelineExecutablePropertiesKHR,
            let statistics = vk.vkGetPipelineExecutableStatisticsKHR
        else { return [] }
        var info = VkPipelineInfoKHR()
        info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR
        info.pipeline = pipeline
        var count: UInt32 = 0
        guard properties(context.device, &info, &count, nil) == VK_SUCCESS, count > 0 else { return [] }
        var lines: [String] = []
        for index in 0..<count {
            var executable = VkPipelineExecutableInfoKHR()
            executable.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR
            executable.pipeline = pipeline
            executable.executableIndex = index
            var n: UInt32 = 0
            guard statistics(context.device, &executable, &n, nil) == VK_SUCCESS else { continue }
            var template = VkPipelineExecutableStatisticKHR()
            template.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR
            var values = [VkPipelineExecutableStatisticKHR](repeating: template, count: Int(n))
            guard statistics(context.device, &executable, &n, &values) == VK_SUCCESS else { continue }
            for value in values.prefix(Int(n)) {
                lines.append("\(string(fromCArray: value.name)) = \(describe(value.format, value.value))")
            }
        }
        return lines
    }

    private static func describe(
        _ format: VkPipelineExecutableStatisticFormatKHR, _ value: VkPipelineExecutableStatisticValueKHR
    ) -> String {
        switch format {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return value.b32 != 0 ? "true" : "false"
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return "\(value.i64)"
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return "\(value.u64)"
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return "\(value.f64)"
        default: return "?"
        }
    }
}
