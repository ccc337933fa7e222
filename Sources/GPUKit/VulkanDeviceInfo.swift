import CVulkan
import HostSupport

/// What `prores-decode devices` reports about one physical device, and what
/// device selection looks at.
public struct VulkanDeviceInfo: Sendable {
    public enum Kind: String, Sendable {
        case discrete = "discrete GPU"
        case integrated = "integrated GPU"
        case virtual = "virtual GPU"
        case cpu = "CPU"
        case other
        /// Preference when no `--device` is given: a real GPU first.
        var rank: Int {
            switch self {
            case .discrete: return 0
            case .integrated: return 1
            case .virtual: return 2
            case .other: return 3
            case .cpu: return 4
            }
        }
    }

    public let index: Int
    public let name: String
    public let kind: Kind
    public let driverName: String
    public let driverInfo: String
    public let apiVersion: String
    /// Sum of the device-local heaps.
    public let deviceLocalBytes: UInt64
    public let maxStorageBufferRange: UInt64
    public let maxPushConstantsSize: Int
    public let subgroupSize: Int
    public let timestampPeriodNanoseconds: Double
    public let timelineSemaphores: Bool
    public let hostMemoryImport: Bool
    public let separateTransferQueue: Bool
    /// 16-bit integers in storage buffers (the GPU decoder's coefficients).
    public let storage16Bit: Bool
    /// Query pools reset from the host (lets a transfer queue take timestamps).
    public let hostQueryReset: Bool
    /// Where it sits on the PCI bus, when the driver offers
    /// VK_EXT_pci_bus_info (lavapipe does not): finds its NUMA node.
    public let pciAddress: PCIAddress?
    /// What a pipeline cache's header must name for this device and driver
    /// build (`VkPipelineCacheHeaderVersionOne`): data saved by another
    /// GPU or driver is never handed to this one.
    public let pipelineCacheIdentity: PipelineCacheIdentity

    /// Lavapipe and other CPU implementations are not hardware.
    public var isHardware: Bool { kind == .discrete || kind == .integrated || kind == .virtual }

    /// True when `selector` (an index or part of the name) picks this device.
    package func matches(_ selector: String) -> Bool {
        if let number = Int(selector) { return number == index }
        return name.lowercased().contains(selector.lowercased())
            || driverName.lowercased().contains(selector.lowercased())
    }
}

extension VulkanDeviceInfo.Kind {
    init(_ type: VkPhysicalDeviceType) {
        switch type {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: self = .discrete
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: self = .integrated
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: self = .virtual
        case VK_PHYSICAL_DEVICE_TYPE_CPU: self = .cpu
        default: self = .other
        }
    }
}

/// Fixed-size C character arrays (Vulkan's names) as Swift strings.
func string<T>(fromCArray tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
