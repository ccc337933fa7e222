import CFFmpeg
import HostSupport
import ProResCore

/// The input's PCM sound tracks copied into a muxed output beside its
/// frames (`-o out.mov`, `.nut`): the input opened a second time by
/// libavformat, its audio packets read in file order and written unchanged,
/// except where a range of frames is asked for (`--start`, `--frames`): then
/// each track is cut to the frames' time, to the sample.
public final class AudioCopy {
    /// One track carried: the input's stream and the output's.
    private struct Carried {
        let input: UnsafeMutablePointer<AVStream>
        var output: UnsafeMutablePointer<AVStream>?
        /// Bytes of one sample of every channel (a PCM frame).
        let frameBytes: Int
        let sampleRate: Int32
    }

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var carried: [Int: Carried] = [:]
    private let displayPath: String
    /// Whole packets, or cut to the video's time.
    private let cutsToVideo: Bool
    /// The video's first and next time, in seconds as a rational of the input's timeline.
    private var start: (value: Int64, base: AVRational)?
    private var ended = false
    /// A packet read past the time written so far, kept for the next call.
    private var held: UnsafeMutablePointer<AVPacket>?

    /// The tracks of `input` (a local path or a URL) that can be copied: PCM
    /// with a whole number of bytes a sample. Throws when the input cannot
    /// be opened again.
    public init(input: String, tracks: [AudioTrack], cutsToVideo: Bool) throws {
        displayPath = input
        self.cutsToVideo = cutsToVideo
        let url = FileURL.localPath(input).map { "file:" + $0 } ?? (FileURL.isRemote(input) ? input : "file:" + input)
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let status = PathBytes.withCString(url) { avformat_open_input(&opened, $0, nil, nil) }
        guard status >= 0, let opened else {
            throw ProResDecodeError.inputUnreadable(
                path: input, reason: "its sound cannot be read again: \(FFmpegError(status))")
        }
        context = opened
        let wanted = Set(tracks.map(\.index))
        for i in 0..<Int(opened.pointee.nb_streams) {
            guard let stream = opened.pointee.streams[i] else { continue }
            let parameters = stream.pointee.codecpar.pointee
            let bits = Int(av_get_bits_per_sample(parameters.codec_id))
            let channels = Int(parameters.ch_layout.nb_channels)
            guard wanted.contains(i), parameters.codec_type == AVMEDIA_TYPE_AUDIO, bits > 0, bits % 8 == 0,
                channels > 0, parameters.sample_rate > 0
            else {
                stream.pointee.discard = AVDISCARD_ALL
                continue
            }
            carried[i] = Carried(
                input: stream, output: nil, frameBytes: bits / 8 * channels, sampleRate: parameters.sample_rate)
        }
    }

    deinit {
        if held != nil { av_packet_free(&held) }
        var closing = context
        if closing != nil { avformat_close_input(&closing) }
    }

    /// The stream indices copied.
    public var trackIndices: [Int] { carried.keys.sorted() }

    /// Adds an output stream for each track to `output`, before its header is written.
    func addStreams(to output: UnsafeMutablePointer<AVFormatContext>, errorPath: String) throws {
        for index in trackIndices {
            guard var track = carried[index], let stream = avformat_new_stream(output, nil) else {
                throw FFmpegError(PD_AVERROR_ENOMEM)
            }
            let status = avcodec_parameters_copy(stream.pointee.codecpar, track.input.pointee.codecpar)
            if status < 0 { throw ProResDecodeError.output(path: errorPath, reason: "copying audio track \(index)") }
            // The output's muxer picks its own tag for the codec.
            stream.pointee.codecpar.pointee.codec_tag = 0
            stream.pointee.time_base = AVRational(num: 1, den: track.sampleRate)
            av_dict_copy(&stream.pointee.metadata, track.input.pointee.metadata, 0)
            track.output = stream
            carried[index] = track
        }
    }

    /// Writes every packet whose samples begin before `time` (in `base`);
    /// the first call sets where the video begins.
    func write(
        before time: Int64, base: AVRational, into output: UnsafeMutablePointer<AVFormatContext>, errorPath: String
    ) throws {
        if start == nil { start = (time, base) }
        try pump(until: (time, base), end: nil, into: output, errorPath: errorPath)
    }

    /// Writes the rest: up to `end` when cutting to the video, else every packet left.
    func finish(end: Int64?, base: AVRational, into output: UnsafeMutablePointer<AVFormatContext>, errorPath: String)
        throws
    {
        let cut = cutsToVideo ? end.map { (value: $0, base: base) } : nil
        try pump(until: cut, end: cut, into: output, errorPath: errorPath)
    }

    /// Reads and writes packets until one begins at or after `limit` (nil:
    /// the end of the input); `end` is where the last packet is cut.
    private func pump(
        until limit: (value: Int64, base: AVRational)?, end: (value: Int64, base: AVRational)?,
        into output: UnsafeMutablePointer<AVFormatContext>,
        errorPath: String
    ) throws {
        guard let context else { return }
        while true {
            guard let packet = try nextPacket(context) else { return }
            guard let track = carried[Int(packet.pointee.stream_index)], let stream = track.output else {
                var freeing: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&freeing)
                continue
            }
            let pts = packet.pointee.pts != PD_AV_NOPTS_VALUE ? packet.pointee.pts : packet.pointee.dts
            if let limit, pts != PD_AV_NOPTS_VALUE,
                av_compare_ts(pts, track.input.pointee.time_base, limit.value, limit.base) >= 0
            {
                held = packet
                return
            }
            try writeCut(packet, track: track, stream: stream, end: end, output: output, errorPath: errorPath)
        }
    }

    private func nextPacket(_ context: UnsafeMutablePointer<AVFormatContext>) throws -> UnsafeMutablePointer<AVPacket>?
    {
        if let held {
            self.held = nil
            return held
        }
        if ended { return nil }
        guard let packet = av_packet_alloc() else { throw FFmpegError(PD_AVERROR_ENOMEM) }
        let status = av_read_frame(context, packet)
        if status < 0 {
            var freeing: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&freeing)
            ended = true
            if status == PD_AVERROR_EOF { return nil }
            throw ProResDecodeError.inputUnreadable(
                path: displayPath, reason: "its sound cannot be read: \(FFmpegError(status))")
        }
        return packet
    }

    /// Writes `packet`'s samples that fall in [start, end) when cutting,
    /// all of them otherwise, stamped in samples of the track.
    private func writeCut(
        _ packet: UnsafeMutablePointer<AVPacket>, track: Carried, stream: UnsafeMutablePointer<AVStream>,
        end: (value: Int64, base: AVRational)?, output: UnsafeMutablePointer<AVFormatContext>, errorPath: String
    ) throws {
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&owned) }
        let samples = Int64(packet.pointee.size) / Int64(track.frameBytes)
        let perSample = AVRational(num: 1, den: track.sampleRate)
        let pts = packet.pointee.pts != PD_AV_NOPTS_VALUE ? packet.pointee.pts : packet.pointee.dts
        guard pts != PD_AV_NOPTS_VALUE, samples > 0 else { return }
        let first = av_rescale_q_rnd(pts, track.input.pointee.time_base, perSample, AV_ROUND_NEAR_INF)
        // A time stamp a damaged file puts near the ends of the range is no sample position.
        guard first > Int64.min / 4, first < Int64.max / 4 else {
            throw ProResDecodeError.inputUnreadable(
                path: displayPath, reason: "its sound has a time stamp out of range (\(pts))")
        }
        var from = first
        var to = first + samples
        if cutsToVideo, let start {
            from = max(from, av_rescale_q_rnd(start.value, start.base, perSample, AV_ROUND_NEAR_INF))
            if let end { to = min(to, av_rescale_q_rnd(end.value, end.base, perSample, AV_ROUND_NEAR_INF)) }
        }
        guard from < to else { return }
        let skip = Int((from - first) * Int64(track.frameBytes))
        let count = Int((to - from) * Int64(track.frameBytes))
        packet.pointee.data += skip
        packet.pointee.size = Int32(count)
        packet.pointee.pts = av_rescale_q(from, perSample, stream.pointee.time_base)
        packet.pointee.dts = packet.pointee.pts
        packet.pointee.duration = av_rescale_q(to - from, perSample, stream.pointee.time_base)
        packet.pointee.stream_index = stream.pointee.index
        packet.pointee.pos = -1
        let status = av_interleaved_write_frame(output, packet)
        if status < 0 {
            throw ProResDecodeError.output(path: errorPath, reason: "writing audio: \(FFmpegError(status))")
        }
    }
}
