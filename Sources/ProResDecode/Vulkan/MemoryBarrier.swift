import CVulkan

extension VulkanContext {
    /// One global memory barrier: what `srcAccess` wrote at `srcStage` is
    /// visible to `dstAccess` at `dstStage` (access masks may be combined).
    /// Our passes share whole buffers, so buffer-range barriers would buy nothing.
    func memoryBarrier(_ cb: VkCommandBuffer, from srcStage: VkPipelineStageFlagBits, _ srcAccess: VkAccessFlags,
                       to dstStage: VkPipelineStageFlagBits, _ dstAccess: VkAccessFlags) {
        var memory = VkMemoryBarrier()
        memory.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
        memory.srcAccessMask = srcAccess
        memory.dstAccessMask = dstAccess
        vk.vkCmdPipelineBarrier(cb, srcStage.rawValue, dstStage.rawValue, 0, 1, &memory, 0, nil, 0, nil)
    }
}
