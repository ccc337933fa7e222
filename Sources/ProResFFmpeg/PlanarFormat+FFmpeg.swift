import CFFmpeg
import ProResCore

extension PlanarFormat {
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
        self.init(decoding: desc.log2_chroma_w == 1 ? .c422 : .c444, bitDepth: Int(desc.comp.0.depth), alpha: alpha)
    }

    /// FFmpeg's pixel format of the same name.
    public var avPixelFormat: AVPixelFormat { av_get_pix_fmt(name) }
}
