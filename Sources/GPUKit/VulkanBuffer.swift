import CVulkan
import Foundation
import HostSupport

/// A VkBuffer with its own memory, mapped when host-visible.
public final class VulkanBuffer: @unchecked Sendable {
    let buffer: VkBuffer
    let memory: VkDeviceMemory
    public let size: Int
    /// Host address of the contents, when the memory is host-visible.
    public let mapped: UnsafeMutableRawPointer?
    // Strong: a Vulkan object must not outlive its device.
    private let context: VulkanContext
    private let ownsMapping: Bool
    /// What the allocation counts for in the context's `MemoryLedger`.
    private let ledgerBytes: Int
    private let onDevice: Bool
    let state = ResourceState()

    /// A buffer of `size` bytes for `usage` in `memory`. `sharedWithTransferQueue`:
    /// the context's transfer queue uses it too (concurrent sharing, so no
    /// ownership transfers are recorded). `dedicated`: an allocation of the
    /// buffer's own (VkMemoryDedicatedAllocateInfo); nil: for buffers of at
    /// least `dedicatedFromBytes`. Why: on the H200 a gigabyte of
    /// device-local memory takes 39 ms to allocate, and 1.5 ms dedicated
    /// (`roofline` measures both).
    public convenience init(
        _ context: VulkanContext, size: Int, usage: BufferUsage, memory: MemoryKind,
        sharedWithTransferQueue: Bool = false, dedicated: Bool? = nil
    ) throws {
        try self.init(
            context, size: size, usage: usage.rawValue, required: memory.required,
            preferred: memory.preferred(sharedMemory: context.sharesHostMemory), transferQueue: sharedWithTransferQueue,
            dedicated: dedicated ?? (size >= Self.dedicatedFromBytes))
    }

    /// Buffers from this size get an allocation of their own by default.
    public static let dedicatedFromBytes = 1 << 20

    /// A buffer in memory with `required` properties (and `preferred` ones
    /// when possible). `transferQueue`: the context's transfer queue uses it
    /// too (concurrent sharing, so no ownership transfers are recorded).
    private init(
        _ context: VulkanContext, size: Int, usage: VkBufferUsageFlags,
        required: VkMemoryPropertyFlags, preferred: VkMemoryPropertyFlags = 0, transferQueue: Bool = false,
        dedicated: Bool = false
    ) throws {
        self.context = context
        self.size = size
        let vk = context.vk
        let buffer: VkBuffer? = try Self.createBuffer(
            context, size: size, usage: usage, next: nil, what: "\(size) bytes",
            transferQueue: transferQueue)
        var requirements = VkMemoryRequirements()
        vk.vkGetBufferMemoryRequirements(context.device, buffer, &requirements)
        guard let type = context.memoryType(bits: requirements.memoryTypeBits, required: required, preferred: preferred)
        else {
            vk.vkDestroyBuffer(context.device, buffer, nil)
            throw VulkanError.outOfMemory("no memory type with flags \(required) for a \(size)-byte buffer")
        }
        var allocate = VkMemoryAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocate.allocationSize = requirements.size
        allocate.memoryTypeIndex = type
        var dedication = VkMemoryDedicatedAllocateInfo()
        dedication.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO
        dedication.buffer = buffer
        do {
            memory = try withUnsafePointer(to: &dedication) { dedicationPointer in
                if dedicated { allocate.pNext = UnsafeRawPointer(dedicationPointer) }
                return try Self.allocateAndBind(context, buffer!, &allocate, what: "\(requirements.size) bytes")
            }
        } catch {
            vk.vkDestroyBuffer(context.device, buffer, nil)
            throw error
        }
        self.buffer = buffer!
        ledgerBytes = Int(allocate.allocationSize)
        onDevice = required & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue != 0
        context.memory.allocated(ledgerBytes, onDevice: onDevice)
        let flags = context.memoryFlags(type)
        if flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue != 0 {
            var pointer: UnsafeMutableRawPointer?
            try check(vk.vkMapMemory(context.device, memory, 0, PD_VK_WHOLE_SIZE, 0, &pointer), "vkMapMemory")
            mapped = pointer
            ownsMapping = true
        } else {
            mapped = nil
            ownsMapping = false
        }
    }

    /// Wraps host memory we own (a pooled surface) without copying it,
    /// through VK_EXT_external_memory_host. `size` must be a multiple of the
    /// device's import alignment and `pointer` aligned to it.
    /// `sharedWithTransferQueue` as for a buffer of our own.
    public init(
        _ context: VulkanContext, importing pointer: UnsafeMutableRawPointer, size: Int, usage: BufferUsage,
        sharedWithTransferQueue: Bool = false
    ) throws {
        let usage = usage.rawValue
        self.context = context
        self.size = size
        let vk = context.vk
        guard let hostProperties = vk.vkGetMemoryHostPointerPropertiesEXT else {
            throw VulkanError.missingExtension("VK_EXT_external_memory_host")
        }
        var external = VkExternalMemoryBufferCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
        external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT.rawValue
        let buffer: VkBuffer? = try withUnsafePointer(to: &external) {
            try Self.createBuffer(
                context, size: size, usage: usage, next: UnsafeRawPointer($0), what: "imported, \(size) bytes",
                transferQueue: sharedWithTransferQueue)
        }
        var pointerProperties = VkMemoryHostPointerPropertiesEXT()
        pointerProperties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
        var requirements = VkMemoryRequirements()
        vk.vkGetBufferMemoryRequirements(context.device, buffer, &requirements)
        var memory: VkDeviceMemory?
        do {
            try check(
                hostProperties(
                    context.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, pointer, &pointerProperties),
                "vkGetMemoryHostPointerPropertiesEXT")
            guard
                let type = context.memoryType(
                    bits: requirements.memoryTypeBits & pointerProperties.memoryTypeBits,
                    required: VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue)
            else {
                throw VulkanError.outOfMemory("no memory type can import host memory for a buffer")
            }
            var importInfo = VkImportMemoryHostPointerInfoEXT()
            importInfo.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT
            importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
            importInfo.pHostPointer = pointer
            var allocate = VkMemoryAllocateInfo()
            allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
            allocate.allocationSize = VkDeviceSize(size)
            allocate.memoryTypeIndex = type
            memory = try withUnsafePointer(to: &importInfo) { importPointer in
                allocate.pNext = UnsafeRawPointer(importPointer)
                return try Self.allocateAndBind(context, buffer!, &allocate, what: Self.importWhat)
            }
        } catch {
            vk.vkDestroyBuffer(context.device, buffer, nil)
            throw error
        }
        self.buffer = buffer!
        self.memory = memory!
        mapped = pointer
        ownsMapping = false
        ledgerBytes = size
        onDevice = false
        context.memory.allocated(size, onDevice: false)
    }

    private static let importWhat = "imported host memory"

    private static func createBuffer(
        _ context: VulkanContext, size: Int, usage: VkBufferUsageFlags,
        next: UnsafeRawPointer?, what: String, transferQueue: Bool = false
    ) throws -> VkBuffer {
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.pNext = next
        info.size = VkDeviceSize(size)
        info.usage = usage
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        let families = [context.computeFamily] + (transferQueue ? context.transferFamily.map { [$0] } ?? [] : [])
        try families.withUnsafeBufferPointer { families in
            if families.count > 1 {
                info.sharingMode = VK_SHARING_MODE_CONCURRENT
                info.queueFamilyIndexCount = UInt32(families.count)
                info.pQueueFamilyIndices = families.baseAddress
            }
            try check(context.vk.vkCreateBuffer(context.device, &info, nil, &buffer), "vkCreateBuffer(\(what))")
        }
        return buffer!
    }

    /// Allocates `allocate` and binds it to `buffer`; on failure frees the
    /// memory (the caller still owns the buffer).
    private static func allocateAndBind(
        _ context: VulkanContext, _ buffer: VkBuffer, _ allocate: inout VkMemoryAllocateInfo,
        what: String
    ) throws -> VkDeviceMemory {
        let vk = context.vk
        var memory: VkDeviceMemory?
        do {
            // Imports pin host pages; traced apart from device allocations to tell their costs apart.
            let result =
                what != importWhat
                ? Trace.span("memory allocated") { vk.vkAllocateMemory(context.device, &allocate, nil, &memory) }
                : Trace.span("host memory imported") { vk.vkAllocateMemory(context.device, &allocate, nil, &memory) }
            try check(result, "vkAllocateMemory(\(what))")
            try check(vk.vkBindBufferMemory(context.device, buffer, memory, 0), "vkBindBufferMemory(\(what))")
        } catch {
            vk.vkFreeMemory(context.device, memory, nil)
            throw error
        }
        return memory!
    }

    deinit {
        if ownsMapping { context.vk.vkUnmapMemory(context.device, memory) }
        context.vk.vkDestroyBuffer(context.device, buffer, nil)
        context.vk.vkFreeMemory(context.device, memory, nil)
        context.memory.freed(ledgerBytes, onDevice: onDevice)
    }
}

extension VulkanContext {
    func memoryFlags(_ type: UInt32) -> VkMemoryPropertyFlags {
        withUnsafeBytes(of: memoryProperties.memoryTypes) {
            $0.bindMemory(to: VkMemoryType.self)[Int(type)].propertyFlags
        }
    }

    /// Whether device-local memory is also the host's (lavapipe, integrated
    /// GPUs): then no staging copy to the device is needed.
    public var sharesHostMemory: Bool { info.kind == .cpu || info.kind == .integrated }
}
