import CFFmpeg

/// A decoder's native planar pixel format: 16-bit little-endian words holding
/// LSB-aligned samples (yuv422p10le, yuva444p12le, ...).
public struct PlanarFormat: Hashable, Sendable, CustomStringConvertible {
    public let pixelFormat: Int32
    public let bitDepth: Int
    public let chroma: ProResFrameHeader.Chroma
    public let hasAlpha: Bool

    /// Accepts only the shapes ProRes decodes to; nil for anything else.
    public init?(avPixelFormat: AVPixelFormat) {
        guard let desc = av_pix_fmt_desc_get(avPixelFormat)?.pointee else { return nil }
        let flags = Int32(desc.flags)
        guard flags & Int32(AV_PIX_FMT_FLAG_PLANAR) != 0, flags & Int32(AV_PIX_FMT_FLAG_BE) == 0,
              desc.log2_chroma_h == 0, desc.log2_chroma_w <= 1,
              desc.comp.0.step == 2, desc.comp.0.depth > 8, desc.comp.0.depth <= 16
        else { return nil }
        let alpha = flags & Int32(AV_PIX_FMT_FLAG_ALPHA) != 0
        guard Int(desc.nb_components) == (alpha ? 4 : 3) else { return nil }
        pixelFormat = avPixelFormat.rawValue
        bitDepth = Int(desc.comp.0.depth)
        chroma = desc.log2_chroma_w == 1 ? .c422 : .c444
        hasAlpha = alpha
    }

    /// The format FFmpeg's ProRes decoder will choose for this stream.
    public init(decoding chroma: ProResFrameHeader.Chroma, bitDepth: Int, alpha: Bool) {
        let name = "yuv\(alpha ? "a" : "")\(chroma == .c444 ? "444" : "422")p\(bitDepth)le"
        self.init(avPixelFormat: av_get_pix_fmt(name))!
    }

    public var avPixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pixelFormat) }

    /// FFmpeg's name, e.g. "yuva444p12le".
    public var name: String { av_get_pix_fmt_name(avPixelFormat).map { String(cString: $0) } ?? "pix_fmt \(pixelFormat)" }
    public var description: String { name }

    public var planeCount: Int { hasAlpha ? 4 : 3 }

    /// Samples per row of plane `index` (0 Y', 1 Cb, 2 Cr, 3 A).
    public func planeWidth(_ index: Int, width: Int) -> Int {
        (index == 1 || index == 2) && chroma == .c422 ? (width + 1) / 2 : width
    }

    /// Bytes of one tightly packed frame, planes concatenated (`ffmpeg -f rawvideo`).
    public func tightByteCount(width: Int, height: Int) -> Int {
        (0..<planeCount).reduce(0) { $0 + planeWidth($1, width: width) * 2 * height }
    }
}
