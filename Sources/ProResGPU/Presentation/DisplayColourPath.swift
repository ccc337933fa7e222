import GPUKit

/// How `play` shows the converted frames (linear Display P3, straight
/// alpha) on a window surface: picked from what the surface offers.
public enum DisplayColourPath: String, Sendable {
    /// EXTENDED_SRGB_LINEAR + FP16: linear BT.709 primaries, values above
    /// 1.0 and negatives (outside BT.709) kept; 1.0 is the reference white.
    case scRGBLinear = "scRGB linear"
    /// HDR10_ST2084 + 10 bits: PQ-encoded BT.2020, the reference white at
    /// `--reference-white` nits, mastering metadata sent with the frames.
    case pq = "PQ BT.2020"
    /// SRGB_NONLINEAR: highlights rolled off as `--save-format png`,
    /// BT.709 primaries with out-of-gamut values clipped, sRGB-encoded.
    case sdr = "SDR sRGB"
}

/// The path, the surface format it presents in, and why.
public struct DisplayColourChoice: Equatable, Sendable {
    public let path: DisplayColourPath
    public let format: SurfaceFormat
    public let reason: String

    /// The first path the surface can carry, best first. Pure: decided from
    /// the list alone (and whether VK_EXT_swapchain_colorspace was enabled,
    /// without which only SRGB_NONLINEAR may be asked for); nil when the
    /// surface offers no format we can fill.
    public static func choose(from formats: [SurfaceFormat], colorSpaces: Bool = true) -> DisplayColourChoice? {
        if colorSpaces,
            let format = formats.first(where: { $0.colorSpace == .extendedSRGBLinear && $0.pixels == .rgba16Float })
        {
            return DisplayColourChoice(
                path: .scRGBLinear, format: format,
                reason: "the surface offers EXTENDED_SRGB_LINEAR with an FP16 format: HDR kept as extended linear")
        }
        if colorSpaces,
            let format = formats.first(where: {
                $0.colorSpace == .hdr10ST2084 && [.a2b10g10r10, .a2r10g10b10].contains($0.pixels)
            })
        {
            return DisplayColourChoice(
                path: .pq, format: format,
                reason: "the surface offers HDR10_ST2084 with a 10-bit format (no extended linear FP16)")
        }
        let sdr = formats.filter { $0.colorSpace == .srgbNonlinear }
        let why =
            colorSpaces
            ? "the surface offers neither EXTENDED_SRGB_LINEAR FP16 nor HDR10_ST2084 10-bit"
            : "the Vulkan loader lacks VK_EXT_swapchain_colorspace, so only SRGB_NONLINEAR can be asked for"
        // _UNORM first: the frame reaches the image by a copy, so the
        // shader encodes the sRGB curve in either case, and _UNORM says so.
        for pixels in [SurfaceFormat.Pixels.bgra8Unorm, .rgba8Unorm, .bgra8SRGB, .rgba8SRGB] {
            if let format = sdr.first(where: { $0.pixels == pixels }) {
                return DisplayColourChoice(path: .sdr, format: format, reason: why)
            }
        }
        return nil
    }
}
