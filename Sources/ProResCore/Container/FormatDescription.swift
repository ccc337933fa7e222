/// What a ProRes track is (CMVideoFormatDescription): shared by every sample.
/// Container facts and frame-header facts are merged here, each colour tag
/// with its provenance.
public struct FormatDescription: Sendable {
    /// The profile, from the container's FourCC; nil when the input carries
    /// none (raw elementary streams), in which case `profileNote` says why.
    public let profile: ProResProfile?
    public let profileNote: String?
    /// The codec tag handed to the decoder: it selects the decoded precision.
    public let codecTag: UInt32
    public let width: Int
    public let height: Int
    /// Frames per second as a rational, nil when unknown.
    public let frameRate: (numerator: Int, denominator: Int)?
    /// A pixel's width over its height (QuickTime `pasp`, MXF aspect
    /// ratio) in lowest terms; nil when the container does not say, which
    /// means square.
    public let sampleAspectRatio: (numerator: Int, denominator: Int)?
    /// The first frame's time code as libavformat reports it ("01:00:00:00",
    /// ';' before the frames for drop-frame; from a `tmcd` track or MXF), nil when none.
    public let timecode: String?
    /// HDR mastering metadata from the container's side data, nil when absent.
    public let masteringDisplay: MasteringDisplay?
    public let contentLightLevel: ContentLightLevel?
    /// Frame count, nil when the container does not say.
    public let frameCount: Int?
    /// Precision of the decoded samples (the native format's depth).
    public let bitDepth: Int
    public let chroma: ProResFrameHeader.Chroma
    public let alpha: ProResFrameHeader.Alpha
    public let fieldOrder: ProResFrameHeader.FieldOrder
    public private(set) var colorTags: ColorTags
    /// Creator code from the first frame header ("apl0", "fmpg", ...).
    public let creator: String
    /// The format the decoder writes: the `native` output layout.
    public let nativeFormat: PlanarFormat
    /// "mov,mp4,m4a,3gp,3g2,mj2", "mxf", "prores elementary stream", ...
    public let containerName: String
    public let trackIndex: Int
    /// Stream time base, for interpreting pts.
    public let timeBase: (numerator: Int, denominator: Int)
    /// Things the user should hear about (conflicting tags, guessed values).
    public let notes: [String]
    /// The sample table's timestamps judged: nominal step, gaps, duplicates;
    /// nil when the container has no table of every frame (Matroska, an elementary stream).
    public let timing: TrackTiming?
    /// The field order the container states (QuickTime `fiel`), nil when it says none.
    public let containerFieldOrder: ProResFrameHeader.FieldOrder?
    /// Frames the container's index places past the end of the file; nil when none do.
    public let truncation: TruncatedMedia?
    /// The sample aspect ratio code of the first frame header (0: unknown).
    public let headerAspectRatioCode: Int
    /// The container's sound tracks, in stream order; none for an elementary stream.
    public package(set) var audioTracks: [AudioTrack] = []

    public var hasAlpha: Bool { alpha != .none }

    public var profileName: String { profile?.name ?? "ProRes (profile unknown)" }

    /// The packed layout that holds this source without conversion.
    public var nativePackedLayout: PackedLayout { .native(for: chroma) }

    /// `ratio` in lowest terms, or nil when it is square or meaningless (0/x, x/0).
    static func reducedNonSquare(_ ratio: (numerator: Int, denominator: Int)) -> (numerator: Int, denominator: Int)? {
        guard ratio.numerator > 0, ratio.denominator > 0, ratio.numerator != ratio.denominator else { return nil }
        var (a, b) = (ratio.numerator, ratio.denominator)
        while b != 0 { (a, b) = (b, a % b) }
        return (ratio.numerator / a, ratio.denominator / a)
    }

    /// The time code of source frame `index`: the start time code advanced
    /// by `index` frames. Nil when the source has none, no frame rate, or a
    /// time code that is not one (`99:99:99:99`, noted in `notes`): what
    /// every output (MOV, NUT, EXR) writes for its first frame.
    public func timecode(atFrame index: Int) -> SMPTETimecode? {
        guard let rate = frameRate, let start = timecode.flatMap({ SMPTETimecode($0, rate: rate) }) else { return nil }
        return start.advanced(by: index)
    }

    /// The same stream with the user's assumptions for its untagged colour (`ColorTags.assuming`).
    public func assuming(primaries: Int?, transfer: Int?, matrix: Int?) -> FormatDescription {
        var copy = self
        copy.colorTags = colorTags.assuming(primaries: primaries, transfer: transfer, matrix: matrix)
        return copy
    }

    public var framesPerSecond: Double? {
        frameRate.map { Double($0.numerator) / Double($0.denominator) }
    }

    /// Merges the container's view with the first frame header. The header
    /// decides the picture facts; tags follow `ColorTags`' rules.
    package init(
        header: ProResFrameHeader, profile: ProResProfile?, profileNote: String?,
        containerTags: (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool?),
        containerSize: (width: Int, height: Int)?,
        frameRate: (numerator: Int, denominator: Int)?, frameCount: Int?,
        containerName: String, trackIndex: Int, timeBase: (numerator: Int, denominator: Int),
        frameCountNote: String? = nil,
        sampleAspectRatio: (numerator: Int, denominator: Int)? = nil, timecode: String? = nil,
        masteringDisplay: MasteringDisplay? = nil, contentLightLevel: ContentLightLevel? = nil,
        timing: TrackTiming? = nil, containerFieldOrder: ProResFrameHeader.FieldOrder? = nil,
        truncation: TruncatedMedia? = nil
    ) {
        self.profile = profile
        self.profileNote = profileNote
        // Without a FourCC, choose the tag FFmpeg decodes at the precision the
        // header's chroma format implies (12 bits for 4:4:4, 10 for 4:2:2).
        let effectiveProfile = profile ?? (header.chroma == .c444 ? .p4444 : .hq)
        codecTag = effectiveProfile.codecTag
        width = header.width
        height = header.height
        self.frameRate = frameRate
        self.frameCount = frameCount
        self.sampleAspectRatio = sampleAspectRatio.flatMap(Self.reducedNonSquare)
        self.timecode = timecode
        self.masteringDisplay = masteringDisplay
        self.contentLightLevel = contentLightLevel
        bitDepth = effectiveProfile.decodedBitDepth
        chroma = header.chroma
        alpha = header.alpha
        fieldOrder = header.fieldOrder
        creator = header.creator
        colorTags = ColorTags(
            bitstream: (header.colorPrimaries, header.transferCharacteristic, header.matrixCoefficients),
            container: containerTags, height: header.height)
        nativeFormat = PlanarFormat(
            decoding: header.chroma, bitDepth: effectiveProfile.decodedBitDepth, alpha: header.alpha != .none)
        self.containerName = containerName
        self.trackIndex = trackIndex
        self.timeBase = timeBase
        self.timing = timing
        self.containerFieldOrder = containerFieldOrder
        self.truncation = truncation
        headerAspectRatioCode = header.aspectRatioCode
        var notes = colorTags.conflicts
        if let containerSize, containerSize != (header.width, header.height) {
            notes.append(
                "container says \(containerSize.width)x\(containerSize.height), frame header says \(header.width)x\(header.height); using the frame header"
            )
        }
        if let profile, profile.isFourFourFourFamily != (header.chroma == .c444) {
            notes.append("FourCC \(profile.fourCC) (\(profile.name)) carries \(header.chroma.rawValue) frames")
        }
        if let timecode, frameRate.flatMap({ SMPTETimecode(timecode, rate: $0) }) == nil {
            let rate = frameRate.map { " at \($0.numerator)/\($0.denominator) fps" } ?? " without a frame rate"
            notes.append("time code '\(timecode)' is not a valid SMPTE time code\(rate); no output carries it")
        }
        if let containerFieldOrder, containerFieldOrder != header.fieldOrder {
            notes.append(
                "field order: " + Self.fieldOrderConflict(container: containerFieldOrder, bitstream: header.fieldOrder))
        }
        if let timing, !timing.isConstant {
            // The first few by frame and time; `check` lists more.
            let shown = 5
            notes.append(timing.summary)
            notes += timing.findings.prefix(shown)
            if timing.findings.count > shown { notes.append("\(timing.findings.count - shown) more irregular steps") }
        }
        if let truncation { notes.append(truncation.words) }
        if let profileNote { notes.append(profileNote) }
        if let frameCountNote { notes.append(frameCountNote) }
        self.notes = notes
    }

    /// "the container says bottom field first, the frame header says top field first; decoding by the frame header".
    static func fieldOrderConflict(
        container: ProResFrameHeader.FieldOrder, bitstream: ProResFrameHeader.FieldOrder
    ) -> String {
        "the container says \(container.rawValue), the frame header says \(bitstream.rawValue); "
            + "decoding by the frame header"
    }

    /// The container's sample aspect ratio against the frame header's
    /// aspect ratio code (RDD 36: 1 square pixels, 2 a 4:3 picture, 3 a
    /// 16:9 picture; 0 and the rest say nothing), when both say and differ.
    public var aspectRatioConflict: String? {
        let sar = sampleAspectRatio ?? (1, 1)
        guard sampleAspectRatio != nil || headerAspectRatioCode >= 2 else { return nil }
        let shown: (Int, Int)
        switch headerAspectRatioCode {
        case 1: shown = (width, height)
        case 2: shown = (4, 3)
        case 3: shown = (16, 9)
        default: return nil
        }
        let container = Self.reducedNonSquare((width * sar.numerator, height * sar.denominator)) ?? (1, 1)
        let header = Self.reducedNonSquare(shown) ?? (1, 1)
        guard container != header else { return nil }
        let said = headerAspectRatioCode == 1 ? "square pixels" : "a \(shown.0):\(shown.1) picture"
        return "the container says SAR \(sar.numerator):\(sar.denominator) (a \(container.0):\(container.1) picture), "
            + "the frame header says \(said); the container's is used"
    }

    /// The field order of container and frame header, when both say and differ.
    public var fieldOrderConflict: String? {
        guard let containerFieldOrder, containerFieldOrder != fieldOrder else { return nil }
        return Self.fieldOrderConflict(container: containerFieldOrder, bitstream: fieldOrder)
    }
}

/// A file whose index lists frames that lie past its end: cut inside its
/// media although its index (at the start, faststart) is whole.
public struct TruncatedMedia: Equatable, Sendable {
    /// The first frame not wholly in the file.
    public let firstFrame: Int
    /// Frames not wholly in the file.
    public let frames: Int
    public let fileBytes: Int

    public init(firstFrame: Int, frames: Int, fileBytes: Int) {
        self.firstFrame = firstFrame
        self.frames = frames
        self.fileBytes = fileBytes
    }

    public var words: String {
        "the file is cut short: the container's index lists \(frames) frame\(frames == 1 ? "" : "s"), "
            + "from frame \(firstFrame), that end past its \(fileBytes) bytes"
    }
}
