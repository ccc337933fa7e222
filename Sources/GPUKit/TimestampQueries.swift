import CVulkan
import HostSupport

/// GPU timestamps in slots of `perSlot` queries: each slot records a start
/// and then one mark per stage, and reads back the time between consecutive
/// marks. Made only where the queue has timestamps (`make` returns nil).
/// On the transfer queue, which may not reset queries, the host resets a
/// slot's queries when `start` records its first mark.
public final class TimestampQueries {
    let perSlot: Int
    private let pool: VkQueryPool
    private let resetOnHost: Bool
    // Strong: a Vulkan object must not outlive its device.
    private let context: VulkanContext

    package static func make(
        _ context: VulkanContext, slots: Int, perSlot: Int, queue: CommandRecorder.Queue = .compute
    ) throws -> TimestampQueries? {
        switch queue {
        case .compute:
            guard context.timestampValidBits > 0 else { return nil }
        case .transfer:
            guard context.transferTimestampValidBits > 0, context.info.hostQueryReset,
                context.vk.vkResetQueryPool != nil
            else { return nil }
        }
        return try TimestampQueries(context, slots: slots, perSlot: perSlot, resetOnHost: queue == .transfer)
    }

    private init(_ context: VulkanContext, slots: Int, perSlot: Int, resetOnHost: Bool) throws {
        self.context = context
        self.perSlot = perSlot
        self.resetOnHost = resetOnHost
        var info = VkQueryPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO
        info.queryType = VK_QUERY_TYPE_TIMESTAMP
        info.queryCount = UInt32(slots * perSlot)
        var made: VkQueryPool?
        try check(context.vk.vkCreateQueryPool(context.device, &info, nil, &made), "vkCreateQueryPool")
        pool = made!
    }

    deinit { context.vk.vkDestroyQueryPool(context.device, pool, nil) }

    /// Resets `slot`'s queries and writes its start mark (query 0). The
    /// slot's previous results must have been read.
    public func start(_ cb: CommandBuffer, slot: Int) {
        if resetOnHost {
            context.vk.vkResetQueryPool!(context.device, pool, UInt32(slot * perSlot), UInt32(perSlot))
        } else {
            context.vk.vkCmdResetQueryPool(cb.raw, pool, UInt32(slot * perSlot), UInt32(perSlot))
        }
        mark(cb, slot: slot, 0, after: .top)
    }

    /// Writes query `index` of `slot` once `stage` of the work before it is done.
    public func mark(_ cb: CommandBuffer, slot: Int, _ index: Int, after stage: PipelineStage) {
        context.vk.vkCmdWriteTimestamp(cb.raw, stage.bit, pool, UInt32(slot * perSlot + index))
    }

    /// Microseconds between consecutive marks of `slot` (`perSlot - 1`
    /// spans), waiting for the GPU to write them.
    ///
    /// Read first without waiting: once the slot's batch is complete, its
    /// marks are written, and lavapipe's wait is for everything on the
    /// queue, other jobs' batches included.
    package func spans(slot: Int) throws -> [Double] {
        var stamps = [UInt64](repeating: 0, count: perSlot)
        let read = { [self] (flags: VkQueryResultFlags) -> VkResult in
            stamps.withUnsafeMutableBytes {
                context.vk.vkGetQueryPoolResults(
                    context.device, pool, UInt32(slot * perSlot), UInt32(perSlot), $0.count, $0.baseAddress, 8,
                    VK_QUERY_RESULT_64_BIT.rawValue | flags)
            }
        }
        var result = read(0)
        if result == VK_NOT_READY { result = read(VK_QUERY_RESULT_WAIT_BIT.rawValue) }
        try check(result, "vkGetQueryPoolResults")
        let period = context.info.timestampPeriodNanoseconds / 1000
        return (1..<perSlot).map { Double(stamps[$0] &- stamps[$0 - 1]) * period }
    }
}
