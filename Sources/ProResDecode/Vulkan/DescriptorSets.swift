import CVulkan

/// Storage-buffer descriptor sets for a list of set layouts, allocated once
/// from a pool of their own, freed with it: each pipeline user's sets are
/// made up front and only rebound, never created per frame.
final class DescriptorSets {
    let sets: [VkDescriptorSet]
    private var pool: VkDescriptorPool?
    // Strong: a Vulkan object must not outlive its device.
    private let context: VulkanContext

    /// One set per entry of `layouts`; `buffers` storage-buffer descriptors in all.
    init(context: VulkanContext, layouts: [VkDescriptorSetLayout], buffers: Int, what: String) throws {
        self.context = context
        let vk = context.vk, device = context.device
        var size = VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: UInt32(buffers))
        var poolInfo = VkDescriptorPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        poolInfo.maxSets = UInt32(layouts.count)
        poolInfo.poolSizeCount = 1
        var made: VkDescriptorPool?
        try withUnsafePointer(to: &size) { pointer in
            poolInfo.pPoolSizes = pointer
            try check(vk.vkCreateDescriptorPool(device, &poolInfo, nil, &made), "vkCreateDescriptorPool(\(what))")
        }
        var allocated = [VkDescriptorSet?](repeating: nil, count: layouts.count)
        let optionalLayouts: [VkDescriptorSetLayout?] = layouts
        var allocate = VkDescriptorSetAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
        allocate.descriptorPool = made
        allocate.descriptorSetCount = UInt32(layouts.count)
        do {
            try optionalLayouts.withUnsafeBufferPointer { pointer in
                allocate.pSetLayouts = pointer.baseAddress
                try check(vk.vkAllocateDescriptorSets(device, &allocate, &allocated), "vkAllocateDescriptorSets(\(what))")
            }
        } catch {
            vk.vkDestroyDescriptorPool(device, made, nil)
            throw error
        }
        pool = made
        sets = allocated.map { $0! }
    }

    deinit { context.vk.vkDestroyDescriptorPool(context.device, pool, nil) }
}
