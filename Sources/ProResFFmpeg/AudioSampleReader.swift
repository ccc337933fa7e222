import CFFmpeg
import HostSupport
import ProResCore

/// Every sound track of an input decoded by libavcodec, in file order, as
/// interleaved 32-bit float samples at full scale ±1: what `check`
/// measures, and what `play` plays. The input is opened on its own, beside
/// the frames' reader.
public final class AudioSampleReader {
    private struct Track {
        let decoder: UnsafeMutablePointer<AVCodecContext>
        /// Seconds per tick of the stream's timestamps.
        let secondsPerTick: Double
        /// Why the track's decoding stopped; nil while it goes on.
        var problem: String?
    }

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var tracks: [Int: Track] = [:]
    private let displayPath: String
    private var interleaved: [Float] = []
    /// After `seek`: samples before this time, in seconds, are not handed on.
    private var dropBefore: Double?

    /// Opens `input` (a local path or a URL) and a decoder for each of
    /// `indices` (stream indices of sound tracks); throws when the input
    /// cannot be opened. A track without a decoder is a problem of its own.
    public init(input: String, indices: [Int]) throws {
        displayPath = input
        let url = FileURL.localPath(input).map { "file:" + $0 } ?? (FileURL.isRemote(input) ? input : "file:" + input)
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let status = PathBytes.withCString(url) { avformat_open_input(&opened, $0, nil, nil) }
        guard status >= 0, let opened else {
            throw ProResDecodeError.inputUnreadable(
                path: input, reason: "its sound cannot be read: \(FFmpegError(status))")
        }
        context = opened
        let wanted = Set(indices)
        for i in 0..<Int(opened.pointee.nb_streams) {
            guard let stream = opened.pointee.streams[i] else { continue }
            guard wanted.contains(i), stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else {
                stream.pointee.discard = AVDISCARD_ALL
                continue
            }
            if let decoder = Self.openDecoder(stream.pointee.codecpar) {
                let base = stream.pointee.time_base
                let secondsPerTick = base.den > 0 ? Double(base.num) / Double(base.den) : 0
                tracks[i] = Track(decoder: decoder, secondsPerTick: secondsPerTick, problem: nil)
            }
        }
    }

    deinit {
        for track in tracks.values {
            var freeing: UnsafeMutablePointer<AVCodecContext>? = track.decoder
            avcodec_free_context(&freeing)
        }
        var closing = context
        if closing != nil { avformat_close_input(&closing) }
    }

    private static func openDecoder(_ parameters: UnsafeMutablePointer<AVCodecParameters>)
        -> UnsafeMutablePointer<AVCodecContext>?
    {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id),
            let decoder = avcodec_alloc_context3(codec)
        else { return nil }
        guard avcodec_parameters_to_context(decoder, parameters) >= 0, avcodec_open2(decoder, codec, nil) >= 0 else {
            var freeing: UnsafeMutablePointer<AVCodecContext>? = decoder
            avcodec_free_context(&freeing)
            return nil
        }
        return decoder
    }

    /// The stream indices that have a decoder.
    public var decodable: Set<Int> { Set(tracks.keys) }

    /// Moves every track to `seconds` on the container's time line: reading
    /// goes on from the last point at or before it that the container can
    /// seek to, and the samples before `seconds` are dropped, so the next
    /// `read` hands on sound from exactly there. Throws when the input
    /// cannot seek.
    public func seek(toSeconds seconds: Double) throws {
        guard let context else { return }
        let target = Int64((max(0, seconds) * Double(PD_AV_TIME_BASE)).rounded(.down))
        let status = av_seek_frame(context, -1, target, AVSEEK_FLAG_BACKWARD)
        if status < 0 {
            throw ProResDecodeError.inputUnreadable(
                path: displayPath, reason: "its sound cannot be read from \(seconds) s: \(FFmpegError(status))")
        }
        for index in tracks.keys {
            if let decoder = tracks[index]?.decoder { avcodec_flush_buffers(decoder) }
            tracks[index]?.problem = nil
        }
        dropBefore = seconds > 0 ? seconds : nil
    }

    /// Reads to the end, handing each decoded run of samples to `take`
    /// (stream index, interleaved samples, channels); stops early when
    /// `isStopped` says so. Returns why a track stopped decoding, by
    /// stream index (none for a clean read); throws when the input itself
    /// cannot be read on.
    public func read(
        isStopped: () -> Bool, _ take: (Int, UnsafeBufferPointer<Float>, Int) -> Void
    ) throws -> [Int: String] {
        guard let context, let packet = av_packet_alloc(), let frame = av_frame_alloc() else { return [:] }
        var packetOwned: UnsafeMutablePointer<AVPacket>? = packet
        var frameOwned: UnsafeMutablePointer<AVFrame>? = frame
        defer {
            av_packet_free(&packetOwned)
            av_frame_free(&frameOwned)
        }
        while !isStopped() {
            let status = av_read_frame(context, packet)
            if status == PD_AVERROR_EOF { break }
            if status < 0 {
                throw ProResDecodeError.inputUnreadable(
                    path: displayPath, reason: "its sound cannot be read: \(FFmpegError(status))")
            }
            let index = Int(packet.pointee.stream_index)
            if tracks[index]?.problem == nil, let decoder = tracks[index]?.decoder {
                decode(index, decoder, packet, frame, take)
            }
            av_packet_unref(packet)
        }
        for (index, track) in tracks where track.problem == nil && !isStopped() {
            decode(index, track.decoder, nil, frame, take)
        }
        return tracks.compactMapValues(\.problem)
    }

    /// Sends `packet` (nil: the end) to the track's decoder and hands on every frame it gives.
    private func decode(
        _ index: Int, _ decoder: UnsafeMutablePointer<AVCodecContext>, _ packet: UnsafeMutablePointer<AVPacket>?,
        _ frame: UnsafeMutablePointer<AVFrame>, _ take: (Int, UnsafeBufferPointer<Float>, Int) -> Void
    ) {
        let sent = avcodec_send_packet(decoder, packet)
        if sent < 0 && sent != PD_AVERROR_EOF {
            tracks[index]?.problem = "cannot be decoded: \(FFmpegError(sent))"
            return
        }
        while true {
            let received = avcodec_receive_frame(decoder, frame)
            if received == PD_AVERROR_EAGAIN || received == PD_AVERROR_EOF { return }
            if received < 0 {
                tracks[index]?.problem = "cannot be decoded: \(FFmpegError(received))"
                return
            }
            defer { av_frame_unref(frame) }
            let channels = Int(frame.pointee.ch_layout.nb_channels)
            guard channels > 0, fill(frame, channels: channels) else {
                let name = av_get_sample_fmt_name(AVSampleFormat(frame.pointee.format)).map { String(cString: $0) }
                tracks[index]?.problem = "its samples (\(name ?? "unknown format")) cannot be measured"
                return
            }
            let dropped = droppedSamples(frame, secondsPerTick: tracks[index]?.secondsPerTick ?? 0, decoder: decoder)
            guard dropped < Int(frame.pointee.nb_samples) else { continue }
            interleaved.withUnsafeBufferPointer {
                take(index, UnsafeBufferPointer(rebasing: $0[(dropped * channels)...]), channels)
            }
        }
    }

    /// How many of the frame's first samples lie before the time `seek` went to.
    private func droppedSamples(
        _ frame: UnsafeMutablePointer<AVFrame>, secondsPerTick: Double, decoder: UnsafeMutablePointer<AVCodecContext>
    ) -> Int {
        let timestamp = frame.pointee.best_effort_timestamp
        let rate = Double(decoder.pointee.sample_rate)
        guard let dropBefore, timestamp != PD_AV_NOPTS_VALUE, rate > 0 else { return 0 }
        let late = dropBefore - Double(timestamp) * secondsPerTick
        guard late > 0 else { return 0 }
        return Int(min(late * rate, Double(Int32.max)).rounded())
    }

    /// The frame's samples into `interleaved` as floats at full scale ±1;
    /// false for a sample format it does not know.
    private func fill(_ frame: UnsafeMutablePointer<AVFrame>, channels: Int) -> Bool {
        let count = Int(frame.pointee.nb_samples)
        let format = AVSampleFormat(frame.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let packed = av_get_packed_sample_fmt(format)
        guard let planes = frame.pointee.extended_data, count > 0 else { return count == 0 }
        for c in 0..<(planar ? channels : 1) where planes[c] == nil { return false }
        if interleaved.count != count * channels { interleaved = Array(repeating: 0, count: count * channels) }
        // One plane at a time into its places of the interleaved run: a tight loop the compiler vectorises.
        func convert<T>(_ type: T.Type, _ scale: (T) -> Float) -> Bool {
            interleaved.withUnsafeMutableBufferPointer { out in
                for plane in 0..<(planar ? channels : 1) {
                    guard let base = planes[plane] else { continue }
                    let values = UnsafeRawPointer(base).bindMemory(
                        to: T.self, capacity: planar ? count : count * channels)
                    if planar {
                        for i in 0..<count { out[i * channels + plane] = scale(values[i]) }
                    } else {
                        for i in 0..<count * channels { out[i] = scale(values[i]) }
                    }
                }
            }
            return true
        }
        switch packed {
        case AV_SAMPLE_FMT_U8: return convert(UInt8.self) { (Float($0) - 128) / 128 }
        case AV_SAMPLE_FMT_S16: return convert(Int16.self) { Float($0) / 32768 }
        case AV_SAMPLE_FMT_S32: return convert(Int32.self) { Float($0) * (1 / 2_147_483_648) }
        case AV_SAMPLE_FMT_FLT: return convert(Float.self) { $0 }
        case AV_SAMPLE_FMT_DBL: return convert(Double.self) { Float($0) }
        default: return false
        }
    }
}
