import CFFmpeg
import Glibc
import HostSupport
import ProResCore

/// Reads ProRes samples out of a container with libavformat (AVAssetReader):
/// MOV/MP4, MXF, MKV, and anything else libavformat opens, from a file, a
/// URL or a pipe.
public final class AssetReader: SampleSource {
    private var description: FormatDescription?
    public var format: FormatDescription { description! }
    public private(set) var shortfall: String?

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    private let displayPath: String
    private var pipe: PipeFeeder?
    /// dts → frame index, from the container's sample table (when it has one).
    private var indexByTimestamp: [Int64: Int] = [:]
    private var timestampByIndex: [Int64] = []
    private var pending: [CompressedSample] = []
    private var nextIndex = 0
    /// Reads the samples after the leading ones straight from the file, when
    /// that gives exactly libavformat's packets (MOV/MP4 on a local file).
    private var direct: SampleTableReader?
    /// Why this input cannot reach its frames, if reading them fails (`unreachableMedia`).
    private var unreachable: String?
    /// Words for a frame count the container claims but its file cannot hold.
    private var overstatedCount: String?
    /// Why the last packet could not be read, in FFmpeg's words when it gave any.
    private var readProblem: String?
    /// The error FFmpeg logged while reading the header of a file it still
    /// opened ("Sample size 1073741824 is too large": its table stops there).
    private var headerComplaint: String?
    /// A URL's requests and replies, and its interrupt (nil for anything else).
    public let activity: HTTPActivity?
    var readsDirectly: Bool { direct != nil }

    /// `localPath`: the file behind `url`, when it is one, for direct reads.
    convenience init(url: String, displayPath: String, track: Int?, localPath: String? = nil) throws {
        try self.init(
            open: { context in
                PathBytes.withCString(url) { avformat_open_input(&context, $0, nil, nil) }
            }, displayPath: displayPath, track: track, pipe: nil, localPath: localPath)
    }

    /// Reads a container from a stream already open as `fd` (stdin, a FIFO,
    /// /dev/fd/N), which cannot be opened again or rewound: `pipePrefix` are
    /// the bytes already consumed while sniffing, replayed first, as
    /// ffmpeg's `pipe:` protocol reads. The descriptor is closed with the
    /// reader when `ownsDescriptor`.
    convenience init(
        pipePrefix: [UInt8], fd: Int32 = STDIN_FILENO, displayPath: String = "stdin",
        ownsDescriptor: Bool = false, track: Int?
    ) throws {
        let feeder = PipeFeeder(fd: fd, prefix: pipePrefix, ownsDescriptor: ownsDescriptor)
        try self.init(
            open: { context in
                context = avformat_alloc_context()
                guard let allocated = context, let io = feeder.makeIOContext() else { return PD_AVERROR_ENOMEM }
                allocated.pointee.pb = io
                allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                let status = avformat_open_input(&context, nil, nil, nil)
                if status < 0 {
                    // A failed open frees the format context but never custom I/O.
                    var buffer: UnsafeMutablePointer<UInt8>? = io.pointee.buffer
                    av_freep(&buffer)
                    var freeing: UnsafeMutablePointer<AVIOContext>? = io
                    avio_context_free(&freeing)
                }
                return status
            }, displayPath: displayPath, track: track, pipe: feeder, localPath: nil)
    }

    private init(
        open: (inout UnsafeMutablePointer<AVFormatContext>?) -> Int32,
        displayPath: String, track: Int?, pipe: PipeFeeder?, localPath: String?, activity: HTTPActivity? = nil,
        remote: (url: String, options: [(String, String)])? = nil
    ) throws {
        self.displayPath = displayPath
        self.pipe = pipe
        self.activity = activity
        var context: UnsafeMutablePointer<AVFormatContext>?
        FFmpegLog.clear()
        let status = open(&context)
        guard status >= 0, let context else {
            var reason =
                status == PD_AVERROR_INVALIDDATA ? "not a recognised media file" : FFmpegError(status).description
            let said = FFmpegLog.lastError
            if said == "error reading header" {
                // The demuxer recognised the file; its header is what failed.
                reason =
                    status == PD_AVERROR_ENOMEM
                    ? "damaged container header: a table in it claims more entries than memory allows"
                    : "damaged container header (\(FFmpegError(status)))"
            }
            if let localPath, QuickTimeTruncation.lacksMovieIndex(path: localPath) {
                throw ProResDecodeError.truncatedRecording(path: displayPath)
            }
            if let localPath, let cut = QuickTimeTruncation.describe(path: localPath) { reason = cut }
            // A URL the demuxer could not make a movie of is walked again from its start, so that a
            // recording cut short fails over http as it does on disk.
            if let remote, let activity, status == PD_AVERROR_INVALIDDATA,
                let walked = QuickTimeTruncation.withURL(
                    remote.url, options: remote.options, activity: activity,
                    {
                        (lacksIndex: QuickTimeTruncation.lacksMovieIndex($0), cut: QuickTimeTruncation.describe($0))
                    })
            {
                if walked.lacksIndex { throw ProResDecodeError.truncatedRecording(path: displayPath) }
                if let cut = walked.cut { reason = cut }
            }
            if let said { reason += " (FFmpeg: \(said))" }
            if pipe != nil, said?.contains("moov atom not found") ?? false {
                reason += " (from a pipe, a MOV needs its moov atom first: -movflags +faststart)"
            }
            if let activity {
                activity.watch(nil)
                if let network = Self.networkReason(status, activity) { reason = network }
            }
            throw ProResDecodeError.inputUnreadable(path: displayPath, reason: reason)
        }
        self.context = context
        // What the demuxer complained of while reading the header, though it
        // opened: the reason a track may turn out to have no frames.
        headerComplaint = FFmpegLog.lastError
        // Until the samples own them, the context and packets read so far
        // are ours to release if anything below throws.
        var leading: [ReadPacket] = []
        do {
            // A QuickTime media timescale of 0 gives no sample a time: FFmpeg
            // assumes 1 tick a second, so the edit list (in the movie's
            // timescale) keeps about one frame and discards the rest, which
            // one decoder honours and another may not. Refused as damage.
            if headerComplaint?.hasPrefix("Invalid mdhd time scale 0") ?? false {
                throw ProResDecodeError.inputUnreadable(
                    path: displayPath,
                    reason: "damaged container header: "
                        + "the video track's media timescale (mdhd) is 0, so its frames have no times")
            }
            // The container's own colour tags, captured before stream probing
            // lets the decoder overwrite them with the frame header's.
            let streams = (0..<Int(context.pointee.nb_streams)).map { context.pointee.streams[$0]! }
            let containerTags = streams.map { s -> (Int, Int, Int, Bool?) in
                let p = s.pointee.codecpar.pointee
                let range: Bool? =
                    p.color_range == AVCOL_RANGE_JPEG ? true : p.color_range == AVCOL_RANGE_MPEG ? false : nil
                return (Int(p.color_primaries.rawValue), Int(p.color_trc.rawValue), Int(p.color_space.rawValue), range)
            }
            // QuickTime's `fiel`, Matroska's FieldOrder, MXF's: before probing, like the tags.
            let containerFieldOrders = streams.map { $0.pointee.codecpar.pointee.field_order }
            let containerSizes = streams.map {
                (Int($0.pointee.codecpar.pointee.width), Int($0.pointee.codecpar.pointee.height))
            }
            // Entries the header itself brought: probing reads packets, and
            // demuxers without a complete table (Matroska before its Cues,
            // which a truncated file lost) add entries for what they read.
            let tableEntries = streams.map { Int(avformat_index_get_entries_count($0)) }
            // Probing fills frame rates for containers that do not store them;
            // failures here are not fatal: the frame header decides below.
            // A QuickTime file states everything probing would find except
            // the pixel format, which probing learns by decoding a frame on
            // one thread: 50-100 ms at 4K, more than the GPU decoder takes
            // for a whole short clip. Skipped there (the frame header
            // describes the picture).
            if !Self.statesItsVideo(context) { _ = avformat_find_stream_info(context, nil) }

            let chosen = try Self.chooseTrack(streams, requested: track, path: displayPath)
            stream = streams[chosen]
            // Said only if reading fails: a small file may still be in the reader's buffer.
            unreachable = Self.unreachableMedia(context, stream, pipe: pipe != nil, url: activity != nil)
            for (i, s) in streams.enumerated() where i != chosen { s.pointee.discard = AVDISCARD_ALL }
            if tableEntries[chosen] > 0, tableEntries[chosen] == Int(avformat_index_get_entries_count(stream)) {
                buildTimestampIndex()
            }

            // The first decodable frame header describes the stream. Damaged
            // leading frames are kept and still flow through as samples.
            var header: ProResFrameHeader?
            var firstError: Error?
            while header == nil, leading.count < 16, let read = try readPacket() {
                leading.append(read)
                let bytes = UnsafeRawBufferPointer(
                    start: read.packet.pointee.data, count: Int(read.packet.pointee.size))
                do { header = try ProResFrameHeader(bytes) } catch { firstError = firstError ?? error }
            }
            guard let header else {
                var why = firstError.map { "no valid ProRes frame header (\($0))" } ?? "the ProRes track has no frames"
                // From a pipe, a MOV whose moov atom comes last opens but cannot seek back to its media.
                if pipe != nil, firstError == nil {
                    why += " (from a pipe, a MOV needs its moov atom first: -movflags +faststart)"
                }
                throw ProResDecodeError.notProRes(path: displayPath, reason: why)
            }
            let s = stream.pointee
            let tag = s.codecpar.pointee.codec_tag
            let profile = ProResProfile(codecTag: tag)
            var rate = s.avg_frame_rate.num > 0 ? s.avg_frame_rate : s.r_frame_rate
            var rateNote: String?
            // A Matroska track without DefaultDuration (mkvmerge's V_QUICKTIME)
            // states no rate: libavformat's r_frame_rate is then its time base
            // turned over (1000/1), and a length at that rate is 40 times too
            // many frames at 25 fps. The frame header's rate, else the first
            // two frames' timestamps, say what the rate is; else it is unknown.
            let matroska =
                context.pointee.iformat.map { String(cString: $0.pointee.name).hasPrefix("matroska") } ?? false
            let matroskaWithoutRate =
                matroska && s.avg_frame_rate.num <= 0
                && (rate.num <= 0 || av_cmp_q(rate, av_inv_q(s.time_base)) == 0)
            if matroskaWithoutRate {
                rate = AVRational(num: 0, den: 1)
                if let stated = header.frameRate {
                    rate = AVRational(num: Int32(stated.numerator), den: Int32(stated.denominator))
                } else {
                    if leading.count < 2, let next = try readPacket() { leading.append(next) }
                    if leading.count >= 2, let delta = Self.ptsStep(leading[0].packet, leading[1].packet),
                        s.time_base.num > 0
                    {
                        var num: Int32 = 0
                        var den: Int32 = 1
                        _ = av_reduce(
                            &num, &den, Int64(s.time_base.den), Int64(s.time_base.num) * delta, Int64(Int32.max))
                        rate = AVRational(num: num, den: den)
                        rateNote =
                            "frame rate \(rate.num)/\(rate.den) from the first frames' timestamps (the container states none)"
                    }
                }
            }
            let claimed = Self.claimedFrameCount(context, stream, rate: rate, tableEntries: timestampByIndex.count)
            let fileBytes =
                pipe == nil ? Int(exactly: avio_size(context.pointee.pb)).flatMap { $0 > 0 ? $0 : nil } : nil
            let (frameCount, overstated) = FrameCountClaim.judge(claimed, fileBytes: fileBytes)
            overstatedCount = overstated
            // The rate the frames keep, not frames over duration: a clip with dropped frames has an
            // average no frame has. The table's times say where the steps differ.
            // Only a table of every frame (MOV, MXF): Matroska's cues may list one frame a cluster.
            let timing =
                tableEntries[chosen] > 1 && tableEntries[chosen] == frameCount
                ? TrackTiming(
                    timestamps: Self.tableTimestamps(stream),
                    timeBase: (Int(s.time_base.num), Int(s.time_base.den))) : nil
            if !matroskaWithoutRate, let nominal = Self.nominalRate(stream, timing: timing) { rate = nominal }
            let cut = fileBytes.flatMap { Self.entriesPastEnd(stream, fileBytes: $0) }
            let name = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
            description = FormatDescription(
                header: header, profile: profile,
                profileNote: profile == nil
                    ? "container FourCC '\(printableFourCC(fourCCBytes(tag)))' is not a ProRes profile; decoding by the frame header's chroma format"
                    : nil,
                containerTags: containerTags[chosen],
                containerSize: containerSizes[chosen].0 > 0 ? containerSizes[chosen] : nil,
                frameRate: rate.num > 0 && rate.den > 0 ? (Int(rate.num), Int(rate.den)) : header.frameRate,
                frameCount: frameCount, containerName: name, trackIndex: chosen,
                timeBase: (Int(s.time_base.num), Int(s.time_base.den)),
                frameCountNote: overstated.map { "\($0); frame count unknown" } ?? rateNote,
                sampleAspectRatio: Self.sampleAspectRatio(stream), timecode: Self.timecode(context, stream),
                masteringDisplay: HDRSideData.masteringDisplay(stream),
                contentLightLevel: HDRSideData.contentLightLevel(stream),
                timing: timing, containerFieldOrder: Self.fieldOrder(containerFieldOrders[chosen]),
                truncation: cut.map {
                    TruncatedMedia(firstFrame: $0.first, frames: $0.count, fileBytes: fileBytes ?? 0)
                })
            description?.audioTracks = AudioTrackDescriptions.described(streams)
            if let localPath, leading.enumerated().allSatisfy({ $0.offset == $0.element.index }),
                timestampByIndex.count == Int(avformat_index_get_entries_count(stream))
            {
                direct = SampleTableReader(
                    path: localPath, displayPath: displayPath, context: context, stream: stream,
                    leading: leading.map(\.packet))
            }
            if direct != nil {
                // Read again from the file, into sample memory like every later frame (a GPU decoder then
                // uploads all of them in place); the table reader checked that they are the same bytes.
                leading.forEach { freePacket($0.packet) }
                nextIndex = 0
            } else {
                pending = leading.map(makeSample)
            }
        } catch {
            leading.forEach { freePacket($0.packet) }
            if let unreachable, Self.isReadFailure(error) {
                activity?.watch(nil)
                Self.close(context, customIO: pipe != nil)
                self.context = nil
                throw ProResDecodeError.inputUnreadable(path: displayPath, reason: unreachable)
            }
            // From a pipe a MOV with its moov last cannot seek back to its
            // media: the failed read is that, and the fix is faststart.
            let movFromPipe =
                pipe != nil
                && (context.pointee.iformat.map { String(cString: $0.pointee.name).contains("mov") } ?? false)
            activity?.watch(nil)
            Self.close(context, customIO: pipe != nil)
            self.context = nil
            throw Self.explained(
                error, localPath: localPath,
                readProblem: movFromPipe
                    ? nil
                    : readProblem.map { "damaged container: \($0)" }
                        ?? headerComplaint.map {
                            "damaged container header: the track has no readable frames (FFmpeg: \($0))"
                        })
        }
    }

    /// The frames could not be read (none came, or a read failed), rather than read and refused.
    private static func isReadFailure(_ error: Error) -> Bool {
        switch error {
        case ProResDecodeError.notProRes, ProResDecodeError.inputUnreadable: return true
        default: return false
        }
    }

    /// Why the frames cannot be read, when the input cannot go back (a
    /// pipe, a server without byte ranges) and the demuxer has already
    /// read past them to find the index: a MOV whose `moov` comes after
    /// its `mdat`. nil otherwise.
    private static func unreachableMedia(
        _ context: UnsafeMutablePointer<AVFormatContext>, _ stream: UnsafeMutablePointer<AVStream>, pipe: Bool,
        url: Bool
    ) -> String? {
        guard let io = context.pointee.pb, io.pointee.seekable == 0,
            context.pointee.iformat.map({ String(cString: $0.pointee.name).hasPrefix("mov,") }) ?? false,
            let first = avformat_index_get_entry(stream, 0), first.pointee.pos < avio_tell(io)
        else { return nil }
        let index = "the MOV index (moov) is at the end of the file, after the frames"
        let fix = "remux it with -movflags +faststart"
        if pipe { return "read as a stream (stdin, a pipe), which cannot go back: \(index); \(fix), or give its path" }
        if url {
            return "the server does not support byte ranges (Range requests): \(index); "
                + "serve it from a server that does, or \(fix)"
        }
        return "the input cannot seek: \(index); \(fix)"
    }

    /// The container's field order, nil when it does not say.
    private static func fieldOrder(_ order: AVFieldOrder) -> ProResFrameHeader.FieldOrder? {
        switch order {
        case AV_FIELD_PROGRESSIVE: return .progressive
        // QuickTime's interleaved `fiel` details 9 and 14 read as TB and BT: top and bottom field first
        // as mediainfo and Apple's decoders take them (and as ffmpeg writes a top-field-first encode).
        case AV_FIELD_TT, AV_FIELD_TB: return .topFieldFirst
        case AV_FIELD_BB, AV_FIELD_BT: return .bottomFieldFirst
        default: return nil
        }
    }

    /// The stream's sample aspect ratio, else its codec parameters' (QuickTime's
    /// `pasp` sets both; probing, skipped for MOV, may set only the latter).
    private static func sampleAspectRatio(_ stream: UnsafeMutablePointer<AVStream>) -> (
        numerator: Int, denominator: Int
    )? {
        for ratio in [stream.pointee.sample_aspect_ratio, stream.pointee.codecpar.pointee.sample_aspect_ratio]
        where ratio.num > 0 && ratio.den > 0 {
            return (Int(ratio.num), Int(ratio.den))
        }
        return nil
    }

    /// libavformat's `timecode` metadata: the video stream's (MOV copies its
    /// `tmcd` track's there), else the file's (MXF), else a data stream's
    /// (a `tmcd` track not referenced by the video track).
    private static func timecode(
        _ context: UnsafeMutablePointer<AVFormatContext>, _ stream: UnsafeMutablePointer<AVStream>
    ) -> String? {
        func lookUp(_ metadata: OpaquePointer?) -> String? {
            av_dict_get(metadata, "timecode", nil, 0).map { String(cString: $0.pointee.value) }
        }
        let others = (0..<Int(context.pointee.nb_streams)).map { context.pointee.streams[$0]!.pointee.metadata }
        return lookUp(stream.pointee.metadata) ?? lookUp(context.pointee.metadata)
            ?? others.lazy.compactMap(lookUp).first
    }

    deinit {
        activity?.watch(nil)
        if let context { Self.close(context, customIO: pipe != nil) }
    }

    /// Closes the demuxer and, for pipes, the AVIOContext we made for it.
    private static func close(_ context: UnsafeMutablePointer<AVFormatContext>, customIO: Bool) {
        let io = customIO ? context.pointee.pb : nil
        var closing: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&closing)
        if let io {
            av_freep(&io.pointee.buffer)
            var freeing: UnsafeMutablePointer<AVIOContext>? = io
            avio_context_free(&freeing)
        }
    }

    /// A MOV/MP4 whose every video track already has its codec, size and
    /// frame rate from the header: nothing for probing to add.
    private static func statesItsVideo(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard let format = context.pointee.iformat, String(cString: format.pointee.name).hasPrefix("mov,") else {
            return false
        }
        return (0..<Int(context.pointee.nb_streams)).allSatisfy { i in
            let stream = context.pointee.streams[i]!.pointee
            let p = stream.codecpar.pointee
            guard p.codec_type == AVMEDIA_TYPE_VIDEO else { return true }
            return p.codec_id != AV_CODEC_ID_NONE && p.width > 0 && p.height > 0 && stream.avg_frame_rate.num > 0
        }
    }

    /// A failure to find ProRes frames, reworded when the cause is damage:
    /// a MOV cut short, or a first packet the demuxer could not read.
    private static func explained(_ error: Error, localPath: String?, readProblem: String?) -> Error {
        guard case ProResDecodeError.notProRes(let path, _) = error else { return error }
        if let localPath, let cut = QuickTimeTruncation.describe(path: localPath) {
            return ProResDecodeError.inputUnreadable(path: path, reason: cut)
        }
        if let readProblem { return ProResDecodeError.inputUnreadable(path: path, reason: readProblem) }
        return error
    }

    /// A URL's failure in words where libavformat's are bare: a body that
    /// does not inflate, a stop at the deadline (what the server had not
    /// done), a redirect loop ("Input/output error" in libavformat's words).
    private static func networkReason(_ status: Int32, _ activity: HTTPActivity) -> String? {
        if let problem = activity.bodyProblem { return problem }
        if activity.wasStopped { return "stopped" + (activity.stall.map { ": " + $0 } ?? "") }
        // libavformat's rw_timeout: which step the server left undone so long.
        if status == pd_averror(ETIMEDOUT) { return activity.stallNow }
        if status == pd_averror(EIO), let redirects = activity.redirectProblem { return redirects }
        return nil
    }

    /// Ticks from one frame's timestamp to the next, when both have one.
    private static func ptsStep(_ first: UnsafeMutablePointer<AVPacket>, _ second: UnsafeMutablePointer<AVPacket>)
        -> Int64?
    {
        let a = first.pointee.pts
        let b = second.pointee.pts
        guard a != PD_AV_NOPTS_VALUE, b != PD_AV_NOPTS_VALUE, b > a, b - a < Int64(Int32.max) else { return nil }
        return b - a
    }

    /// What the container says about the track's length, in frames: its
    /// sample table, its frame count field, or its duration at `rate` (the
    /// track's own, Matroska's per-track DURATION tag, or the file's when it
    /// has one stream). A claim: `FrameCountClaim.judge` decides its use.
    private static func claimedFrameCount(
        _ context: UnsafeMutablePointer<AVFormatContext>, _ stream: UnsafeMutablePointer<AVStream>,
        rate: AVRational, tableEntries: Int
    ) -> Int? {
        let s = stream.pointee
        // A table cut short by damage holds fewer entries than the count the
        // header states: the larger claim is the one the file must meet.
        let stated = max(tableEntries, Int(exactly: s.nb_frames) ?? 0)
        if stated > 0 { return stated }
        let fps = (Int(rate.num), Int(rate.den))
        if let frames = FrameCountClaim.frames(
            duration: s.duration, timeBase: (Int(s.time_base.num), Int(s.time_base.den)), rate: fps)
        {
            return frames
        }
        if let tag = av_dict_get(s.metadata, "DURATION", nil, 0), let value = tag.pointee.value,
            let nanoseconds = FrameCountClaim.nanoseconds(durationTag: String(cString: value))
        {
            return FrameCountClaim.frames(duration: nanoseconds, timeBase: (1, 1_000_000_000), rate: fps)
        }
        guard context.pointee.nb_streams == 1 else { return nil }
        return FrameCountClaim.frames(
            duration: context.pointee.duration, timeBase: (1, Int(PD_AV_TIME_BASE)), rate: fps)
    }

    private static func chooseTrack(_ streams: [UnsafeMutablePointer<AVStream>], requested: Int?, path: String) throws
        -> Int
    {
        func summary() -> String {
            streams.enumerated().map { i, s in
                let p = s.pointee.codecpar.pointee
                let kind = av_get_media_type_string(p.codec_type).map { String(cString: $0) } ?? "unknown"
                return "\(i): \(String(cString: avcodec_get_name(p.codec_id))) \(kind)"
            }.joined(separator: ", ")
        }
        let isProRes = { (s: UnsafeMutablePointer<AVStream>) in
            s.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                && s.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_PRORES
        }
        if let requested {
            guard streams.indices.contains(requested) else {
                throw ProResDecodeError.badRequest(
                    .noSuchTrack(requested: requested, path: path, streams: streams.count, summary: summary()))
            }
            guard isProRes(streams[requested]) else {
                throw ProResDecodeError.notProRes(
                    path: path, reason: "track \(requested) is not ProRes video (streams: \(summary()))")
            }
            return requested
        }
        guard let first = streams.firstIndex(where: isProRes) else {
            throw ProResDecodeError.notProRes(
                path: path,
                reason: streams.isEmpty ? "it has no streams" : "no ProRes video track (streams: \(summary()))")
        }
        return first
    }

    /// ProRes is intra-only, so every entry of the sample table is a frame we
    /// can seek to exactly; frame N is the table's N-th timestamp.
    private func buildTimestampIndex() {
        let stamps = Self.tableTimestamps(stream)
        guard !stamps.isEmpty else { return }
        var map: [Int64: Int] = [:]
        for (i, t) in stamps.enumerated() {
            if map.updateValue(i, forKey: t) != nil { return }  // ambiguous: count packets instead
        }
        timestampByIndex = stamps
        indexByTimestamp = map
    }

    /// Every entry's timestamp in the track's sample table, in table order.
    private static func tableTimestamps(_ stream: UnsafeMutablePointer<AVStream>) -> [Int64] {
        let count = Int(avformat_index_get_entries_count(stream))
        var stamps: [Int64] = []
        stamps.reserveCapacity(max(0, count))
        for i in 0..<max(0, count) {
            guard let entry = avformat_index_get_entry(stream, Int32(i)) else { return [] }
            stamps.append(entry.pointee.timestamp)
        }
        return stamps
    }

    /// The first sample-table entry that lies wholly or partly past the
    /// end of a file of `fileBytes`, and how many entries do: a file cut
    /// inside its media (mediainfo's IsTruncated) although its index is whole.
    private static func entriesPastEnd(_ stream: UnsafeMutablePointer<AVStream>, fileBytes: Int) -> (
        first: Int, count: Int
    )? {
        let count = Int(avformat_index_get_entries_count(stream))
        var first: Int?
        var past = 0
        for i in 0..<max(0, count) {
            guard let entry = avformat_index_get_entry(stream, Int32(i)) else { break }
            let (end, overflow) = entry.pointee.pos.addingReportingOverflow(Int64(entry.pointee.size))
            if overflow || end > Int64(fileBytes) {
                first = first ?? i
                past += 1
            }
        }
        return first.map { ($0, past) }
    }

    /// The rate the frames were made at, as the `ffmpeg` CLI guesses it
    /// (`av_guess_frame_rate`: ffprobe's `r_frame_rate`, unless that is
    /// above 210 and the average below 70), else the sample table's
    /// nominal step, when libavformat found none (a MOV whose steps differ
    /// is not probed); nil when neither says.
    private static func nominalRate(_ stream: UnsafeMutablePointer<AVStream>, timing: TrackTiming?) -> AVRational? {
        let s = stream.pointee
        let average = s.avg_frame_rate
        var rate = s.r_frame_rate
        if rate.num > 0, rate.den > 0 {
            if average.num > 0, average.den > 0, av_q2d(average) < 70, av_q2d(rate) > 210 { rate = average }
            return rate
        }
        guard let nominal = timing?.nominalRate, let n = Int32(exactly: nominal.numerator),
            let d = Int32(exactly: nominal.denominator)
        else { return nil }
        return AVRational(num: n, den: d)
    }

    private struct ReadPacket {
        let packet: UnsafeMutablePointer<AVPacket>
        let index: Int
        let start: UInt64
        let nanoseconds: UInt64
    }

    /// The next packet of our track, numbered by the sample table when the
    /// container has one, by counting otherwise.
    private func readPacket() throws -> ReadPacket? {
        if let direct {
            guard nextIndex < direct.count else { return nil }
            let start = monotonicNanoseconds()
            let packet = try direct.packet(nextIndex)
            nextIndex += 1
            return ReadPacket(
                packet: packet, index: nextIndex - 1, start: start, nanoseconds: monotonicNanoseconds() - start)
        }
        guard let context else { return nil }
        while true {
            let start = monotonicNanoseconds()
            guard let packet = av_packet_alloc() else { throw ProResDecodeError.decoderUnavailable("out of memory") }
            FFmpegLog.clear()
            let status = FFmpegLog.recording(activity) { av_read_frame(context, packet) }
            if status < 0 {
                freePacket(packet)
                if status == PD_AVERROR_EOF { return nil }
                // Damaged containers end here; `shortfall` reports them, in
                // FFmpeg's words ("Sample size 2147483632 is too large").
                let said = FFmpegLog.lastError.map { " (FFmpeg: \($0))" } ?? ""
                if status == PD_AVERROR_INVALIDDATA {
                    readProblem = "frame \(nextIndex) cannot be read\(said)"
                    return nil
                }
                if status == PD_AVERROR_ENOMEM {
                    readProblem =
                        "frame \(nextIndex) cannot be read: the container states a size for it larger than memory allows (a damaged sample table?)\(said)"
                    return nil
                }
                let why = activity.flatMap { Self.networkReason(status, $0) } ?? "\(FFmpegError(status))\(said)"
                throw ProResDecodeError.inputUnreadable(
                    path: displayPath, reason: "frame \(nextIndex) cannot be read: \(why)")
            }
            guard packet.pointee.stream_index == stream.pointee.index else {
                freePacket(packet)
                continue
            }
            let dts = packet.pointee.dts != PD_AV_NOPTS_VALUE ? packet.pointee.dts : packet.pointee.pts
            let index = indexByTimestamp[dts] ?? nextIndex
            nextIndex = index + 1
            return ReadPacket(packet: packet, index: index, start: start, nanoseconds: monotonicNanoseconds() - start)
        }
    }

    private func makeSample(_ read: ReadPacket) -> CompressedSample {
        CompressedSample(
            packet: read.packet, index: read.index, format: format,
            readStart: read.start, demuxNanoseconds: read.nanoseconds)
    }

    private func readSample() throws -> CompressedSample? {
        try readPacket().map(makeSample)
    }

    public func nextSample() throws -> CompressedSample? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard let sample = try readSample() else {
            if let expected = format.frameCount, nextIndex < expected, shortfall == nil {
                shortfall =
                    "input ended after frame \(nextIndex - 1): frames \(nextIndex)–\(expected - 1) of \(expected) are missing "
                    + (readProblem.map { "(\(unreachable ?? $0))" } ?? headerComplaint.map {
                        "(damaged container header; FFmpeg: \($0))"
                    } ?? "(truncated file?)")
            }
            if let readProblem, shortfall == nil {
                shortfall = "input ended after frame \(nextIndex - 1): \(unreachable ?? readProblem)"
            }
            if let overstatedCount, shortfall == nil {
                shortfall =
                    "input ended after frame \(nextIndex - 1), but \(overstatedCount) (damaged or forged header)"
            }
            return nil
        }
        return sample
    }

    /// The sample-table reader, when this track is read that way (tests).
    var tableReader: SampleTableReader? { direct }

    /// Only what the table reader reads (the samples after those already
    /// demuxed); libavformat's packets are read one at a time as asked for.
    public func prefetch(frames: Int) {
        if let direct, pending.isEmpty {
            direct.prefetch(from: nextIndex, count: frames, maxBytes: SampleSourcePrefetch.bytesBeforeTheDecoder)
        }
    }

    public func readAhead(samples: Int) {
        direct?.setReadAhead(samples)
    }

    public func seek(toFrame target: Int) throws {
        if let count = format.frameCount, target >= count {
            throw ProResDecodeError.badRequest(.startPastEnd(start: target, frames: count, container: .track))
        }
        if let direct, target < direct.count {
            pending.removeAll()
            nextIndex = target
            return
        }
        if target < timestampByIndex.count, let context {
            pending.removeAll()
            let status = FFmpegLog.recording(activity) {
                av_seek_frame(context, stream.pointee.index, timestampByIndex[target], AVSEEK_FLAG_BACKWARD)
            }
            if status >= 0 {
                nextIndex = target
                // The demuxer lands at or before the target: drop what precedes it.
                while let sample = try readSample() {
                    if sample.index >= target {
                        pending = [sample]
                        return
                    }
                }
                return
            }
        }
        // No usable sample table: count frames from here.
        while let sample = try nextSample() {
            if sample.index >= target {
                pending.insert(sample, at: 0)
                return
            }
        }
    }
}

/// Feeds libavformat from a pipe through a custom AVIOContext, replaying the
/// bytes read while sniffing the input type.
private final class PipeFeeder {
    let fd: Int32
    var prefix: [UInt8]
    private let ownsDescriptor: Bool

    init(fd: Int32, prefix: [UInt8], ownsDescriptor: Bool) {
        self.fd = fd
        self.prefix = prefix
        self.ownsDescriptor = ownsDescriptor
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    func makeIOContext() -> UnsafeMutablePointer<AVIOContext>? {
        let size = 1 << 16
        guard let buffer = av_malloc(size) else { return nil }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        return avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, opaque,
            { opaque, buffer, size in
                let feeder = Unmanaged<PipeFeeder>.fromOpaque(opaque!).takeUnretainedValue()
                return feeder.read(into: buffer!, size: Int(size))
            }, nil, nil)
    }

    private func read(into buffer: UnsafeMutablePointer<UInt8>, size: Int) -> Int32 {
        if !prefix.isEmpty {
            let n = min(size, prefix.count)
            prefix.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: n) }
            prefix.removeFirst(n)
            return Int32(n)
        }
        while true {
            let n = Glibc.read(fd, buffer, size)
            if n > 0 { return Int32(n) }
            if n == 0 { return PD_AVERROR_EOF }
            if errno != EINTR { return pd_averror(errno) }
        }
    }
}

/// How an http(s) URL is opened: range requests (libavformat's http
/// protocol seeks with `Range:`), a reconnect from where a read stopped when
/// a connection drops mid-file, and the whole open tried again, with
/// backoff, when it fails in a way that passes (a 5xx reply, a reset or
/// timed-out connection). A 4xx reply (404, 403) is an answer, not
/// trouble: never retried, and its status is in the reason.
public struct URLOpening: Sendable {
    /// Opens tried in all; the waits between them double from `firstDelay`.
    public var attempts = 4
    public var firstDelay = 0.25
    /// Seconds a read or connect may wait for the server (libavformat's rw_timeout).
    public var timeout = 30.0

    public init() {}

    /// libavformat's AVERROR_HTTP_SERVER_ERROR: FFERRTAG(0xF8, '5', 'X', 'X').
    static let serverError = -Int32(
        bitPattern: 0xF8 | UInt32(UInt8(ascii: "5")) << 8 | UInt32(UInt8(ascii: "X")) << 16
            | UInt32(UInt8(ascii: "X")) << 24)

    /// A failure that another try may not meet.
    static func isTransient(_ status: Int32) -> Bool {
        status == serverError || [ECONNRESET, ETIMEDOUT, EPIPE, ECONNABORTED, EAGAIN, EIO].contains(-status)
    }

    var options: [(String, String)] {
        // A drop mid-file is libavformat's to mend (a range request from where
        // it stopped: at once, then after 1 and 3 s; shown with --verbose);
        // a failed open is ours, so that the report can say so.
        [
            ("reconnect", "1"), ("reconnect_on_network_error", "1"), ("reconnect_delay_max", "4"),
            ("rw_timeout", "\(Int(timeout * 1e6))"),
        ]
    }
}

extension AssetReader {
    /// Opens `url` as `URLOpening` says; `retried` hears each failed try
    /// that is tried again, in words. `activity` follows the requests and
    /// replies and stops them (`HTTPActivity`); its reader keeps it.
    public static func open(
        url: String, displayPath: String, track: Int?, opening: URLOpening = URLOpening(),
        activity: HTTPActivity = HTTPActivity(), retried: ((String) -> Void)? = nil
    ) throws -> AssetReader {
        var delay = opening.firstDelay
        var attempt = 0
        while true {
            attempt += 1
            activity.begin(url)
            var status: Int32 = 0
            do {
                return try FFmpegLog.recording(activity) {
                    try AssetReader(
                        open: { context in
                            context = avformat_alloc_context()
                            guard let allocated = context else { return PD_AVERROR_ENOMEM }
                            allocated.pointee.interrupt_callback = activity.interruptCallback
                            activity.watch(allocated)
                            var dictionary: OpaquePointer?
                            for (key, value) in opening.options { av_dict_set(&dictionary, key, value, 0) }
                            status = PathBytes.withCString(url) { avformat_open_input(&context, $0, nil, &dictionary) }
                            av_dict_free(&dictionary)
                            return status
                        }, displayPath: displayPath, track: track, pipe: nil, localPath: nil, activity: activity,
                        remote: (url, opening.options))
                }
            } catch let ProResDecodeError.inputUnreadable(_, reason)
                where attempt < opening.attempts && URLOpening.isTransient(status)
                && !activity.wasStopped && activity.bodyProblem == nil && activity.redirectProblem == nil
            {
                retried?(
                    "try \(attempt) of \(opening.attempts): \(reason); again in \(JSON.number(delay, digits: 2)) s")
                // The wait ends early when the file's time is up.
                let until = monotonicNanoseconds() + UInt64(delay * 1e9)
                while monotonicNanoseconds() < until, !activity.wasStopped { usleep(20_000) }
                delay *= 2
            }
        }
    }
}
