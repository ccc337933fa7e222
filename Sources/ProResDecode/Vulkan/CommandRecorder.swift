import CVulkan

/// A command pool with one primary command buffer per slot and a timeline
/// semaphore: record, submit with the next timeline value, wait for it.
final class CommandRecorder {
    let context: VulkanContext
    let buffers: [VkCommandBuffer]
    private var pool: VkCommandPool?
    private var timeline: VkSemaphore?
    private(set) var submittedValue: UInt64 = 0

    init(context: VulkanContext, count: Int) throws {
        self.context = context
        let vk = context.vk, device = context.device
        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue
        poolInfo.queueFamilyIndex = context.computeFamily
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
    /// that signals its completion.
    func submit(_ index: Int) throws -> UInt64 {
        let vk = context.vk
        var cb: VkCommandBuffer? = buffers[index]
        try check(vk.vkEndCommandBuffer(cb), "vkEndCommandBuffer")
        var value = submittedValue + 1
        var semaphore = timeline
        var timelineInfo = VkTimelineSemaphoreSubmitInfo()
        timelineInfo.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO
        timelineInfo.signalSemaphoreValueCount = 1
        let status: VkResult = withUnsafePointer(to: &value) { valuePointer in
            timelineInfo.pSignalSemaphoreValues = valuePointer
            return withUnsafePointer(to: &timelineInfo) { timelinePointer in
                withUnsafePointer(to: &cb) { bufferPointer in
                    withUnsafePointer(to: &semaphore) { semaphorePointer in
                        var submit = VkSubmitInfo()
                        submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
                        submit.pNext = UnsafeRawPointer(timelinePointer)
                        submit.commandBufferCount = 1
                        submit.pCommandBuffers = bufferPointer
                        submit.signalSemaphoreCount = 1
                        submit.pSignalSemaphores = semaphorePointer
                        context.submitLock.lock()
                        defer { context.submitLock.unlock() }
                        return vk.vkQueueSubmit(context.computeQueue, 1, &submit, nil)
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
