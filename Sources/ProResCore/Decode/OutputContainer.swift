/// What `-o` wraps the frames in, chosen by the output name's extension
/// (`--container` forces one). Only raw holds every layout: the others hold
/// the decoder's native planar format, the one FFmpeg has a pixel format
/// for that its own readers take back (ffmpeg 5.1 checked: y416 would be
/// `ayuv64le`, byte for byte, but NUT has no tag for it and reads it back as
/// rgb555le; v216 has no FFmpeg pixel format at all). QuickTime holds the
/// native 4:2:2 10-bit frames repacked losslessly as v210; FFmpeg 5.1's mov
/// muxer has no uncompressed layout for 12-bit 4:4:4(4) that it reads back
/// (it tags raw planar video `Y3[11][12]`, which its reader does not know;
/// v410 is 10-bit), so those are refused rather than rounded.
public enum OutputContainer: String, CaseIterable, Sendable {
    /// Frames concatenated, nothing else (today's `-o`).
    case raw
    /// yuv4mpeg2: a one-line header, `FRAME` before each frame.
    case y4m
    /// NUT through libavformat, codec rawvideo.
    case nut
    /// QuickTime through libavformat: 4:2:2 10-bit as v210 (even widths).
    case mov

    /// By extension (case-insensitive); stdout and unknown names are raw.
    public init(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            self = .raw
            return
        }
        switch name[name.index(after: dot)...].lowercased() {
        case "y4m": self = .y4m
        case "nut": self = .nut
        case "mov", "qt": self = .mov
        default: self = .raw
        }
    }

    /// The layout a run writes when `--format` is not given.
    public func defaultOutput(for format: FormatDescription) -> OutputSelection {
        self == .raw ? .packed(format.nativePackedLayout) : .native
    }

    /// Why this container cannot hold `output` of `format`; nil when it can.
    public func refusal(holding output: OutputSelection, of format: FormatDescription) -> String? {
        if self == .raw { return nil }
        switch output {
        case .packed(.v216):
            return
                "\(rawValue) cannot hold v216: FFmpeg has no pixel format for it; use --format native (\(format.nativeFormat.name)) or a raw output"
        case .packed(.y416):
            let why =
                self == .y4m
                ? "y4m holds planar formats only" : "it is FFmpeg's ayuv64le, which NUT in FFmpeg 5.1 has no tag for"
            return
                "\(rawValue) cannot hold y416 (\(why)); use --format native (\(format.nativeFormat.name)) or a raw output"
        case .native:
            if self == .y4m && format.nativeFormat.hasAlpha {
                return
                    "y4m cannot hold \(format.nativeFormat.name): its only alpha format is 8-bit (yuva444p); write .nut, or raw"
            }
            if self == .mov { return movRefusal(format) }
            return nil
        }
    }

    /// QuickTime holds v210 only: 4:2:2 10-bit, even widths.
    private func movRefusal(_ format: FormatDescription) -> String? {
        let native = format.nativeFormat
        if native.chroma != .c422 || native.bitDepth != 10 {
            return "QuickTime (.mov) cannot hold \(native.name) losslessly: FFmpeg 5.1's mov muxer has no uncompressed "
                + "\(native.bitDepth)-bit 4:4:4 layout its reader takes back (v410 is 10-bit); write .nut, or raw"
        }
        if format.width % 2 != 0 {
            return
                "QuickTime (.mov) holds 4:2:2 10-bit as v210, which FFmpeg 5.1 takes at even widths only (this is \(format.width) wide); "
                + "write .nut or .y4m, or raw"
        }
        return nil
    }
}
