import GPUKit

/// A Vulkan device ready for decoding: its context and the kernels compiled
/// on it. Made once and shared by every run on that device (`check`'s files
/// in flight), so that each file pays neither device creation nor pipeline
/// builds.
// @unchecked: both members are themselves thread-safe (the context
// serialises submissions, the cache makes each kernel under its lock).
public final class GPUDevice: @unchecked Sendable, Equatable {
    public let context: VulkanContext
    public let kernels: KernelCache

    public init(context: VulkanContext) throws {
        self.context = context
        kernels = KernelCache(context: context, compiler: try ShaderCompiler())
    }

    public static func == (a: GPUDevice, b: GPUDevice) -> Bool { a === b }
}
