import GPUKit
import ProResCore

/// One `--effect` pass on the GPU: its shader's interface, and what it
/// binds and pushes for a frame. Adding an effect: its definition in
/// ProResCore/Effects, one file here conforming to this, its shader, and its
/// line in `Effect.kernel`.
protocol EffectKernel {
    /// The pass's interface (it may depend on the source's packed layout).
    func interface(source: PackedLayout) -> KernelInterface
    /// The buffers (in binding order) and push values for one frame; `table`
    /// is the pass's device copy of `table()`, when it has one.
    func arguments(_ frame: EffectChain.Frame, table: VulkanBuffer?) -> (buffers: [BufferRange], push: [PushValue])
    /// A read-only table of floats the pass needs on the device, uploaded once.
    func table() -> [Float]?
}

extension EffectKernel {
    func table() -> [Float]? { nil }
}

extension Effect {
    /// The registry: each effect's GPU pass.
    var kernel: EffectKernel {
        switch self {
        case .sepia, .exposure, .saturation: return MatrixEffectKernel(matrix: ColorMatrixEffects.matrix(for: self)!)
        case .chromaKey(let key): return ChromaKeyKernel(key: key)
        case .lut(let lut): return LUTKernel(effect: lut)
        }
    }
}

/// Every effect runs one invocation a pixel, rows of this many a workgroup.
let effectWorkgroupSize = 128

/// The converted frame every effect works on in place.
let effectFrameBinding = BufferBinding(
    "frame", .readWrite, "uvec2 pixels[]", "RGBA16F: R | G << 16, B | A << 16 as half floats")
