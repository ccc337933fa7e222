import CVulkan
import Foundation
import HostSupport

/// Which device and driver build a pipeline cache belongs to: the fields of
/// `VkPipelineCacheHeaderVersionOne` after its length and version.
public struct PipelineCacheIdentity: Sendable, Equatable {
    public let vendorID: UInt32
    public let deviceID: UInt32
    /// `pipelineCacheUUID`: changes with every driver build that could
    /// compile differently.
    public let uuid: [UInt8]

    /// The 32 bytes a cache saved for this identity starts with.
    var header: [UInt8] {
        func bytes(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return bytes(32) + bytes(UInt32(VK_PIPELINE_CACHE_HEADER_VERSION_ONE.rawValue)) + bytes(vendorID)
            + bytes(deviceID) + uuid
    }

    /// The file name for this identity's cache.
    var fileName: String {
        String(format: "%08x-%08x-", vendorID, deviceID) + uuid.map { String(format: "%02x", $0) }.joined() + ".binc"
    }
}

/// The driver's compiled pipelines, kept on disk between runs (a
/// `VkPipelineCache` loaded from and saved to one file per device and driver
/// build). Why: every process builds its kernels again, and a build is the
/// driver compiling SPIR-V to the GPU's code; with the driver's own work in
/// hand it only has to load it. The SPIR-V has its own cache
/// (`ShaderCompiler`); this one starts where that ends.
///
/// The file is a `CacheFile` entry: one that names another device or driver
/// build, does not match its checksum, or cannot be read is not given to the
/// driver (a damaged one could crash it), is noted once, and the next save
/// replaces it. `PRORES_DECODE_PIPELINE_CACHE=0` turns it off (for
/// measurements).
///
/// Thread-safety: `saveIfGrown` is called under `KernelCache`'s lock (the
/// Vulkan handle needs none: pipeline creation synchronises it internally).
// @unchecked: `savedBytes` is touched under the owner's lock only.
final class PipelineCache: @unchecked Sendable {
    let handle: VkPipelineCache
    let file: URL
    /// Bytes of saved data handed to the driver at creation (0: none).
    let loadedBytes: Int
    private let context: VulkanContext
    /// The size of the data on disk, as this process last saw or wrote it.
    private var savedBytes: Int

    /// Saved data above this is not trusted (ours is well under a megabyte).
    static let maximumBytes = 64 << 20

    /// nil when the driver refuses even an empty cache.
    init?(context: VulkanContext, directory: URL) {
        let identity = context.info.pipelineCacheIdentity
        file = directory.appendingPathComponent(identity.fileName)
        var saved = CacheFile.load(file, identity: identity.header, maximumBytes: Self.maximumBytes) ?? Data()
        // The driver's own header, too: a file vouched for must still name this device and build.
        if !saved.starts(with: identity.header) { saved = Data() }
        var info = VkPipelineCacheCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO
        var made: VkPipelineCache?
        let result = saved.withUnsafeBytes { bytes -> VkResult in
            info.initialDataSize = bytes.count
            info.pInitialData = bytes.baseAddress
            return Trace.span("pipeline cache loaded") {
                context.vk.vkCreatePipelineCache(context.device, &info, nil, &made)
            }
        }
        guard result == VK_SUCCESS, let made else { return nil }
        handle = made
        loadedBytes = saved.count
        savedBytes = saved.count
        self.context = context
    }

    deinit { context.vk.vkDestroyPipelineCache(context.device, handle, nil) }

    /// Writes the cache when a build added to it (atomically, `CacheFile.store`).
    func saveIfGrown() {
        let vk = context.vk
        let device = context.device
        var size = 0
        guard vk.vkGetPipelineCacheData(device, handle, &size, nil) == VK_SUCCESS, size != savedBytes,
            size <= Self.maximumBytes
        else { return }
        var data = Data(count: size)
        let result = data.withUnsafeMutableBytes { vk.vkGetPipelineCacheData(device, handle, &size, $0.baseAddress) }
        guard result == VK_SUCCESS else { return }
        data.count = size
        if CacheFile.store(data, identity: context.info.pipelineCacheIdentity.header, at: file) { savedBytes = size }
    }
}
