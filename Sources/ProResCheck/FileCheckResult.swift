import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The verdict on one file, with everything the reports show.
public struct FileCheckResult: Sendable {
    public enum Status: String, Sendable {
        /// A broken rule in words: `expected frames>=24, got 12`.
        static func ruleWords(_ broken: (rule: String, actual: String)) -> String {
            "expected \(broken.rule), got \(broken.actual)"
        }

        /// Every checked frame decoded cleanly and every rule held.
        case pass
        /// As a pass, with at least one warning (`warnings`): a rule of the
        /// warning tier broken, or a finding for a person to look at.
        case warn
        /// The file was read, but a frame was damaged, undecodable or
        /// missing, a rule was broken, or the golden md5s differ.
        case fail
        /// The file could not be checked: missing, unreadable, not ProRes,
        /// timed out.
        case error
    }

    /// A problem with one frame, or with the whole file (frame nil).
    public struct FrameProblem: Equatable, Sendable {
        public let frame: Int?
        public let reason: String
    }

    public let input: CheckInput
    /// The verdict before warnings: pass, fail or error. `status` is it,
    /// with a pass that has warnings made a WARN.
    public let verdict: Status
    public let format: FormatDescription?
    /// Frames that reached the statistics and md5s (clean or damaged).
    public let framesDecoded: Int
    /// With `--sample`: the frame indices checked.
    public let sampled: [Int]?
    public let errors: [FrameProblem]
    public let failedRules: [(rule: String, actual: String)]
    /// Rules of the warning tier (the default policy, `warn ` lines of a
    /// `--policy` file) that the file breaks: each a warning.
    public internal(set) var warnedRules: [(rule: String, actual: String)] = []
    public let golden: GoldenVerdict?
    /// Over the clean frames only.
    public let statistics: FrameStatistics?
    /// Why there are no light levels for an HDR file (unsupported matrix, ...).
    public let lightNote: String?
    /// Every delivered frame's BLAKE3-256 (hex), in frame order: what a
    /// golden file records.
    public let hashes: [(index: Int, hash: String)]
    public let seconds: Double
    /// The file failed to open: with `--jobs` > 1 it is opened again alone,
    /// because FFmpeg's last logged error (quoted in the reason) is process-wide.
    let failedToOpen: Bool
    /// The decode pipeline this file shared with others failed (a device
    /// error, `GPULaneFailure`): it is checked again alone, so that no file
    /// is blamed for another's failure.
    var failedWithSharedDecoder = false
    /// An http(s) file's opens that failed in a way that passes and were
    /// tried again (`URLOpening`), in words; empty for most files.
    public internal(set) var retries: [String] = []
    /// The local file's size and modification time before it was read;
    /// nil for a URL or what could not be looked at.
    public internal(set) var source: FileSource? = nil
    /// Which decoder ran: "cpu" or "gpu (device)"; nil when none did.
    public internal(set) var decoder: String? = nil
    /// With `--previews`: what was made (nil without it). Never affects `status`.
    public internal(set) var previews: PreviewOutcome? = nil
    /// Per-frame numbers for the check page (`CheckOptions.keepsFrameSeries`);
    /// nil without it or when the file could not be checked.
    public internal(set) var series: FrameSeries? = nil
    /// Where a checked frame's description (colour, field order, …) differs
    /// from the frame before it: the first frame of each new run, and what
    /// changed. A finding in every report; a failure only by a rule.
    public internal(set) var descriptionChanges: [(frame: Int, what: String)] = []
    /// Every sound track measured; nil when not measured (`--audio none`, or the file could not be read).
    public internal(set) var audio: AudioFacts? = nil

    /// Frames whose coefficients leave the range where FFmpeg's C and x86
    /// SIMD IDCTs agree (`DecodedFrame.decodersMayDiffer`): a warning in
    /// every report, never a failure.
    public internal(set) var decodersMayDiffer: [Int] = []
    /// Frames whose hash differs from a golden hash of the other kind of
    /// decoder (ours against FFmpeg's) where either carried that flag: a
    /// warning instead of a golden mismatch (`GoldenFile.compare`).
    public internal(set) var goldenAcrossDecoders: [Int] = []

    /// What the file's container and timestamps say that is not damage
    /// (`CheckFinding`): a warning in every report.
    public internal(set) var findings: [CheckFinding] = []

    /// The file's verdict: a pass with any warning is a WARN, whatever
    /// the warning is; a fail or an error stays one.
    public var status: Status { verdict == .pass && !warnings.isEmpty ? .warn : verdict }

    /// The warnings in words, as the reports print them: every broken rule
    /// of the warning tier, every finding, every flagged frame, and every
    /// golden hash excused across decoders.
    public var warnings: [String] {
        warnedRules.map { FileCheckResult.ruleWords($0) }
            + findings.map(\.text)
            + decodersMayDiffer.map { "frame \($0): \(DecodedFrame.mayDifferNote)" }
            + goldenAcrossDecoders.map {
                "frame \($0): its hash differs from the golden file's, written by another decoder, on a frame where the decoders may differ"
            }
    }

    /// Each description change in words, as the reports print it.
    public var descriptionChangeNotes: [String] {
        descriptionChanges.map { "frame \($0.frame): the description changes: \($0.what)" }
    }

    /// Every reason this file did not pass, file-level first.
    public var problems: [String] {
        errors.map { p in p.frame.map { "frame \($0): \(p.reason)" } ?? p.reason }
            + failedRules.map(FileCheckResult.ruleWords)
            + (golden?.problem.map { [$0] } ?? [])
    }

    /// A broken rule in words: `expected frames>=24, got 12`.
    static func ruleWords(_ broken: (rule: String, actual: String)) -> String {
        "expected \(broken.rule), got \(broken.actual)"
    }

    /// Every checked frame decoded cleanly (damage-free hashes, fit for a golden file).
    public var decodedCleanly: Bool { status != .error && errors.isEmpty }

    /// A file that fails before any frame: it was read, and what it holds is wrong.
    static func failure(_ input: CheckInput, _ reason: String, seconds: Double) -> FileCheckResult {
        FileCheckResult(
            input: input, verdict: .fail, format: nil, framesDecoded: 0, sampled: nil,
            errors: [FrameProblem(frame: nil, reason: reason)], failedRules: [], golden: nil, statistics: nil,
            lightNote: nil, hashes: [], seconds: seconds, failedToOpen: false)
    }

    static func error(
        _ input: CheckInput, _ reason: String, format: FormatDescription? = nil, seconds: Double,
        failedToOpen: Bool = false
    ) -> FileCheckResult {
        FileCheckResult(
            input: input, verdict: .error, format: format, framesDecoded: 0, sampled: nil,
            errors: [FrameProblem(frame: nil, reason: reason)], failedRules: [], golden: nil, statistics: nil,
            lightNote: nil, hashes: [], seconds: seconds, failedToOpen: failedToOpen)
    }
}
