/// A request the input or the other settings cannot satisfy, as data: the
/// library describes it in its own words, and a front end (the CLI) can word
/// it in terms of its own options.
public enum BadRequest: Equatable, Sendable {
    /// What holds the frames a seek counted: a container track or a raw stream.
    public enum FrameContainer: String, Equatable, Sendable {
        case track, stream
    }

    /// A seek to `start` in a source of `frames` frames.
    case startPastEnd(start: Int, frames: Int, container: FrameContainer)
    /// A run that started at `at` (> 0) read no frame.
    case noFrame(at: Int)
    /// A run from the beginning read no frame.
    case noFrames
    /// Track `requested` does not exist; `summary` lists the file's streams.
    case noSuchTrack(requested: Int, path: String, streams: Int, summary: String)
    /// A raw elementary stream has only track 0.
    case elementaryStreamHasOneTrack(requested: Int)
    /// An effect spec that does not parse; `why` names the problem.
    case invalidEffect(spec: String, why: String)
    /// The GPU conversion was asked for the decoder's native planar output.
    case conversionNeedsPackedLayout
    /// Frames were to be saved without the GPU conversion that produces them.
    case saveNeedsConversion
    /// Any other request, in words that need no front-end vocabulary.
    case message(String)

    public var description: String {
        switch self {
        case .startPastEnd(let start, let frames, let container):
            return "start frame \(start) is past the last frame (the \(container.rawValue) has \(frames) frames)"
        case .noFrame(let at): return "the input has no frame \(at)"
        case .noFrames: return "the input has no frames"
        case .noSuchTrack(let requested, let path, let streams, let summary):
            return "track \(requested): '\(path)' has \(streams) stream(s) (\(summary))"
        case .elementaryStreamHasOneTrack(let requested):
            return "track \(requested): a raw ProRes elementary stream has only track 0"
        case .invalidEffect(let spec, let why): return "invalid effect '\(spec)': \(why)"
        case .conversionNeedsPackedLayout:
            return "the GPU conversion produces y416 or v216 surfaces; the native format is the decoder's planar output"
        case .saveNeedsConversion:
            return "saving frames needs the GPU conversion (frames are saved as converted on the GPU)"
        case .message(let text): return text
        }
    }
}
