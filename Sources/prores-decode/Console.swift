import Glibc
import ProResCore
import ProResFFmpeg
import GPUKit
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
                if n <= 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    static func standardOutput(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }
}

/// A self-updating progress line on a terminal, redrawn at most 5 times a second.
final class ProgressLine {
    private let total: Int?
    private let started = monotonicNanoseconds()
    private var lastDraw: UInt64 = 0
    private var drawn = false

    init(total: Int?) { self.total = total }

    func update(_ done: Int) {
        let now = monotonicNanoseconds()
        guard now - lastDraw > 200_000_000 else { return }
        lastDraw = now
        let seconds = Double(now - started) / 1e9
        let fps = seconds > 0 ? Double(done) / seconds : 0
        let of = total.map { "/\($0)" } ?? ""
        Console.write("\r\u{1B}[Kframe \(done)\(of)  \(JSON.number(fps, digits: 1)) fps")
        drawn = true
    }

    func clear() {
        if drawn { Console.write("\r\u{1B}[K") }
    }
}
