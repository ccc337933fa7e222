import GPUKit

/// `preview_thumbnail.comp`'s interface: the converted frame it reads, the
/// float32 thumbnail it writes, and the sizes. One invocation an output
/// pixel; workgroups cover a row along x and the rows along y.
enum PreviewThumbnailKernel {
    static let interface = KernelInterface(
        shader: "preview_thumbnail.comp", workgroupSize: 64,
        bindings: [
            BufferBinding(
                "source", .read, "uint words[]", "RGBA16F linear Display P3, straight alpha: R | G << 16, B | A << 16"),
            BufferBinding("thumbnail", .write, "vec4 pixels[]", "RGBA float32, straight alpha, rows of targetWidth"),
        ],
        push: PushLayout(
            blockName: "ThumbnailParameters",
            fields: [
                ("sourceWidth", .uint, "the frame's pixels per row (below 2^16)"),
                ("sourceHeight", .uint, "the frame's rows (below 2^16)"),
                ("targetWidth", .uint, "the thumbnail's pixels per row, 1...sourceWidth"),
                ("targetHeight", .uint, "the thumbnail's rows, 1...sourceHeight"),
            ]))
}
