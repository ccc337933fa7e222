import Foundation
import HostSupport

/// The facts a person reads first, in words: the picture as displayed,
/// the running time, the time code and the HDR side data (`info`'s text and
/// `check --html`'s format block; `info --json` has them as numbers).
extension FormatDescription {
    /// The picture on a square-pixel display: the width stretched (or
    /// narrowed) by the sample aspect ratio, as players size their window
    /// (720×576 at 16:15 shows 768×576).
    public var displaySize: (width: Int, height: Int) {
        guard let sar = sampleAspectRatio, sar.numerator > 0, sar.denominator > 0 else { return (width, height) }
        return (max(1, Int((Double(width) * Double(sar.numerator) / Double(sar.denominator)).rounded())), height)
    }

    /// "768x576 (SAR 16:15, DAR 4:3)".
    public var displayWords: String {
        let sar = sampleAspectRatio ?? (1, 1)
        let dar = Self.lowestTerms(width * sar.numerator, height * sar.denominator)
        let shown = displaySize
        return "\(shown.width)x\(shown.height) (SAR \(sar.numerator):\(sar.denominator), DAR \(dar.0):\(dar.1))"
    }

    /// "00:00:12.480 (312 frames)"; nil when the frame count or rate is unknown.
    public var durationWords: String? {
        guard let count = frameCount, let seconds = durationSeconds else { return nil }
        let milliseconds = (seconds * 1000).rounded()
        let total = Int(milliseconds)
        let clock = String(
            format: "%02d:%02d:%02d.%03d", total / 3_600_000, total / 60_000 % 60, total / 1000 % 60, total % 1000)
        return "\(clock) (\(count) frame\(count == 1 ? "" : "s"))"
    }

    /// The running time in seconds: frames over the rate, or, for frames
    /// that do not keep the rate (dropped, doubled), as long as their
    /// timestamps say; nil when the frame count or rate is unknown.
    public var durationSeconds: Double? {
        guard let count = frameCount, let rate = frameRate, rate.numerator > 0, rate.denominator > 0 else {
            return nil
        }
        if let timing, timing.frames == count, !timing.isConstant { return timing.durationSeconds }
        return Double(count) * Double(rate.denominator) / Double(rate.numerator)
    }

    /// "10:00:00:00 (non-drop)", "01:00:00;02 (drop-frame)"; nil without one.
    public var timecodeWords: String? {
        timecode.map { "\($0) (\($0.contains(";") ? "drop-frame" : "non-drop"))" }
    }

    /// "R 0.708,0.292 G 0.170,0.797 B 0.131,0.046 WP 0.3127,0.3290; 0.0001–1000 cd/m²".
    public var masteringWords: String? {
        masteringDisplay.map { m in
            func xy(_ c: MasteringDisplay.Chromaticity, _ digits: Int) -> String {
                String(format: "%.\(digits)f,%.\(digits)f", c.x, c.y)
            }
            let luminance =
                (m.minLuminance.map { JSON.number($0, digits: 4) } ?? "?") + "–"
                + (m.maxLuminance.map { JSON.number($0, digits: 4) } ?? "?")
            return
                "R \(xy(m.red, 3)) G \(xy(m.green, 3)) B \(xy(m.blue, 3)) WP \(xy(m.whitePoint, 4)); \(luminance) cd/m²"
        }
    }

    /// "MaxCLL 1000 cd/m², MaxFALL 400 cd/m²".
    public var contentLightWords: String? {
        contentLightLevel.map { "MaxCLL \($0.maxCLL) cd/m², MaxFALL \($0.maxFALL) cd/m²" }
    }

    private static func lowestTerms(_ a: Int, _ b: Int) -> (Int, Int) {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? (a, b) : (a / x, b / x)
    }
}
