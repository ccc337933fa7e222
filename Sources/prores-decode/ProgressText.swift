/// The words of the progress line, apart from the terminal that shows them:
/// a pure function, so tests (which have no terminal) can hold it to its format.
enum ProgressText {
    /// `frame 480/1920 25% 312 fps 12.5x realtime ETA 0:05`. What is not
    /// known is left out: the total (and with it % and ETA), the rate before
    /// any time has passed, the realtime factor without a media frame rate.
    /// `rateUnit` nil: no rate at all (`file 3/10 30% ETA 0:12`).
    static func line(
        unit: String, done: Int, total: Int?, seconds: Double, rateUnit: String? = "fps",
        mediaFrameRate: Double? = nil
    ) -> String {
        var parts = [unit + " \(done)" + (total.map { "/\($0)" } ?? "")]
        if let total, total > 0 { parts.append("\(min(100, done * 100 / total))%") }
        let rate = seconds > 0 && done > 0 ? Double(done) / seconds : nil
        if let rateUnit, let rate {
            parts.append(number(rate) + " " + rateUnit)
            if let mediaFrameRate, mediaFrameRate > 0 { parts.append(number(rate / mediaFrameRate) + "x realtime") }
        }
        if let total, let rate, done < total {
            parts.append("ETA " + duration((Double(total - done) / rate).rounded(.up)))
        }
        return parts.joined(separator: " ")
    }

    /// `0:05`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(min(max(seconds, 0), 359_999)) : 359_999
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }

    /// Three significant figures at most, never a fraction above 100: `312`, `12.5`, `0.84`.
    static func number(_ value: Double) -> String {
        if value >= 100 { return "\(Int(value.rounded()))" }
        if value >= 10 { return trimmed((value * 10).rounded() / 10) }
        return trimmed((value * 100).rounded() / 100)
    }

    private static func trimmed(_ value: Double) -> String {
        var text = "\(value)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
