import GPUKit
import ProResCore

/// `effect_matrix.comp`: rgb' = M · rgb (sepia, exposure, saturation; the
/// matrix from `ColorMatrixEffects`).
struct MatrixEffectKernel: EffectKernel {
    let matrix: Matrix3

    static let push = PushLayout(
        blockName: "MatrixEffectParameters",
        fields: [
            ("column0", .vec4, "xyz = M column 0"),
            ("column1", .vec4, "xyz = M column 1"),
            ("column2", .vec4, "xyz = M column 2"),
            ("width", .uint, "pixels per row"),
            ("height", .uint, "rows"),
        ])

    func interface(source: PackedLayout) -> KernelInterface {
        KernelInterface(
            shader: "effect_matrix.comp", workgroupSize: effectWorkgroupSize, bindings: [effectFrameBinding],
            push: Self.push)
    }

    func arguments(_ frame: EffectChain.Frame, table: VulkanBuffer?) -> (buffers: [BufferRange], push: [PushValue]) {
        (
            [BufferRange(frame.output, bytes: frame.width * frame.height * 8)],
            (0..<3).map { .vec4(matrix.column($0), 0) } + [.uint(frame.width), .uint(frame.height)]
        )
    }
}
