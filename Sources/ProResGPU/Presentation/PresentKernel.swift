import GPUKit
import ProResCore

/// `present.comp`: the last pass of `play`. Each invocation is one pixel of
/// the swapchain image: it samples the converted frame (nearest, scaled to
/// fit with the aspect kept, black around it), converts it for the display
/// colour path and packs it into the staging buffer the swapchain image is
/// copied from (a storage buffer: lavapipe cannot write the image directly).
enum PresentKernel {
    static let interface = KernelInterface(
        shader: "present.comp", workgroupSize: 64,
        bindings: [
            BufferBinding(
                "frame", .read, "uvec2 pixels[]", "RGBA16F linear Display P3, straight alpha: R | G << 16, B | A << 16"),
            BufferBinding(
                "target", .write, "uint words[]", "the image's pixels: 1 word a pixel (8-bit, 10-bit), 2 for FP16"),
        ],
        push: PushLayout(
            blockName: "PresentParameters",
            fields: [
                ("toDisplay0", .vec4, "xyz = row 0 of Display P3 → the path's primaries"),
                ("toDisplay1", .vec4, "xyz = row 1"),
                ("toDisplay2", .vec4, "xyz = row 2"),
                ("sourceWidth", .uint, "the frame's pixels per row"),
                ("sourceHeight", .uint, "the frame's rows"),
                ("targetWidth", .uint, "the image's pixels per row"),
                ("targetHeight", .uint, "the image's rows"),
                ("originX", .int, "image x of the frame's left edge"),
                ("originY", .int, "image y of the frame's top edge"),
                ("sourcePerTargetX", .float, "frame pixels per image pixel, across"),
                ("sourcePerTargetY", .float, "frame rows per image row"),
                ("path", .uint, "0 SDR sRGB, 1 scRGB linear FP16, 2 PQ BT.2020 10-bit"),
                ("redFirst", .uint, "1: R in the low bits (RGBA8, A2B10G10R10); 0: B first"),
                ("pqScale", .float, "PQ: linear 1.0 in units of 10000 cd/m² (reference white / 10000)"),
            ]))

    /// The matrix from linear Display P3 to the path's primaries.
    static func toDisplay(_ path: DisplayColourPath) -> Matrix3 {
        let target: ColorPrimariesSpec = path == .pq ? .bt2020 : .bt709
        return ColorPrimariesSpec.rgbToP3D65(primaries: target).inverse!
    }

    static func values(
        path: DisplayColourPath, format: SurfaceFormat, source: (width: Int, height: Int),
        target: (width: Int, height: Int), referenceWhite: Double, pixelAspect: Double = 1
    ) -> [PushValue] {
        let matrix = toDisplay(path)
        // Fit the frame in the image, centred, with its display aspect kept:
        // a pixel is `pixelAspect` (the sample aspect ratio) times as wide as tall.
        let aspect = pixelAspect.isFinite && pixelAspect > 0 ? pixelAspect : 1
        let displayWidth = Double(source.width) * aspect
        let scale = min(Double(target.width) / displayWidth, Double(target.height) / Double(source.height))
        let shown = (
            width: Int((displayWidth * scale).rounded()), height: Int((Double(source.height) * scale).rounded())
        )
        let pathCode: Int = path == .sdr ? 0 : path == .scRGBLinear ? 1 : 2
        let redFirst = [.rgba8Unorm, .rgba8SRGB, .a2b10g10r10, .rgba16Float].contains(format.pixels)
        return matrix.rows.map { .vec4($0, 0) } + [
            .uint(source.width), .uint(source.height), .uint(target.width), .uint(target.height),
            .int(Int32((target.width - shown.width) / 2)), .int(Int32((target.height - shown.height) / 2)),
            .float(1 / (scale * aspect)), .float(1 / scale), .uint(pathCode), .uint(redFirst ? 1 : 0),
            .float(referenceWhite / 10000),
        ]
    }
}
