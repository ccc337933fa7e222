import ProResCore

/// FFmpeg's `framemd5`/`framehash` text, version 2 (libavformat/hashenc.c),
/// so our lines can be diffed against `ffmpeg -i X -f framemd5 -` as they
/// are. The header is the one ffmpeg writes with `-fflags +bitexact` (no
/// `#software:` line: it would name our build, and differ between builds).
///
/// Times are in ffmpeg's output time base: one over the frame rate (what
/// its rawvideo encoder uses), so pts counts frames and duration is 1; the
/// stream's own time base when the rate is unknown. Unlike ffmpeg, a
/// container whose first pts is not 0 keeps its offset (ffmpeg shifts the
/// start to 0), so the pts column still names the frame with `--start`.
///
/// The rate is the nominal one (ffprobe's `r_frame_rate`), and each pts
/// follows ffmpeg's variable-rate output (`-fps_mode vfr`, what its
/// framemd5 muxer gets): a frame that rounds onto the tick of the frame
/// before moves to the next tick, and a gap keeps its length. A third frame
/// on one tick, which ffmpeg drops, keeps its line here.
struct FrameHashLines: Sendable {
    public let header: String
    private var streamTimeBase: (numerator: Int, denominator: Int)
    private let timeBase: (numerator: Int, denominator: Int)
    private let duration: Int64
    /// The tick the next frame goes to unless its own time is later (ffmpeg's `sync_opts`).
    private var nextTick: Int64?

    /// `hashName`: what ffmpeg's `#hash:` line says ("MD5"); ours for BLAKE3.
    /// `layout`: the packed layout hashed, named in a `#layout:` line; nil
    /// for the native planar frame, whose header is ffmpeg's, line for line.
    public init(format: FormatDescription, hashName: String, layout: PackedLayout? = nil) {
        streamTimeBase = format.timeBase
        // An elementary stream counts frames (pts = index); without a rate in
        // its frame headers it is read at ffmpeg's raw-stream default, 25 fps.
        let elementary = format.containerName == "prores elementary stream"
        if let rate = format.frameRate ?? (elementary ? (25, 1) : nil), rate.numerator > 0, rate.denominator > 0 {
            timeBase = Self.reduced((rate.denominator, rate.numerator))
            if elementary { streamTimeBase = timeBase }
            duration = 1
        } else {
            timeBase = format.timeBase
            duration = 0
        }
        // An unstated aspect ratio is square: ffmpeg's readers of our
        // fixtures all say 1/1 (it would print 0/1 for a file that says nothing).
        let sar = format.sampleAspectRatio ?? (1, 1)
        header = """
            #format: frame checksums
            #version: 2
            #hash: \(hashName)
            \(layout.map { "#layout: \($0.rawValue)\n" } ?? "")#tb 0: \(timeBase.numerator)/\(timeBase.denominator)
            #media_type 0: video
            #codec_id 0: rawvideo
            #dimensions 0: \(format.width)x\(format.height)
            #sar 0: \(sar.numerator)/\(sar.denominator)
            #stream#, dts,        pts, duration,     size, hash

            """
    }

    /// `0, DTS, PTS, DURATION, SIZE, HASH`, ffmpeg's printf widths
    /// (`%10` dts and pts, `%8` duration and size). ProRes is intra-only:
    /// dts is pts. A frame without pts gets AV_NOPTS_VALUE, as in ffmpeg.
    public mutating func line(pts: Int64?, size: Int, hex: String) -> String {
        var time = Int64.min
        if let pts { time = outputTick(pts) }
        return
            "0, \(Self.padded(time, 10)), \(Self.padded(time, 10)), \(Self.padded(duration, 8)), \(Self.padded(Int64(size), 8)), \(hex)\n"
    }

    /// The frame's tick in the output time base, as ffmpeg's variable-rate
    /// sync places it (fftools' `do_video_out`, a frame lasting one tick).
    mutating func outputTick(_ pts: Int64) -> Int64 {
        let nearest = rescale(pts)
        guard duration == 1, let next = nextTick else {
            nextTick = nearest &+ 1
            return nearest
        }
        let exact =
            Double(pts) * Double(streamTimeBase.numerator) * Double(timeBase.denominator)
            / (Double(streamTimeBase.denominator) * Double(timeBase.numerator))
        // A frame at or after its place keeps its own tick; one before it (by less than a tick: it rounded
        // onto the tick of the frame before) goes to the place.
        let tick = exact >= Double(next) ? max(nearest, next) : next
        nextTick = tick &+ 1
        return tick
    }

    /// `av_rescale_q` with its default rounding (nearest, halves away from 0).
    func rescale(_ pts: Int64) -> Int64 {
        let numerator = Int64(streamTimeBase.numerator) * Int64(timeBase.denominator)
        let denominator = Int64(streamTimeBase.denominator) * Int64(timeBase.numerator)
        guard denominator > 0 else { return pts }
        let (product, overflow) = pts.multipliedReportingOverflow(by: numerator)
        if overflow { return Int64((Double(pts) * Double(numerator) / Double(denominator)).rounded()) }
        let half = denominator / 2
        return product >= 0 ? (product + half) / denominator : -((-product + half) / denominator)
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private static func reduced(_ ratio: (Int, Int)) -> (numerator: Int, denominator: Int) {
        var (a, b) = ratio
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? ratio : (ratio.0 / a, ratio.1 / a)
    }
}
