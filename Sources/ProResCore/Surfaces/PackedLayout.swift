/// Apple's packed 16-bit layouts (kCVPixelFormatType_4444AYpCbCr16 and
/// kCVPixelFormatType_422YpCbCr16). Samples are little-endian and MSB-aligned.
public enum PackedLayout: String, CaseIterable, Sendable {
    /// A, Y', Cb, Cr per pixel: 8 bytes a pixel.
    case y416
    /// Cb, Y'0, Cr, Y'1 per pair of pixels: 8 bytes a pair.
    case v216

    public func bytesPerRow(width: Int) -> Int {
        switch self {
        case .y416: return width * 8
        case .v216: return (width + 1) / 2 * 8
        }
    }

    /// The packed layout that holds a source without resampling or loss.
    public static func native(for chroma: ProResFrameHeader.Chroma) -> PackedLayout {
        chroma == .c444 ? .y416 : .v216
    }
}
