import GPUKit
import ProResCore

/// `effect_chroma_key.comp`: the key's (Cb, Cr) under the frame's matrix,
/// the range's chroma de-quantisation, and the source's geometry. The
/// source surface is read as the conversion read it.
struct ChromaKeyKernel: EffectKernel {
    let key: ChromaKey

    static let push = PushLayout(
        blockName: "ChromaKeyParameters",
        fields: [
            ("key", .vec4, "x = key Cb, y = key Cr, z = tolerance, w = 1 / softness"),
            ("chromaCentre", .float, "code of Cb = Cr = 0"),
            ("chromaScale", .float, "1 / code span of Cb or Cr from -1/2 to +1/2"),
            ("width", .uint, "pixels per row"),
            ("height", .uint, "rows"),
            ("sourceWordsPerRow", .uint, "32-bit words per source row"),
        ])

    func interface(source: PackedLayout) -> KernelInterface {
        KernelInterface(
            shader: "effect_chroma_key.comp", workgroupSize: effectWorkgroupSize,
            defines: source == .v216 ? [("V216", "1")] : [],
            bindings: [
                BufferBinding(
                    "src", .read, "uint words[]",
                    "y416: A | Y' << 16, Cb | Cr << 16; v216: Cb | Y'0 << 16, Cr | Y'1 << 16"),
                // Read as words: only each pixel's B | A word (2i + 1) changes.
                BufferBinding(
                    "frame", .readWrite, "uint words[]",
                    "RGBA16F as 32-bit words: R | G << 16, B | A << 16 as half floats"),
            ], push: Self.push)
    }

    func arguments(_ frame: EffectChain.Frame, table: VulkanBuffer?) -> (buffers: [BufferRange], push: [PushValue]) {
        guard let spec = frame.spec else { preconditionFailure("the chroma key needs the frame's colour description") }
        return (
            [
                BufferRange(frame.source, offset: frame.sourceOffset, bytes: frame.sourceBytes),
                BufferRange(frame.output, bytes: frame.width * frame.height * 8),
            ],
            Self.values(
                key, matrix: spec.ycbcr, range: spec.range, width: frame.width, height: frame.height,
                sourceBytesPerRow: frame.sourceBytesPerRow)
        )
    }

    /// Softness 0 becomes the largest finite Float, so the ramp is a step at
    /// the tolerance without dividing by zero.
    static func values(
        _ key: ChromaKey, matrix: YCbCrToRGB, range: ColorRange, width: Int, height: Int,
        sourceBytesPerRow: Int
    ) -> [PushValue] {
        let chroma = key.keyChroma(matrix)
        let quantisation = CodeQuantisation(range)
        return [
            .vec4(
                SIMD3(chroma.x, chroma.y, key.tolerance),
                key.softness > 0 ? 1 / key.softness : Double(Float.greatestFiniteMagnitude)),
            .float(quantisation.cCentre), .float(1 / quantisation.cExcursion),
            .uint(width), .uint(height), .uint(sourceBytesPerRow / 4),
        ]
    }
}
