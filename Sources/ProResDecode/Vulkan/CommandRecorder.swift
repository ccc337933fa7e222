import CVulkan

/// A command pool with one primary command buffer per slot and a timeline
/// semaphore: record, submit with the next timeline value, wait for it.
/// Its submissions go to the compute queue, or to the transfer queue when
/// the context has one and it is asked for.
final class CommandRecorder {
    let context: VulkanContext
    let buffers: [VkCommandBuffer]
    private let queue: VkQueue
    private var pool: VkCommandPool?
    private var timeline: VkSemaphore?
    private(set) var submittedValue: UInt64 = 0

    enum Queue { case compute, transfer }

    init(context: VulkanContext, count: Int, queue kind: Queue = .compute) throws {
        self.context = context
        let vk = context.vk, device = context.device
        guard kind == .compute || context.transferQueue != nil else { preconditionFailure("the context has no transfer queue") }
        queue = kind == .transfer ? context.transferQueue! : context.computeQueue
        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue
        poolInfo.queueFamilyIndex = kind == .transfer ? context.transferFamily! : context.computeFamily
        try check(vk.vkCreateCommandPool(device, &poolInfo, nil, &pool), "vkCreateCommandPool")
        var typeInfo = VkSemaphoreTypeCreateInfo()
        typeInfo.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO
        typeInfo.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE
        var semaphoreInfo = VkSemaphoreCreateInfo()
        semaphoreInfo.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
        var allocated = [VkCommandBuffer?](repeating: nil, count: count)
        var semaphore: VkSemaphore?
        let commandPool = pool
        do {
            try withUnsafePointer(to: &typeInfo) { typePointer in
                semaphoreInfo.pNext = UnsafeRawPointer(typePointer)
                try check(vk.vkCreateSemaphore(device, &semaphoreInfo, nil, &semaphore), "vkCreateSemaphore(timeline)")
            }
            var allocate = VkCommandBufferAllocateInfo()
            allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
            allocate.commandPool = commandPool
            allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
            allocate.commandBufferCount = UInt32(count)
            try check(vk.vkAllocateCommandBuffers(device, &allocate, &allocated), "vkAllocateCommandBuffers")
        } catch {
            vk.vkDestroySemaphore(device, semaphore, nil)
            vk.vkDestroyCommandPool(device, commandPool, nil)
            throw error
        }
        timeline = semaphore
        buffers = allocated.map { $0! }
    }

    deinit {
        let vk = context.vk, device = context.device
        if submittedValue > 0 { try? wait(for: submittedValue) }
        vk.vkDestroySemaphore(device, timeline, nil)
        vk.vkDestroyCommandPool(device, pool, nil)
    }

    func begin(_ index: Int) throws -> VkCommandBuffer {
        let cb = buffers[index]
        try check(context.vk.vkResetCommandBuffer(cb, 0), "vkResetCommandBuffer")
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try check(context.vk.vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer")
        return cb
    }

    /// Ends and submits command buffer `index`; returns the timeline value
    /// that signals its completion. With `after`, its commands from `stage`
    /// on wait until another recorder's submission `after.value` completed.
    func submit(_ index: Int, after: (recorder: CommandRecorder, value: UInt64, stage: VkPipelineStageFlagBits)? = nil) throws -> UInt64 {
        let vk = context.vk
        var cb: VkCommandBuffer? = buffers[index]
        try check(vk.vkEndCommandBuffer(cb), "vkEndCommandBuffer")
        var value = submittedValue + 1
        var semaphore = timeline
        var waitSemaphore = after?.recorder.timeline
        var waitValue = after?.value ?? 0
        var waitStage = after.map { VkPipelineStageFlags($0.stage.rawValue) } ?? 0
        var timelineInfo = VkTimelineSemaphoreSubmitInfo()
        timelineInfo.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO
        timelineInfo.signalSemaphoreValueCount = 1
        timelineInfo.waitSemaphoreValueCount = after == nil ? 0 : 1
        let status: VkResult = withUnsafePointer(to: &value) { valuePointer in
            timelineInfo.pSignalSemaphoreValues = valuePointer
            return withUnsafePointer(to: &waitValue) { waitValuePointer in
                timelineInfo.pWaitSemaphoreValues = waitValuePointer
                return withUnsafePointer(to: &timelineInfo) { timelinePointer in
                    withUnsafePointer(to: &cb) { bufferPointer in
                        withUnsafePointer(to: &semaphore) { semaphorePointer in
                            withUnsafePointer(to: &waitSemaphore) { waitPointer in
                                withUnsafePointer(to: &waitStage) { stagePointer in
                                    var submit = VkSubmitInfo()
                                    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
                                    submit.pNext = UnsafeRawPointer(timelinePointer)
                                    submit.commandBufferCount = 1
                                    submit.pCommandBuffers = bufferPointer
                                    submit.signalSemaphoreCount = 1
                                    submit.pSignalSemaphores = semaphorePointer
                                    if after != nil {
                                        submit.waitSemaphoreCount = 1
                                        submit.pWaitSemaphores = waitPointer
                                        submit.pWaitDstStageMask = stagePointer
                                    }
                                    context.submitLock.lock()
                                    defer { context.submitLock.unlock() }
                                    return vk.vkQueueSubmit(queue, 1, &submit, nil)
                                }
                            }
                        }
                    }
                }
            }
        }
        try check(status, "vkQueueSubmit")
        submittedValue = value
        return value
    }

    /// A batch the GPU has not finished in this long is reported, not waited
    /// for forever: a hung device must not hang the tool.
    static let timeoutNanoseconds: UInt64 = 60_000_000_000

    func wait(for value: UInt64) throws {
        var semaphore = timeline
        var target = value
        var info = VkSemaphoreWaitInfo()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
        info.semaphoreCount = 1
        try withUnsafePointer(to: &semaphore) { semaphorePointer in
            try withUnsafePointer(to: &target) { valuePointer in
                info.pSemaphores = semaphorePointer
                info.pValues = valuePointer
                let result = context.vk.vkWaitSemaphores(context.device, &info, Self.timeoutNanoseconds)
                if result == VK_TIMEOUT {
                    throw VulkanError.call("vkWaitSemaphores: the GPU did not finish a batch within \(Self.timeoutNanoseconds / 1_000_000_000) s", result.rawValue)
                }
                try check(result, "vkWaitSemaphores")
            }
        }
    }
}
