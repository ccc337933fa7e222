/// Joins the pieces FFmpeg logs into whole lines. `av_log` is often called
/// several times for one line (`"Packet corrupt (stream = 0, dts = 1024)"`,
/// then `".\n"`), and printed piece by piece the reader got a line that said
/// only `ffmpeg: .`. One assembler per thread: pieces from two threads are
/// two lines, never interleaved.
struct FFmpegLogLines {
    private var pending = ""
    /// The most severe level among the pending pieces (lower is more severe).
    private var pendingLevel = Int32.max

    /// Adds a piece; returns the lines it completes, without their newline,
    /// each at the most severe level of its pieces.
    mutating func append(_ piece: String, level: Int32) -> [(level: Int32, text: String)] {
        pending += piece
        pendingLevel = min(pendingLevel, level)
        guard pending.contains(where: \.isNewline) else { return [] }
        var parts = pending.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        pending = String(parts.removeLast())
        let lines = parts.map { (pendingLevel, String($0)) }
        if pending.isEmpty { pendingLevel = Int32.max }
        return lines
    }

    /// The unfinished line, if any, so an error can still be quoted before
    /// FFmpeg ends its line.
    var unfinished: (level: Int32, text: String)? { pending.isEmpty ? nil : (pendingLevel, pending) }
}
