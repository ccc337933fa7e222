import CVulkan

/// Where in the pipeline a command touches memory. Barriers and waits are
/// derived from these (`ResourceState`), never written by hand.
public enum PipelineStage: Sendable {
    case top, transfer, compute, host

    var flags: VkPipelineStageFlags {
        switch self {
        case .top: return VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT.rawValue
        case .transfer: return VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue
        case .compute: return VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue
        case .host: return VK_PIPELINE_STAGE_HOST_BIT.rawValue
        }
    }

    var bit: VkPipelineStageFlagBits { VkPipelineStageFlagBits(rawValue: flags) }

    /// Every access this stage can make, for making a write visible to it.
    var accesses: VkAccessFlags {
        switch self {
        case .top: return 0
        case .transfer: return VK_ACCESS_TRANSFER_READ_BIT.rawValue | VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
        case .compute: return VK_ACCESS_SHADER_READ_BIT.rawValue | VK_ACCESS_SHADER_WRITE_BIT.rawValue
        case .host: return VK_ACCESS_HOST_READ_BIT.rawValue | VK_ACCESS_HOST_WRITE_BIT.rawValue
        }
    }

    /// The access a write at this stage makes.
    var writeAccess: VkAccessFlags {
        switch self {
        case .top: return 0
        case .transfer: return VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
        case .compute: return VK_ACCESS_SHADER_WRITE_BIT.rawValue
        case .host: return VK_ACCESS_HOST_WRITE_BIT.rawValue
        }
    }
}

/// What a buffer is used for.
public struct BufferUsage: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let storage = BufferUsage(rawValue: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue)
    public static let transferSource = BufferUsage(rawValue: VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue)
    public static let transferDestination = BufferUsage(rawValue: VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue)
}

/// Which memory a buffer lives in.
public enum MemoryKind: Sendable {
    /// The GPU's own memory; not mapped on a discrete GPU.
    case device
    /// The GPU's own memory, mapped too where the device shares the host's
    /// (lavapipe, integrated GPUs), so results need no copy back.
    case deviceMappedWhenShared
    /// Host memory the GPU reads or writes (staging, uploads), mapped.
    case host
    /// Host memory the host reads back, cached where the device allows.
    case hostReadback

    var required: VkMemoryPropertyFlags {
        switch self {
        case .device, .deviceMappedWhenShared: return VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue
        case .host, .hostReadback:
            return VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue
        }
    }

    func preferred(sharedMemory: Bool) -> VkMemoryPropertyFlags {
        switch self {
        case .device, .host: return 0
        case .deviceMappedWhenShared:
            return sharedMemory
                ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue : 0
        case .hostReadback: return VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue
        }
    }
}
