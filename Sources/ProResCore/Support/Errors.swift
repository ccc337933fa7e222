/// Every failure the library reports. Each case carries enough words to
/// print a one-line message naming the problem; the CLI maps cases to exit codes.
public enum ProResDecodeError: Error, Equatable, CustomStringConvertible {
    /// The input could not be opened or parsed as a media file at all.
    case inputUnreadable(path: String, reason: String)
    /// The input is a readable media file, but offers no usable ProRes video track.
    case notProRes(path: String, reason: String)
    /// A request that the input cannot satisfy (track, start frame, frame count).
    case badRequest(String)
    /// The decoder could not be set up.
    case decoderUnavailable(String)
    /// `--require-hardware`: no hardware Vulkan device can decode this input.
    case hardwareUnavailable(String)
    /// Writing an output failed.
    case output(path: String, reason: String)
    /// The run was stopped by a signal.
    case interrupted

    public var description: String {
        switch self {
        case let .inputUnreadable(path, reason): return "cannot read '\(path)': \(reason)"
        case let .notProRes(path, reason): return "'\(path)' is not ProRes: \(reason)"
        case let .badRequest(message): return message
        case let .decoderUnavailable(message): return "decoder unavailable: \(message)"
        case let .hardwareUnavailable(message): return "no hardware decoder: \(message)"
        case let .output(path, reason): return "cannot write '\(path)': \(reason)"
        case .interrupted: return "interrupted"
        }
    }
}

/// A failure while reading the compressed bitstream of one frame.
public struct BitstreamError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
