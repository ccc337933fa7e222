import GPUKit
import ProResCore

/// `frame_stats.comp`'s interface: the packed surfaces it reads, the
/// per-workgroup partials it writes, the push block and the compile-time
/// facts of one stream (layout, alpha, transfer).
enum FrameStatisticsKernel {
    static let shader = "frame_stats.comp"
    static let workgroupSize = 128
    /// Rows one workgroup reduces. 4 so that each band starts on a light
    /// grid row and on a still grid row (`StillGrid.rowStep`), and small
    /// enough for 32-bit sums: ProRes widths are below 2^16, so 4 · 65535 ·
    /// 4095 (12-bit codes) < 2^32.
    static let rowsPerGroup = 4

    /// 0: no light; else `TransferFunction.rawValue` (3 PQ, 4 HLG).
    static func transferFact(_ light: LightLevelMeter?) -> Int { light.map { Int($0.spec.transfer.rawValue) } ?? 0 }

    static let push = PushLayout(
        blockName: "FrameStatisticsParameters",
        fields: [
            ("matrixRow0", .vec4, "xyz = Y'CbCr → R'G'B' row 0, w = HLG weight R"),
            ("matrixRow1", .vec4, "xyz = row 1, w = HLG weight G"),
            ("matrixRow2", .vec4, "xyz = row 2, w = HLG weight B"),
            ("quantisation", .vec4, "yBlack, yExcursion, cCentre, cExcursion (16-bit codes)"),
            ("hlgPeakLuminance", .float, "HLG OOTF Lw (nits)"),
            ("hlgSystemGamma", .float, "HLG OOTF gamma"),
            ("width", .uint, "pixels per row"),
            ("height", .uint, "rows"),
            ("wordsPerRow", .uint, "32-bit words per surface row"),
            ("frameStrideWords", .uint, "32-bit words from one frame's surface to the next"),
            ("shift", .uint, "16 − bit depth: native code = word >> shift"),
            ("alphaMax", .uint, "the largest alpha code, 2^depth − 1"),
            ("lumaLow", .uint, "Y' below this is out of range"),
            ("lumaHigh", .uint, "Y' above this is out of range"),
            ("chromaLow", .uint, "Cb, Cr below this are out of range"),
            ("chromaHigh", .uint, "Cb, Cr above this are out of range"),
            ("darkThreshold", .uint, "Y' at or below this is dark (DarkPixels)"),
        ])

    static func interface(layout: PackedLayout, alpha: Bool, light: LightLevelMeter?, gamut: Bool = false)
        -> KernelInterface
    {
        var defines: [(name: String, value: String)] = [
            ("TRANSFER", "\(transferFact(light))"), ("ROWS_PER_GROUP", "\(rowsPerGroup)u"),
            ("GRID_STEP", "\(LightLevelMeter.gridStep)u"), ("STILL_STEP", "\(StillGrid.columnStep)u"),
        ]
        if layout == .v216 { defines.append(("V216", "1")) }
        if alpha { defines.append(("ALPHA", "1")) }
        if gamut {
            defines.append(("GAMUT", "1"))
            defines.append(("GAMUT_TOLERANCE", "\(Float(GamutMeter.tolerance))"))
        }
        return KernelInterface(
            shader: shader, workgroupSize: workgroupSize, defines: defines,
            bindings: [
                BufferBinding(
                    "surfaces", .read, "uint words[]", "the batch's \(layout) surfaces, one every frameStrideWords"),
                BufferBinding(
                    "partials", .write, "uvec4 words[]",
                    "4 uvec4 and a still grid row a workgroup (FrameStatisticsPass.Partial)"),
            ], push: push)
    }
}
