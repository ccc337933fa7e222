import CFFmpeg
import Foundation
import ProResCore

/// FFmpeg's diagnostics. By default we print none of them and report
/// problems in our own words; the last error FFmpeg logged is kept so those
/// words can quote it ("moov atom not found"). `--verbose` shows warnings too.
///
/// The last error is kept per thread: libavformat logs an open's failure on
/// the thread that opens, and `check --jobs N` opens files on N threads at
/// once, each of which must quote its own file's error, not another's.
public enum FFmpegLog {
    private static let state = State()

// @unchecked: touched only under `lock`.
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var verbose = false
        var lastErrors: [pthread_t: String] = [:]
    }

    public static func configure(verbose: Bool) {
        state.lock.lock()
        state.verbose = verbose
        state.lock.unlock()
        install()
    }

    /// Routes FFmpeg's log through `record` (once; readers and sessions
    /// call this so library users get the quiet default too).
    static func install() { _ = installed }

    private static let installed: Bool = {
        av_log_set_level(AV_LOG_WARNING)
        av_log_set_callback { _, level, format, arguments in
            guard level <= AV_LOG_WARNING, let format, let arguments else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            _ = vsnprintf(&buffer, buffer.count, format, arguments)
            let message = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
            FFmpegLog.record(level: level, message: message)
        }
        return true
    }()

    private static func record(level: Int32, message: String) {
        state.lock.lock()
        let verbose = state.verbose
        if level <= AV_LOG_ERROR { state.lastErrors[pthread_self()] = message }
        state.lock.unlock()
        if verbose { FileHandle.standardError.write(Data("ffmpeg: \(message)\n".utf8)) }
    }

    /// Forgets this thread's last error, so that a following `lastError`
    /// is about what happened after this call.
    public static func clear() {
        state.lock.lock()
        state.lastErrors[pthread_self()] = nil
        state.lock.unlock()
    }

    /// The last error FFmpeg logged on this thread since `clear()`.
    public static var lastError: String? {
        state.lock.lock()
        defer { state.lock.unlock() }
        return state.lastErrors[pthread_self()]
    }
}
