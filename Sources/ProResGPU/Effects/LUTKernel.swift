import GPUKit
import ProResCore

/// `effect_lut3d.comp`: coordinate = shaped · scale + offset, with
/// scale = 1 / (max − min) and offset = −min · scale per channel.
struct LUTKernel: EffectKernel {
    let effect: LUTEffect

    static let push = PushLayout(
        blockName: "LUTParameters",
        fields: [
            ("inputScale", .vec4, "xyz = 1 / (domain max - min), w = reference white / 10000 (PQ)"),
            ("inputOffset", .vec4, "xyz = -domain min * scale, w = 10000 / reference white (PQ)"),
            ("size", .uint, "entries per axis"),
            ("shaper", .uint, "0 linear, 1 PQ"),
            ("width", .uint, "pixels per row"),
            ("height", .uint, "rows"),
        ])

    func interface(source: PackedLayout) -> KernelInterface {
        KernelInterface(
            shader: "effect_lut3d.comp", workgroupSize: effectWorkgroupSize,
            bindings: [
                effectFrameBinding,
                BufferBinding(
                    "lut", .read, "float values[]",
                    "size³ entries of R, G, B as float32, red fastest: entry r + size * (g + size * b)"),
            ], push: Self.push)
    }

    func table() -> [Float]? { effect.lut.values }

    func arguments(_ frame: EffectChain.Frame, table: VulkanBuffer?) -> (buffers: [BufferRange], push: [PushValue]) {
        (
            [BufferRange(frame.output, bytes: frame.width * frame.height * 8), BufferRange(table!)],
            Self.values(effect, width: frame.width, height: frame.height)
        )
    }

    static func values(_ effect: LUTEffect, width: Int, height: Int) -> [PushValue] {
        let lut = effect.lut
        let scale = 1 / (lut.domainMax - lut.domainMin)
        let white: Double
        switch effect.shaper {
        case .pq(let referenceWhite): white = referenceWhite
        case .linear: white = TransferFunction.pqPeak
        }
        return [
            .vec4(scale, white / TransferFunction.pqPeak),
            .vec4(-lut.domainMin * scale, TransferFunction.pqPeak / white),
            .uint(lut.size), .uint(effect.shaper == .linear ? 0 : 1), .uint(width), .uint(height),
        ]
    }
}
