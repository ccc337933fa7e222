/// The legal codes of video ("limited", "narrow") range at a bit depth:
/// Y′ 16..235 and Cb, Cr 16..240 at 8 bits, scaled by 2^(depth − 8)
/// (10 bits: 64..940 and 64..960; 12 bits: 256..3760 and 256..3840).
///
/// Why a statistic of its own: codes below black or above white are legal
/// in the bitstream (footroom, headroom) but many delivery specs reject
/// them, and a decoder bug that overflows shows up here first. Full-range
/// streams have no such limits; their counts are reported as nil.
public struct VideoRangeLimits: Sendable, Equatable {
    public let lumaLow: Int
    public let lumaHigh: Int
    public let chromaLow: Int
    public let chromaHigh: Int

    public init(bitDepth: Int) {
        precondition(bitDepth >= 8 && bitDepth <= 16, "video range is defined from 8 bits up")
        let scale = bitDepth - 8
        lumaLow = 16 << scale
        lumaHigh = 235 << scale
        chromaLow = 16 << scale
        chromaHigh = 240 << scale
    }

    /// The limits for `range`: nil for full range, where every code is legal.
    public init?(range: ColorRange, bitDepth: Int) {
        guard range == .video else { return nil }
        self.init(bitDepth: bitDepth)
    }
}
