/// Every failure the library reports. Each case carries enough data to
/// print a one-line message naming the problem, in words that name no
/// command-line option (a library user has none); the CLI words the cases
/// that concern its options itself and maps cases to exit codes.
public enum ProResDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input could not be opened or parsed as a media file at all.
    case inputUnreadable(path: String, reason: String)
    /// A QuickTime recording that stopped before writing its movie index
    /// (`moov`, written last unless the file was made "fast start"): its
    /// media data is there, nothing says where the frames are.
    case truncatedRecording(path: String)
    /// The input is a readable media file, but offers no usable ProRes video track.
    case notProRes(path: String, reason: String)
    /// A request that the input cannot satisfy (track, start frame, frame count).
    case badRequest(BadRequest)
    /// The decoder could not be set up.
    case decoderUnavailable(String)
    /// Hardware was required, but no hardware Vulkan device can decode this input.
    case hardwareUnavailable(HardwareShortfall)
    /// Writing an output failed.
    case output(path: String, reason: String)
    /// The output file exists and replacing it was not allowed.
    case outputExists(path: String)
    /// The directory for check previews is unusable (`reason` says why).
    case previewDirectory(path: String, reason: String)
    /// The run was stopped by a signal.
    case interrupted

    public var description: String {
        switch self {
        case .inputUnreadable(let path, let reason): return "cannot read '\(path)': \(reason)"
        case .truncatedRecording(let path):
            return "cannot read '\(path)': \(Self.truncatedRecordingReason)"
        case .notProRes(let path, let reason): return "'\(path)' is not ProRes: \(reason)"
        case .badRequest(let request): return request.description
        case .decoderUnavailable(let message): return "decoder unavailable: \(message)"
        case .hardwareUnavailable(let shortfall): return "no hardware decoder: \(shortfall.description)"
        case .output(let path, let reason): return "cannot write '\(path)': \(reason)"
        case .outputExists(let path): return "cannot write '\(path)': already exists (replacing it was not allowed)"
        case .previewDirectory(let path, let reason): return "cannot write '\(path)': preview directory: \(reason)"
        case .interrupted: return "interrupted"
        }
    }
}

extension ProResDecodeError {
    public static let truncatedRecordingReason =
        "truncated recording (no movie index): the file holds media data but no 'moov' box, which a recorder writes when it stops"
}

/// A failure while reading the compressed bitstream of one frame.
public struct BitstreamError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
