import CFFmpeg
import Foundation
import HostSupport
import ProResCore

/// FFmpeg's diagnostics. By default we print none of them and report
/// problems in our own words; the last error FFmpeg logged is kept so those
/// words can quote it ("moov atom not found"). `--verbose` shows warnings too.
///
/// The last error is kept per thread: libavformat logs an open's failure on
/// the thread that opens, and `check --jobs N` opens files on N threads at
/// once, each of which must quote its own file's error, not another's. For
/// the same reason lines are assembled per thread (`FFmpegLogLines`), and a
/// thread working on one file can name it (`withContext`) so that its lines
/// say which file they are about.
public enum FFmpegLog {
    private static let state = State()

    // @unchecked: touched only under `lock`.
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var verbose = false
        var lastErrors: [pthread_t: String] = [:]
        var lines: [pthread_t: FFmpegLogLines] = [:]
        var contexts: [pthread_t: String] = [:]
        var activities: [pthread_t: HTTPActivity] = [:]
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
            guard let format, let arguments else { return }
            let http = HTTPLine(format: format)
            guard http != nil || level <= AV_LOG_WARNING else { return }
            // A va_list is read once: the text serves both uses.
            var buffer = [CChar](repeating: 0, count: http == nil ? 512 : 4096)
            _ = vsnprintf(&buffer, buffer.count, format, arguments)
            let piece = String(cBuffer: buffer)
            if let http {
                FFmpegLog.recordHTTP(http, piece)
                // The request holds its Authorization header: never shown.
                if http == .request { return }
            }
            guard level <= AV_LOG_WARNING else { return }
            FFmpegLog.record(level: level, piece: piece)
        }
        return true
    }()

    private static func record(level: Int32, piece: String) {
        let thread = pthread_self()
        state.lock.lock()
        let verbose = state.verbose
        let context = state.contexts[thread]
        let complete = state.lines[thread, default: FFmpegLogLines()].append(piece, level: level)
        var shown: [String] = []
        for line in complete {
            // FFmpeg may quote a URL: its password is not to be shown or reported.
            let message = URLCredentials.redacted(line.text.trimmingCharacters(in: .whitespaces))
            if message.isEmpty { continue }
            if line.level <= AV_LOG_ERROR { state.lastErrors[thread] = message }
            shown.append(message)
        }
        state.lock.unlock()
        if verbose, !shown.isEmpty {
            let prefix = "ffmpeg: " + (context.map { $0 + ": " } ?? "")
            // Escaped like every message: a file name's bytes, FFmpeg's quotes of the data.
            FileHandle.standardError.write(Data(shown.map { TerminalText.escaped(prefix + $0) + "\n" }.joined().utf8))
        }
    }

    /// Runs `body` with this thread's FFmpeg lines prefixed by `label` (the
    /// file being checked). Lines FFmpeg logs from its own decoder threads
    /// carry no label: which file they belong to is not known there.
    public static func withContext<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let thread = pthread_self()
        state.lock.lock()
        let outer = state.contexts.updateValue(label, forKey: thread)
        state.lock.unlock()
        defer {
            state.lock.lock()
            state.contexts[thread] = outer
            state.lock.unlock()
        }
        return try body()
    }

    /// The lines of libavformat's http protocol an `HTTPActivity` follows.
    private enum HTTPLine {
        case request, header, inflate

        init?(format: UnsafePointer<CChar>) {
            // Compared as C strings first: the callback sees every trace line of every demuxer.
            if strcmp(format, "header='%s'\n") == 0 {
                self = .header
            } else if strcmp(format, "request: %s\n") == 0 {
                self = .request
            } else if strncmp(format, "inflate return value", 20) == 0 {
                self = .inflate
            } else {
                return nil
            }
        }
    }

    private static func recordHTTP(_ kind: HTTPLine, _ text: String) {
        state.lock.lock()
        let activity = state.activities[pthread_self()]
        state.lock.unlock()
        guard let activity else { return }
        switch kind {
        case .request: activity.requestSent()
        case .header:
            guard text.hasPrefix("header='"), text.hasSuffix("'\n") else { return }
            activity.headerLine(String(text.dropFirst(8).dropLast(2)))
        case .inflate: activity.bodyDoesNotInflate(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Runs `body` (libavformat calls on a URL) with this thread's http
    /// lines going to `activity`.
    static func recording<T>(_ activity: HTTPActivity?, _ body: () throws -> T) rethrows -> T {
        guard let activity else { return try body() }
        let thread = pthread_self()
        state.lock.lock()
        let outer = state.activities.updateValue(activity, forKey: thread)
        state.lock.unlock()
        activity.enter()
        defer {
            activity.leave()
            state.lock.lock()
            state.activities[thread] = outer
            state.lock.unlock()
        }
        return try body()
    }

    /// Forgets this thread's last error, so that a following `lastError`
    /// is about what happened after this call.
    public static func clear() {
        state.lock.lock()
        state.lastErrors[pthread_self()] = nil
        state.lines[pthread_self()] = nil
        state.lock.unlock()
    }

    /// The last error FFmpeg logged on this thread since `clear()`: the
    /// last whole error line, or an error line FFmpeg has not ended yet.
    public static var lastError: String? {
        state.lock.lock()
        defer { state.lock.unlock() }
        let thread = pthread_self()
        if let unfinished = state.lines[thread]?.unfinished, unfinished.level <= AV_LOG_ERROR {
            let text = URLCredentials.redacted(unfinished.text.trimmingCharacters(in: .whitespaces))
            if !text.isEmpty { return text }
        }
        return state.lastErrors[thread]
    }
}
