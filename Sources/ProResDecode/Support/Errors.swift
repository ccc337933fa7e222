import CFFmpeg

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

/// A libav* return code with FFmpeg's own wording for it.
public struct FFmpegError: Error, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return String(cString: buffer)
    }

    public var isEndOfFile: Bool { code == PD_AVERROR_EOF }
    public var isTryAgain: Bool { code == PD_AVERROR_EAGAIN }
    public var posixErrno: Int32 { pd_averror_to_errno(code) }
}

/// A failure while reading the compressed bitstream of one frame.
public struct BitstreamError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
