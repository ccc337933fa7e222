import CFFmpeg
import ProResCore

/// Decodes one damaged frame again, single-threaded, into a surface filled
/// with neutral values first. FFmpeg leaves the slices it cannot decode
/// untouched, so in a reused surface they would show stale pixels from some
/// earlier frame and differ from run to run; here they are always video black
/// with neutral chroma. Clean frames never come through here, so they pay
/// nothing for it.
final class ConcealingDecoder {
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let allocator = DecoderSurfaceAllocator(fillsSurfaces: true)
    private var picture: UnsafeMutablePointer<AVFrame>?
    private let packets = SamplePacket()

    init(format: FormatDescription) throws {
        guard let picture = av_frame_alloc() else { throw ProResDecodeError.decoderUnavailable("out of memory") }
        self.picture = picture
        codec = try allocator.openDecoder(for: format, threads: 1)
    }

    deinit {
        av_frame_free(&picture)
        avcodec_free_context(&codec)
    }

    /// The frame decoded into a pre-filled surface (one use held for the
    /// caller), or nil when no picture came out.
    func decode(_ sample: CompressedSample) -> PixelBuffer? {
        guard let codec, let picture else { return nil }
        guard packets.with(sample, { avcodec_send_packet(codec, $0) }) ?? -1 >= 0,
            avcodec_receive_frame(codec, picture) >= 0
        else { return nil }
        let surface = DecoderSurfaceAllocator.surface(of: picture)
        surface?.retainUse()
        av_frame_unref(picture)
        return surface
    }
}
