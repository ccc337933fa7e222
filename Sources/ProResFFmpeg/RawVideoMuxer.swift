import CFFmpeg
import ProResCore

/// Native planar frames into a libavformat container: NUT as codec
/// rawvideo, the way `ffmpeg -c:v rawvideo` writes them (the pixel format's
/// own tag), QuickTime ("mov") as v210 (`V210Packing`), the way `ffmpeg -c:v
/// v210` writes them; with frame rate, SAR, field order, colour tags and time
/// code. The bytes go to `write` (the caller's `OutputFile`, so its
/// temporary-name rule holds), never to a path libavformat opens itself;
/// `seek` for a muxer that seeks back (QuickTime).
public final class RawVideoMuxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    private let write: ([UInt8]) throws -> Void
    private let seek: ((Int64, Int32) -> Int64)?
    /// QuickTime: frames repacked as v210.
    private let packsV210: Bool
    private let width: Int, height: Int
    private let sourceTimeBase: AVRational
    private let fallbackRate: AVRational
    private var written: Int64 = 0
    /// Where the last frame written ends, in the stream's time base.
    private var end: Int64?
    /// The input's sound, interleaved with the frames (nil: none).
    private let audio: AudioCopy?
    /// The error `write` threw inside libavformat's callback, rethrown after.
    private var writeError: Error?
    private let errorPath: String

    /// `formatName`: libavformat's muxer ("nut", "mov"). `errorPath` names the output in errors.
    /// `firstFrame`: the source frame written first (`--start`), whose time code the output carries.
    /// `audio`: the input's sound tracks to carry beside the frames.
    public init(
        formatName: String, format: FormatDescription, firstFrame: Int = 0, errorPath: String,
        write: @escaping ([UInt8]) throws -> Void, seek: ((Int64, Int32) -> Int64)? = nil, audio: AudioCopy? = nil
    ) throws {
        self.audio = audio
        self.write = write
        self.seek = seek
        self.errorPath = errorPath
        packsV210 = formatName == "mov"
        width = format.width
        height = format.height
        var made: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_alloc_output_context2(&made, nil, formatName, nil)
        guard status >= 0, let made, let stream = avformat_new_stream(made, nil) else {
            if let made { avformat_free_context(made) }
            throw ProResDecodeError.output(path: errorPath, reason: "this FFmpeg has no \(formatName) muxer")
        }
        context = made
        self.stream = stream
        // An elementary stream counts frames; without a rate, ffmpeg's raw default (25 fps).
        let rate = format.frameRate ?? (25, 1)
        fallbackRate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
        sourceTimeBase =
            format.frameRate == nil || format.containerName == "prores elementary stream"
            ? AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
            : AVRational(num: Int32(format.timeBase.numerator), den: Int32(format.timeBase.denominator))
        // Reproducible files: no library version strings in the header.
        made.pointee.flags |= AVFMT_FLAG_BITEXACT
        describe(stream, format, firstFrame: firstFrame)
        do {
            try audio?.addStreams(to: made, errorPath: errorPath)
            try openIO()
            var options: OpaquePointer?
            let header = avformat_write_header(made, &options)
            av_dict_free(&options)
            try check(header, "writing the header")
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private func describe(_ stream: UnsafeMutablePointer<AVStream>, _ format: FormatDescription, firstFrame: Int) {
        let parameters = stream.pointee.codecpar!
        let pixelFormat = format.nativeFormat.avPixelFormat
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        if packsV210 {
            parameters.pointee.codec_id = AV_CODEC_ID_V210
            parameters.pointee.codec_tag = Self.tag("v210")
            parameters.pointee.bits_per_coded_sample = 20  // what FFmpeg's v210 encoder says
        } else {
            parameters.pointee.codec_id = AV_CODEC_ID_RAWVIDEO
            parameters.pointee.codec_tag = avcodec_pix_fmt_to_codec_tag(pixelFormat)
        }
        parameters.pointee.format = pixelFormat.rawValue
        parameters.pointee.width = Int32(format.width)
        parameters.pointee.height = Int32(format.height)
        let sar = format.sampleAspectRatio ?? (1, 1)
        parameters.pointee.sample_aspect_ratio = AVRational(num: Int32(sar.numerator), den: Int32(sar.denominator))
        stream.pointee.sample_aspect_ratio = parameters.pointee.sample_aspect_ratio
        parameters.pointee.field_order =
            switch format.fieldOrder {
            case .progressive: AV_FIELD_PROGRESSIVE
            case .topFieldFirst: AV_FIELD_TT
            case .bottomFieldFirst: AV_FIELD_BB
            }
        // Stored where the container has a field for them: QuickTime's colr
        // (primaries, transfer, matrix; no range); NUT in FFmpeg 5.1 has none.
        // Only what the source (or the user) stated: a fallback is a guess
        // for conversions, and written down it would read as a fact.
        let tags = format.colorTags
        let unspecified = 2
        parameters.pointee.color_primaries = AVColorPrimaries(
            rawValue: numericCast(ColorTags.stated(tags.primaries) ?? unspecified))
        parameters.pointee.color_trc = AVColorTransferCharacteristic(
            rawValue: numericCast(ColorTags.stated(tags.transfer) ?? unspecified))
        parameters.pointee.color_space = AVColorSpace(
            rawValue: numericCast(ColorTags.stated(tags.matrix) ?? unspecified))
        parameters.pointee.color_range = tags.range.value == .full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        stream.pointee.avg_frame_rate = fallbackRate
        stream.pointee.r_frame_rate = fallbackRate
        stream.pointee.time_base = av_inv_q(fallbackRate)
        if let timecode = format.timecode(atFrame: firstFrame) {
            av_dict_set(&stream.pointee.metadata, "timecode", timecode.text, 0)
        }
    }

    private func openIO() throws {
        let size = 1 << 16
        guard let buffer = av_malloc(size) else { throw FFmpegError(PD_AVERROR_ENOMEM) }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        let seeker: (@convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64)? =
            seek == nil
            ? nil
            : { opaque, offset, whence in
                let muxer = Unmanaged<RawVideoMuxer>.fromOpaque(opaque!).takeUnretainedValue()
                // AVSEEK_SIZE asks for the size, which a file being written need not tell.
                return whence & 0x10000 != 0 ? -1 : muxer.seek!(offset, whence)
            }
        guard
            let io = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 1, opaque, nil,
                { opaque, bytes, count in
                    let muxer = Unmanaged<RawVideoMuxer>.fromOpaque(opaque!).takeUnretainedValue()
                    return muxer.accept(bytes!, Int(count))
                }, seeker)
        else {
            av_free(buffer)
            throw FFmpegError(PD_AVERROR_ENOMEM)
        }
        context!.pointee.pb = io
        context!.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    private func accept(_ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int32 {
        do {
            try write(Array(UnsafeBufferPointer(start: bytes, count: count)))
            return Int32(count)
        } catch {
            writeError = error
            return pd_averror(EIO)
        }
    }

    /// One frame: `spans` concatenated are its bytes. `pts` in the source's
    /// time base; frames without one follow the last.
    public func writeFrame(pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        guard let context else { return }
        if packsV210 {
            let planar = spans.reduce(into: [UInt8]()) { $0.append(contentsOf: $1) }
            let packed = V210Packing.pack(planar, width: width, height: height)
            return try packed.withUnsafeBytes { try writePacket(pts: pts, spans: [$0], context: context) }
        }
        try writePacket(pts: pts, spans: spans, context: context)
    }

    private func writePacket(
        pts: Int64?, spans: [UnsafeRawBufferPointer], context: UnsafeMutablePointer<AVFormatContext>
    ) throws {
        let size = spans.reduce(0) { $0 + $1.count }
        guard let packet = av_packet_alloc() else { throw FFmpegError(PD_AVERROR_ENOMEM) }
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&owned) }
        try check(av_new_packet(packet, Int32(size)), "allocating a packet")
        var at = packet.pointee.data!
        for span in spans where span.count > 0 {
            at.update(from: span.baseAddress!.assumingMemoryBound(to: UInt8.self), count: span.count)
            at += span.count
        }
        let time = pts.map { av_rescale_q($0, sourceTimeBase, stream.pointee.time_base) } ?? written
        packet.pointee.pts = time
        packet.pointee.dts = time
        packet.pointee.duration = av_rescale_q(1, av_inv_q(fallbackRate), stream.pointee.time_base)
        packet.pointee.flags |= AV_PKT_FLAG_KEY
        packet.pointee.stream_index = stream.pointee.index
        written = time + 1
        end = time + packet.pointee.duration
        guard let audio else { return try check(av_write_frame(context, packet), "writing a frame") }
        // The sound that begins before this frame goes first; the muxer interleaves the rest.
        try audio.write(before: time, base: stream.pointee.time_base, into: context, errorPath: errorPath)
        try check(av_interleaved_write_frame(context, packet), "writing a frame")
    }

    /// Writes the trailer and flushes: the container is complete.
    public func finish() throws {
        guard let context else { return }
        try audio?.finish(end: end, base: stream.pointee.time_base, into: context, errorPath: errorPath)
        try check(av_write_trailer(context), "writing the trailer")
        avio_flush(context.pointee.pb)
        if let writeError { throw writeError }
        release()
    }

    private static func tag(_ fourCC: String) -> UInt32 {
        fourCC.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func check(_ status: Int32, _ what: String) throws {
        if let writeError { throw writeError }
        if status < 0 { throw ProResDecodeError.output(path: errorPath, reason: "\(what): \(FFmpegError(status))") }
    }

    private func release() {
        guard let context else { return }
        self.context = nil
        // Custom I/O: the context and its buffer are ours to free, not libavformat's.
        if context.pointee.pb != nil {
            av_freep(&context.pointee.pb.pointee.buffer)
            avio_context_free(&context.pointee.pb)
        }
        avformat_free_context(context)
    }
}
