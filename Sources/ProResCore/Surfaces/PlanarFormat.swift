/// A decoder's native planar pixel format: 16-bit little-endian words holding
/// LSB-aligned samples (yuv422p10le, yuva444p12le, ...). ProResFFmpeg maps it
/// to and from FFmpeg's AVPixelFormat.
public struct PlanarFormat: Hashable, Sendable, CustomStringConvertible {
    public let bitDepth: Int
    public let chroma: ProResFrameHeader.Chroma
    public let hasAlpha: Bool

    /// The format FFmpeg's ProRes decoder will choose for this stream.
    public init(decoding chroma: ProResFrameHeader.Chroma, bitDepth: Int, alpha: Bool) {
        self.chroma = chroma
        self.bitDepth = bitDepth
        hasAlpha = alpha
    }

    /// FFmpeg's name, e.g. "yuva444p12le".
    public var name: String { "yuv\(hasAlpha ? "a" : "")\(chroma == .c444 ? "444" : "422")p\(bitDepth)le" }
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
