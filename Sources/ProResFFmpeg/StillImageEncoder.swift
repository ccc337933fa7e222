import CFFmpeg
import ProResCore

/// One picture through a libavcodec image encoder (PNG, EXR), returned as the
/// encoded file's bytes (`FrameSaver`); `png16`, for `check --previews`,
/// through our own `PNGEncoder`, which compresses on every core.
public enum StillImageEncoder {
    /// What is encoded, and the planes `fill` is handed.
    public enum Kind {
        /// Half-float EXR (zip16) from four float32 planes in FFmpeg's G, B, R, A order.
        case exrHalfGBRA
        /// 16-bit PNG from one plane of big-endian RGBA samples.
        case pngRGBA64

        fileprivate var settings:
            (codec: AVCodecID, name: String, pixelFormat: AVPixelFormat, options: [(String, String)])
        {
            switch self {
            case .exrHalfGBRA:
                return (AV_CODEC_ID_EXR, "exr", AV_PIX_FMT_GBRAPF32LE, [("format", "half"), ("compression", "zip16")])
            // zlib level 3 rather than FFmpeg's default: a 4K 16-bit PNG (50 MB
            // of samples) compresses several times faster, a few % larger.
            case .pngRGBA64: return (AV_CODEC_ID_PNG, "png", AV_PIX_FMT_RGBA64BE, [("compression_level", "3")])
            }
        }
    }

    /// One plane of the picture being filled: rows `bytesPerRow` apart.
    public struct Plane {
        public let base: UnsafeMutableRawPointer
        public let bytesPerRow: Int
    }

    /// `fill` writes the pixels into the planes libavutil allocated.
    /// Errors name `errorPath`.
    public static func encode(
        _ kind: Kind, width: Int, height: Int, errorPath: String,
        fill: ([Plane]) -> Void
    ) throws -> [UInt8] {
        let (id, name, pixelFormat, pairs) = kind.settings
        guard let codec = avcodec_find_encoder(id) else {
            throw ProResDecodeError.output(path: errorPath, reason: "this FFmpeg has no \(name) encoder")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let context else { throw ProResDecodeError.output(path: errorPath, reason: "out of memory") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.time_base = AVRational(num: 1, den: 25)
        context.pointee.pix_fmt = pixelFormat
        var options: OpaquePointer?
        for (key, value) in pairs { av_dict_set(&options, key, value, 0) }
        defer { av_dict_free(&options) }
        var status = avcodec_open2(context, codec, &options)
        guard status >= 0 else {
            throw ProResDecodeError.output(
                path: errorPath, reason: "cannot open the \(name) encoder: \(FFmpegError(status))")
        }
        var picture = av_frame_alloc()
        defer { av_frame_free(&picture) }
        guard let picture else { throw ProResDecodeError.output(path: errorPath, reason: "out of memory") }
        picture.pointee.width = Int32(width)
        picture.pointee.height = Int32(height)
        picture.pointee.format = pixelFormat.rawValue
        guard av_frame_get_buffer(picture, 0) >= 0 else {
            throw ProResDecodeError.output(path: errorPath, reason: "out of memory")
        }
        let planeCount = kind == .exrHalfGBRA ? 4 : 1
        let planes = withUnsafeBytes(of: picture.pointee.data) { data in
            withUnsafeBytes(of: picture.pointee.linesize) { linesize in
                (0..<planeCount).map {
                    Plane(
                        base: UnsafeMutableRawPointer(
                            data.load(fromByteOffset: $0 * 8, as: UnsafeMutablePointer<UInt8>.self)),
                        bytesPerRow: Int(linesize.load(fromByteOffset: $0 * 4, as: Int32.self)))
                }
            }
        }
        fill(planes)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        status = avcodec_send_frame(context, picture)
        if status >= 0 { status = avcodec_send_frame(context, nil) }
        if status >= 0 { status = avcodec_receive_packet(context, packet) }
        guard status >= 0, let packet else {
            throw ProResDecodeError.output(path: errorPath, reason: "\(name) encoding failed: \(FFmpegError(status))")
        }
        return Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }

    /// A 16-bit PNG (RGB for 3 channels, RGBA for 4) from samples
    /// interleaved per pixel, row after row with no padding, compressed on
    /// every core (`PNGEncoder`).
    public static func png16(_ samples: [UInt16], width: Int, height: Int, channels: Int, errorPath: String) throws
        -> [UInt8]
    {
        try PNGEncoder.encode16(samples, width: width, height: height, channels: channels, errorPath: errorPath)
    }
}
