import GPUKit
import ProResCore

/// `convert_to_p3.comp`'s interface: the colour parameters `ConversionSpec`
/// computed (as `ConversionParameters`), then the dispatch's geometry. The
/// offset and the HLG weights ride in the w slots that std430 pads anyway.
enum ConversionKernel {
    static let shader = "convert_to_p3.comp"

    static let push = PushLayout(
        blockName: "ConversionParameters",
        fields: [
            ("ycbcrColumn0", .vec4, "xyz = M column 0, w = o.r"),
            ("ycbcrColumn1", .vec4, "xyz = M column 1, w = o.g"),
            ("ycbcrColumn2", .vec4, "xyz = M column 2, w = o.b"),
            ("gamutColumn0", .vec4, "xyz = G column 0, w = HLG weight R"),
            ("gamutColumn1", .vec4, "xyz = G column 1, w = HLG weight G"),
            ("gamutColumn2", .vec4, "xyz = G column 2, w = HLG weight B"),
            ("transfer", .uint, "0 linear, 1 bt1886, 2 srgb, 3 pq, 4 hlg"),
            ("referenceWhite", .float, "nits that map to 1.0 (PQ, HLG)"),
            ("hlgPeakLuminance", .float, "HLG OOTF Lw (nits)"),
            ("hlgSystemGamma", .float, "HLG OOTF gamma"),
            ("width", .uint, "pixels per row"),
            ("height", .uint, "rows"),
            ("layoutKind", .uint, "0 y416, 1 v216"),
            ("sourceWordsPerRow", .uint, "32-bit words per source row"),
        ])

    /// The push values, in `push`'s order.
    static func values(_ p: ConversionParameters, width: Int, height: Int, layout: PackedLayout, sourceBytesPerRow: Int)
        -> [PushValue]
    {
        [
            .vec4(p.ycbcrColumn0), .vec4(p.ycbcrColumn1), .vec4(p.ycbcrColumn2),
            .vec4(p.gamutColumn0), .vec4(p.gamutColumn1), .vec4(p.gamutColumn2),
            .uint(p.transfer), .float(p.referenceWhite), .float(p.hlgPeakLuminance), .float(p.hlgSystemGamma),
            .uint(width), .uint(height), .uint(layout == .y416 ? 0 : 1), .uint(sourceBytesPerRow / 4),
        ]
    }

    /// The variant for `layout`; `pairs` (even widths) converts two pixels an
    /// invocation with wide loads and a 16-byte store.
    static func interface(_ layout: PackedLayout, pairs: Bool) -> KernelInterface {
        let source: String
        switch (pairs, layout) {
        case (true, .v216): source = "uvec2 pairs[]"  // one pixel pair: Cb|Y'0, Cr|Y'1
        case (true, .y416): source = "uvec4 quads[]"  // two pixels: A|Y', Cb|Cr, A|Y', Cb|Cr
        case (false, _): source = "uint words[]"  // y416: 2 words a pixel; v216: 2 words a pair
        }
        var defines: [(name: String, value: String)] = []
        if pairs { defines.append(("PAIRS", "1")) }
        if layout == .v216 { defines.append(("V216", "1")) }
        return KernelInterface(
            shader: shader, workgroupSize: 128, defines: defines,
            bindings: [
                BufferBinding("src", .read, source, "the \(layout) surface"),
                BufferBinding(
                    "dst", .write, pairs ? "uvec4 pixelPairs[]" : "uvec2 pixels[]", "RGBA16F, 8 bytes a pixel"),
            ], push: push)
    }
}
