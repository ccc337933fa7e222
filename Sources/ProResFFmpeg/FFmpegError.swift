import CFFmpeg
import ProResCore

/// A libav* return code with FFmpeg's own wording for it.
public struct FFmpegError: Error, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return String(cBuffer: buffer)
    }

    public var isEndOfFile: Bool { code == PD_AVERROR_EOF }
    public var isTryAgain: Bool { code == PD_AVERROR_EAGAIN }
    public var posixErrno: Int32 { pd_averror_to_errno(code) }
}

extension String {
    /// The text a C function wrote into `buffer`, up to its NUL (all of it
    /// without one), invalid UTF-8 repaired: FFmpeg's messages and log lines.
    init(cBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
