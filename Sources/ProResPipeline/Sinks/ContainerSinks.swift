import ProResCore
import ProResFFmpeg

/// yuv4mpeg2 (`-o out.y4m`): the header FFmpeg's muxer writes for the same
/// stream (`ffmpeg -strict -1 -f yuv4mpegpipe`), then `FRAME` and the native
/// planar frame's bytes. y4m has no colour primaries, transfer or matrix:
/// only the range (`XCOLORRANGE`) travels.
public final class Y4MSink: FrameSink {
    private let file: OutputFile
    private var header: String?
    private static let frameMarker: [UInt8] = Array("FRAME\n".utf8)

    public init(file: OutputFile, format: FormatDescription) {
        self.file = file
        header = Self.header(for: format)
    }

    /// `YUV4MPEG2 W192 H112 F25:1 Ip A1:1 C422p10 XYSCSS=422P10 XCOLORRANGE=LIMITED`.
    public static func header(for format: FormatDescription) -> String {
        let native = format.nativeFormat
        // An elementary stream without a rate: ffmpeg's raw default, 25 fps.
        let rate = format.frameRate ?? (25, 1)
        let sar = format.sampleAspectRatio ?? (1, 1)
        let interlacing =
            switch format.fieldOrder {
            case .progressive: "p"
            case .topFieldFirst: "t"
            case .bottomFieldFirst: "b"
            }
        let chroma = "\(native.chroma == .c444 ? "444" : "422")p\(native.bitDepth)"
        let range = format.colorTags.range.value == .full ? "FULL" : "LIMITED"
        return "YUV4MPEG2 W\(format.width) H\(format.height) F\(rate.numerator):\(rate.denominator) I\(interlacing) "
            + "A\(sar.numerator):\(sar.denominator) C\(chroma) XYSCSS=\(chroma.uppercased()) XCOLORRANGE=\(range)\n"
    }

    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        if let header {
            self.header = nil
            try file.write(header)
        }
        try Self.frameMarker.withUnsafeBytes { try file.write([$0] + spans) }
    }

    public func finish() throws {
        // A run that wrote no frame still leaves a valid (empty) stream.
        if let header {
            self.header = nil
            try file.write(header)
        }
        try file.commit()
    }

    public func abort() { file.discard() }
}

/// NUT or QuickTime through libavformat (`-o out.nut`, `out.mov`): the
/// native planar frames (NUT: codec rawvideo; QuickTime: v210), frame rate,
/// SAR, field order and time code; QuickTime also the colour tags (`colr`).
/// QuickTime writes its index last and fills in sizes by seeking back, so
/// it needs a file, not a pipe.
public final class MuxedRawSink: FrameSink {
    private let file: OutputFile
    private let muxer: RawVideoMuxer

    /// `firstFrame`: the source frame written first, whose time code the output carries.
    /// `audio`: the input's sound tracks carried beside the frames.
    public init(
        file: OutputFile, format: FormatDescription, container: OutputContainer, firstFrame: Int = 0,
        audio: AudioCopy? = nil
    ) throws {
        self.file = file
        let seeks = container == .mov
        if seeks && !file.isSeekable {
            throw ProResDecodeError.output(
                path: file.path == "-" ? "stdout" : file.path,
                reason: "QuickTime needs a file it can seek in, not a pipe; write .nut or .y4m to a pipe")
        }
        muxer = try RawVideoMuxer(
            formatName: container.rawValue, format: format, firstFrame: firstFrame, errorPath: file.path,
            write: { bytes in
                try bytes.withUnsafeBytes { try file.write([$0]) }
            }, seek: seeks ? { file.seek(to: $0, whence: $1) } : nil, audio: audio)
    }

    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        try muxer.writeFrame(pts: pts, spans: spans)
    }

    public func finish() throws {
        try muxer.finish()
        try file.commit()
    }

    public func abort() { file.discard() }
}
