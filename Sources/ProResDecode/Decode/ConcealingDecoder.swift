import CFFmpeg

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

    init(format: FormatDescription) throws {
        guard let decoder = avcodec_find_decoder(AV_CODEC_ID_PRORES), let codec = avcodec_alloc_context3(decoder),
              let picture = av_frame_alloc() else {
            throw ProResDecodeError.decoderUnavailable("out of memory")
        }
        self.codec = codec
        self.picture = picture
        codec.pointee.codec_tag = format.codecTag
        codec.pointee.width = Int32(format.width)
        codec.pointee.height = Int32(format.height)
        codec.pointee.thread_count = 1
        allocator.install(on: codec)
        let status = avcodec_open2(codec, decoder, nil)
        guard status >= 0 else {
            throw ProResDecodeError.decoderUnavailable("cannot open FFmpeg's ProRes decoder: \(FFmpegError(status))")
        }
    }

    deinit {
        av_frame_free(&picture)
        avcodec_free_context(&codec)
    }

    /// The frame decoded into a pre-filled surface (one use held for the
    /// caller), or nil when no picture came out.
    func decode(_ sample: CompressedSample) -> PixelBuffer? {
        guard let codec, let picture else { return nil }
        guard avcodec_send_packet(codec, sample.packet) >= 0, avcodec_receive_frame(codec, picture) >= 0 else { return nil }
        let surface = DecoderSurfaceAllocator.surface(of: picture)
        surface?.retainUse()
        av_frame_unref(picture)
        return surface
    }
}
