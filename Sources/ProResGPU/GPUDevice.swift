import Foundation
import GPUKit
import ProResCore

/// A Vulkan device ready for decoding: its context and the kernels compiled
/// on it. Made once and shared by every run on that device (`check`'s files
/// in flight), so that each file pays neither device creation nor pipeline
/// builds.
// @unchecked: both members are themselves thread-safe (the context
// serialises submissions, the cache makes each kernel under its lock).
public final class GPUDevice: @unchecked Sendable, Equatable {
    public let context: VulkanContext
    public let kernels: KernelCache
    /// Where its sessions' threads run: the CPUs of its NUMA node on a
    /// host of several, else wherever the scheduler puts them.
    public let placement: ThreadPlacement
    /// Sample memory imported into this device, shared by its decoders.
    let regionImports: HostRegionImports

    private let lock = NSLock()
    /// Decoders whose session ended cleanly, by `GPUDecodeSession.reuseKey`:
    /// the next file of the same geometry takes one with its buffers and
    /// pinned staging memory already made (a 4K batch of 16 frames is over
    /// half a GB, allocated and pinned in tens of milliseconds: more than a
    /// short file takes to decode).
    private var idle: [String: [GPUProResDecoder]] = [:]

    public init(context: VulkanContext) throws {
        self.context = context
        kernels = KernelCache(context: context, compiler: try ShaderCompiler(tuning: context.tuning))
        placement = ThreadPlacement.forDevice(at: context.info.pciAddress)
        regionImports = HostRegionImports(context: context)
    }

    func takeDecoder(_ key: String) -> GPUProResDecoder? {
        lock.lock()
        defer { lock.unlock() }
        return idle[key]?.popLast()
    }

    /// Keeps at most as many as run at once (`check --jobs`), two by default.
    func keep(_ decoder: GPUProResDecoder, key: String, limit: Int = 4) {
        lock.lock()
        defer { lock.unlock() }
        if idle[key, default: []].count < limit { idle[key, default: []].append(decoder) }
    }

    public static func == (a: GPUDevice, b: GPUDevice) -> Bool { a === b }

    /// Builds the kernels a GPU decode of `format` needs (and, `converting`,
    /// the conversion of its frames) all at once, before the session asks
    /// for them one after the other (`KernelCache.prepare`).
    package func prepareKernels(decoding format: FormatDescription, converting: Bool) {
        guard GPUProResDecoder.unsupportedReason(format) == nil else { return }
        var interfaces = [DecoderKernels.entropy(format), DecoderKernels.transform(format)]
        if converting {
            interfaces += GPUFrameConverter.kernelInterfaces(format.nativePackedLayout, width: format.width)
        }
        kernels.prepare(interfaces)
    }
}
