import CVulkan
import Foundation
import HostSupport

/// A compute shader built from its `KernelInterface`: the pipeline, its
/// layout, and the binding sets to dispatch it with. The only way GPU work
/// of ours is dispatched (`CommandBuffer.dispatch`).
///
/// Thread-safety: immutable once made; a binding set is used by one
/// recording thread at a time.
// @unchecked: immutable after init.
public final class Kernel: @unchecked Sendable {
    public let interface: KernelInterface
    let layout: VkPipelineLayout
    let setLayout: VkDescriptorSetLayout
    let pipeline: VkPipeline
    // Strong: a Vulkan object must not outlive its device.
    private let context: VulkanContext

    /// Compiles `Shaders/<interface.shader>` behind its generated prelude.
    public convenience init(context: VulkanContext, compiler: ShaderCompiler, interface: KernelInterface) throws {
        try self.init(context: context, compiler: compiler, interface: interface, pipelineCache: nil)
    }

    /// `pipelineCache`: the driver's earlier builds (`PipelineCache`), if any.
    init(context: VulkanContext, compiler: ShaderCompiler, interface: KernelInterface, pipelineCache: PipelineCache?)
        throws
    {
        self.context = context
        self.interface = interface
        let vk = context.vk
        let device = context.device
        let pushSize = interface.push.size
        guard context.info.maxPushConstantsSize >= pushSize else {
            throw VulkanError.missingFeature("\(pushSize) bytes of push constants")
        }
        let module = try Self.shaderModule(
            compiler.spirv(interface.shader, prelude: interface.glslPrelude), named: interface.shader, context: context)
        defer { vk.vkDestroyShaderModule(device, module, nil) }

        var bindings = interface.bindings.indices.map { index -> VkDescriptorSetLayoutBinding in
            var binding = VkDescriptorSetLayoutBinding()
            binding.binding = UInt32(index)
            binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
            binding.descriptorCount = 1
            binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
            return binding
        }
        var setInfo = VkDescriptorSetLayoutCreateInfo()
        setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
        setInfo.bindingCount = UInt32(bindings.count)
        var setLayout: VkDescriptorSetLayout?
        try bindings.withUnsafeMutableBufferPointer { pointer in
            setInfo.pBindings = UnsafePointer(pointer.baseAddress)
            try check(vk.vkCreateDescriptorSetLayout(device, &setInfo, nil, &setLayout), "vkCreateDescriptorSetLayout")
        }
        var range = VkPushConstantRange(
            stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue, offset: 0, size: UInt32(pushSize))
        var layoutInfo = VkPipelineLayoutCreateInfo()
        layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
        layoutInfo.setLayoutCount = 1
        layoutInfo.pushConstantRangeCount = pushSize > 0 ? 1 : 0
        var layout: VkPipelineLayout?
        try withUnsafePointer(to: &setLayout) { setPointer in
            try withUnsafePointer(to: &range) { rangePointer in
                layoutInfo.pSetLayouts = setPointer
                layoutInfo.pPushConstantRanges = pushSize > 0 ? rangePointer : nil
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
            if context.capturesPipelineStatistics {
                info.flags = VkPipelineCreateFlags(VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR.rawValue)
            }
            try check(
                vk.vkCreateComputePipelines(device, pipelineCache?.handle, 1, &info, nil, &pipeline),
                "vkCreateComputePipelines(\(interface.shader))")
        }
        if context.capturesPipelineStatistics, let pipeline {
            let defines = interface.defines.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            let line =
                "prores-decode: pipeline statistics: \(interface.shader) [\(defines)]: "
                + PipelineStatistics.describe(pipeline, context: context).joined(separator: ", ") + "\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        self.setLayout = setLayout!
        self.layout = layout!
        self.pipeline = pipeline!
    }

    /// The shader module of SPIR-V `code`; the caller destroys it.
    private static func shaderModule(_ code: [UInt32], named name: String, context: VulkanContext) throws
        -> VkShaderModule?
    {
        var module: VkShaderModule?
        try code.withUnsafeBufferPointer { words in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = words.count * 4
            info.pCode = words.baseAddress
            try check(
                context.vk.vkCreateShaderModule(context.device, &info, nil, &module), "vkCreateShaderModule(\(name))")
        }
        return module
    }

    deinit {
        let vk = context.vk
        let device = context.device
        vk.vkDestroyPipeline(device, pipeline, nil)
        vk.vkDestroyPipelineLayout(device, layout, nil)
        vk.vkDestroyDescriptorSetLayout(device, setLayout, nil)
    }

    /// `count` binding sets for this kernel (or any with as many bindings:
    /// their set layouts are identically defined), allocated once from a pool
    /// of their own and rebound per dispatch, never made per frame.
    public func makeBindingSets(_ count: Int) throws -> [BindingSet] {
        let pool = try DescriptorPool(
            context: context, layout: setLayout, sets: count, buffers: count * interface.bindings.count)
        return pool.sets.map { BindingSet(raw: $0, pool: pool) }
    }

    /// Points the bindings of `set` at `buffers`, in order.
    func bind(_ set: VkDescriptorSet, _ buffers: [BufferRange]) {
        let infos = buffers.map {
            VkDescriptorBufferInfo(
                buffer: $0.buffer.buffer, offset: VkDeviceSize($0.offset), range: VkDeviceSize($0.bytes))
        }
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

/// One descriptor set of a kernel's; keeps its pool alive.
public struct BindingSet {
    let raw: VkDescriptorSet
    let pool: DescriptorPool

    init(raw: VkDescriptorSet, pool: DescriptorPool) {
        self.raw = raw
        self.pool = pool
    }
}

/// Storage-buffer descriptor sets of one layout, freed with their pool.
final class DescriptorPool {
    let sets: [VkDescriptorSet]
    private var pool: VkDescriptorPool?
    private let context: VulkanContext

    init(context: VulkanContext, layout: VkDescriptorSetLayout, sets count: Int, buffers: Int) throws {
        self.context = context
        let vk = context.vk
        let device = context.device
        var size = VkDescriptorPoolSize(
            type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: UInt32(max(1, buffers)))
        var poolInfo = VkDescriptorPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        poolInfo.maxSets = UInt32(count)
        poolInfo.poolSizeCount = 1
        var made: VkDescriptorPool?
        try withUnsafePointer(to: &size) { pointer in
            poolInfo.pPoolSizes = pointer
            try check(vk.vkCreateDescriptorPool(device, &poolInfo, nil, &made), "vkCreateDescriptorPool")
        }
        var allocated = [VkDescriptorSet?](repeating: nil, count: count)
        let layouts = [VkDescriptorSetLayout?](repeating: layout, count: count)
        var allocate = VkDescriptorSetAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
        allocate.descriptorPool = made
        allocate.descriptorSetCount = UInt32(count)
        do {
            try layouts.withUnsafeBufferPointer { pointer in
                allocate.pSetLayouts = pointer.baseAddress
                try check(vk.vkAllocateDescriptorSets(device, &allocate, &allocated), "vkAllocateDescriptorSets")
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

/// Kernels by variant (shader and facts), each compiled on first use and
/// then shared: the decoder's, the converter's and the effects' variants,
/// and every session on a context (`VulkanContext.kernels`), so that a
/// check of many files builds each pipeline once.
///
/// Thread-safety: any thread; each kernel is built once, outside the lock,
/// so that different kernels build at the same time (`prepare`): the
/// driver compiles each pipeline on its own, and the pipeline cache is
/// internally synchronised. A caller asking for a kernel another thread is
/// building waits for that build.
// @unchecked: `kernels`, `building` and `pipelineCache` are touched only under `lock`; the rest is immutable.
public final class KernelCache: @unchecked Sendable {
    private let context: VulkanContext
    private let compiler: ShaderCompiler
    private let lock = NSCondition()
    private var kernels: [String: Kernel] = [:]
    /// Variants being built now, by any thread.
    private var building: Set<String> = []
    /// Opened with the first kernel, beside the compiler's SPIR-V cache;
    /// none when the compiler keeps no cache. Touched under `lock` only.
    private lazy var pipelineCache: PipelineCache? =
        context.tuning.pipelineCache
        ? compiler.cacheDirectory.flatMap {
            PipelineCache(
                context: context, directory: $0.deletingLastPathComponent().appendingPathComponent("pipelines"))
        }
        : nil

    public init(context: VulkanContext, compiler: ShaderCompiler) {
        self.context = context
        self.compiler = compiler
    }

    /// Kernels built so far (tests).
    var builtCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return kernels.count
    }

    /// Bytes of earlier builds the driver was given (0: none) (tests).
    var pipelineCacheLoadedBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return pipelineCache?.loadedBytes ?? 0
    }

    /// Where the driver's builds are kept, or nil (tests).
    var pipelineCacheFile: URL? {
        lock.lock()
        defer { lock.unlock() }
        return pipelineCache?.file
    }

    public func kernel(_ interface: KernelInterface) throws -> Kernel {
        let key = interface.variantKey
        lock.lock()
        // Another thread's build: its time is not this caller's (`SharedWaits`).
        if building.contains(key) { SharedWaits.waiting { while building.contains(key) { lock.wait() } } }
        if let made = kernels[key] {
            lock.unlock()
            return made
        }
        building.insert(key)
        let pipelineCache = self.pipelineCache
        lock.unlock()
        // A kernel serves every later job on the device, so its build is no
        // one job's work either (`SharedWaits`), whoever asked first.
        let built = SharedWaits.waiting {
            Result {
                try Trace.span("kernel built") {
                    try Kernel(context: context, compiler: compiler, interface: interface, pipelineCache: pipelineCache)
                }
            }
        }
        lock.lock()
        defer { lock.unlock() }
        building.remove(key)
        if case .success(let made) = built {
            kernels[key] = made
            pipelineCache?.saveIfGrown()
        }
        lock.broadcast()
        return try built.get()
    }

    /// Builds every one of `interfaces` not made yet, at the same time, and
    /// returns when they are done. A build that fails is left unmade: the
    /// kernel's user builds it again and gets the error.
    public func prepare(_ interfaces: [KernelInterface]) {
        parallelFor(interfaces.count) { _ = try? kernel(interfaces[$0]) }
    }
}
