import Foundation
import GPUKit
import Glibc
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// Every human-facing message goes to stderr; stdout is reserved for data.
enum Console {
    static let stderrIsTerminal = isatty(STDERR_FILENO) != 0

    // Messages carry file names, file contents and FFmpeg's words: each is
    // escaped (TerminalText) so it stays one line and moves no cursor.
    static func error(_ message: String) { line("prores-decode: error: \(message)") }
    static func warning(_ message: String) { line("prores-decode: warning: \(message)") }
    static func note(_ message: String) { line("prores-decode: \(message)") }

    /// One line of text that may hold user-controlled parts, escaped.
    static func line(_ text: String) { write(TerminalText.escaped(text) + "\n") }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// Data on stdout, every byte or an error: a full disk or a reader that
    /// went away (EPIPE; SIGPIPE is ignored) fails the command with exit 6.
    static func standardOutput(_ text: String) throws {
        var text = text
        let failure = text.withUTF8 { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                guard let base = bytes.baseAddress else { return nil }
                let n = Glibc.write(STDOUT_FILENO, base + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failure {
            throw ProResDecodeError.output(
                path: "stdout",
                reason: failure == EPIPE ? "the reader closed the pipe" : String(cString: strerror(failure)))
        }
    }
}

/// A self-updating progress line on a terminal (ProgressText's words),
/// redrawn at most 5 times a second. Safe from any thread: `check` reports
/// files from its workers.
final class ProgressLine: @unchecked Sendable {
    // @unchecked: the mutable fields are touched only under `lock`.
    private let unit: String
    private let total: Int?
    private let rateUnit: String?
    private let mediaFrameRate: Double?
    private let started = monotonicNanoseconds()
    private let lock = NSLock()
    private var lastDraw: UInt64 = 0
    private var drawn = false

    init(unit: String = "frame", total: Int?, rateUnit: String? = "fps", mediaFrameRate: Double? = nil) {
        self.unit = unit
        self.total = total
        self.rateUnit = rateUnit
        self.mediaFrameRate = mediaFrameRate
    }

    /// On a terminal only: elsewhere (a pipe, a CI log) a line redrawn with
    /// `\r` is noise.
    static func onTerminal(
        unit: String = "frame", total: Int?, rateUnit: String? = "fps", mediaFrameRate: Double? = nil,
        quiet: Bool = false
    ) -> ProgressLine? {
        quiet || !Console.stderrIsTerminal
            ? nil : ProgressLine(unit: unit, total: total, rateUnit: rateUnit, mediaFrameRate: mediaFrameRate)
    }

    /// `force`: redraw now (after a message printed over the line).
    func update(_ done: Int, force: Bool = false) {
        draw(force: force) { [unit, total, rateUnit, mediaFrameRate] seconds in
            ProgressText.line(
                unit: unit, done: done, total: total, seconds: seconds, rateUnit: rateUnit,
                mediaFrameRate: mediaFrameRate)
        }
    }

    /// The line in the caller's words, given the seconds since it began.
    func draw(force: Bool = false, _ text: (Double) -> String) {
        lock.lock()
        defer { lock.unlock() }
        let now = monotonicNanoseconds()
        guard force || now - lastDraw > 200_000_000 else { return }
        lastDraw = now
        Console.write("\r\u{1B}[K" + text(Double(now - started) / 1e9))
        drawn = true
    }

    func clear() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { Console.write("\r\u{1B}[K") }
        drawn = false
    }
}
