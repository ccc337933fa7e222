import CVulkan

/// A compute pipeline over storage buffers with push constants, created once
/// and reused for every dispatch.
final class ComputePipeline {
    let shaderName: String
    let bufferCount: Int
    let pushConstantSize: Int
    let layout: VkPipelineLayout
    let setLayout: VkDescriptorSetLayout
    let pipeline: VkPipeline
    // Strong: a Vulkan object must not outlive its device.
    private let context: VulkanContext

    /// `Shaders/<shader>` compiled with `defines`, reading/writing `buffers`
    /// storage buffers at bindings 0..<buffers.
    init(context: VulkanContext, compiler: ShaderCompiler, shader: String, defines: [String: String] = [:],
         buffers: Int, pushConstantSize: Int) throws {
        self.context = context
        shaderName = shader
        bufferCount = buffers
        self.pushConstantSize = pushConstantSize
        let vk = context.vk, device = context.device
        guard context.info.maxPushConstantsSize >= pushConstantSize else {
            throw VulkanError.missingFeature("\(pushConstantSize) bytes of push constants")
        }
        let code = try compiler.spirv(shader, defines: defines)
        var module: VkShaderModule?
        try code.withUnsafeBufferPointer { words in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = words.count * 4
            info.pCode = words.baseAddress
            try check(vk.vkCreateShaderModule(device, &info, nil, &module), "vkCreateShaderModule(\(shader))")
        }
        defer { vk.vkDestroyShaderModule(device, module, nil) }

        var bindings = (0..<buffers).map { index -> VkDescriptorSetLayoutBinding in
            var binding = VkDescriptorSetLayoutBinding()
            binding.binding = UInt32(index)
            binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
            binding.descriptorCount = 1
            binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
            return binding
        }
        var setInfo = VkDescriptorSetLayoutCreateInfo()
        setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
        setInfo.bindingCount = UInt32(buffers)
        var setLayout: VkDescriptorSetLayout?
        try bindings.withUnsafeMutableBufferPointer { pointer in
            setInfo.pBindings = UnsafePointer(pointer.baseAddress)
            try check(vk.vkCreateDescriptorSetLayout(device, &setInfo, nil, &setLayout), "vkCreateDescriptorSetLayout")
        }
        var range = VkPushConstantRange(stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue, offset: 0, size: UInt32(pushConstantSize))
        var layoutInfo = VkPipelineLayoutCreateInfo()
        layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
        layoutInfo.setLayoutCount = 1
        layoutInfo.pushConstantRangeCount = 1
        var layout: VkPipelineLayout?
        try withUnsafePointer(to: &setLayout) { setPointer in
            try withUnsafePointer(to: &range) { rangePointer in
                layoutInfo.pSetLayouts = setPointer
                layoutInfo.pPushConstantRanges = rangePointer
                try check(vk.vkCreatePipelineLayout(device, &layoutInfo, nil, &layout), "vkCreatePipelineLayout")
            }
        }
        var pipeline: VkPipeline?
        try "main".withCString { entry in
            var stage = VkPipelineShaderStageCreateInfo()
            stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
            stage.stage = VK_SHADER_STAGE_COMPUTE_BIT
            stage.module = module
            stage.pName = entry
            var info = VkComputePipelineCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
            info.stage = stage
            info.layout = layout
            try check(vk.vkCreateComputePipelines(device, nil, 1, &info, nil, &pipeline), "vkCreateComputePipelines(\(shader))")
        }
        self.setLayout = setLayout!
        self.layout = layout!
        self.pipeline = pipeline!
    }

    deinit {
        let vk = context.vk, device = context.device
        vk.vkDestroyPipeline(device, pipeline, nil)
        vk.vkDestroyPipelineLayout(device, layout, nil)
        vk.vkDestroyDescriptorSetLayout(device, setLayout, nil)
    }

    /// Points the storage-buffer bindings 0..<n of `set` at `buffers`
    /// (buffer, bytes) in order.
    func bind(_ set: VkDescriptorSet, to buffers: [(buffer: VkBuffer, bytes: Int)]) {
        bind(set, ranges: buffers.map { ($0.buffer, 0, $0.bytes) })
    }

    /// Points bindings 0..<n of `set` at byte ranges (buffer, offset, bytes).
    func bind(_ set: VkDescriptorSet, ranges: [(buffer: VkBuffer, offset: Int, bytes: Int)]) {
        precondition(ranges.count == bufferCount)
        let infos = ranges.map { VkDescriptorBufferInfo(buffer: $0.buffer, offset: VkDeviceSize($0.offset), range: VkDeviceSize($0.bytes)) }
        infos.withUnsafeBufferPointer { pointer in
            var writes = infos.indices.map { i -> VkWriteDescriptorSet in
                var write = VkWriteDescriptorSet()
                write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                write.dstSet = set
                write.dstBinding = UInt32(i)
                write.descriptorCount = 1
                write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                write.pBufferInfo = pointer.baseAddress! + i
                return write
            }
            context.vk.vkUpdateDescriptorSets(context.device, UInt32(writes.count), &writes, 0, nil)
        }
    }
}
