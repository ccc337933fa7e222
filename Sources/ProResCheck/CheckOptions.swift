import Foundation
import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// How `check` looks at each file.
public struct CheckOptions: Sendable {
    /// Check only this many evenly spaced frames per file (`--sample N`).
    public var sample: Int?
    /// Files checked at once (`--jobs N`); 0 picks 1, or one per device on
    /// the GPU decoder (`BatchCheck.jobs` says why not more).
    public var jobs: Int
    /// Seconds one file may take (`--timeout`), opening included.
    public var timeout: Double
    /// Rules a file must meet: one broken is a FAIL (`--expect`, a policy's `fail` lines).
    public var rules: [ExpectRule]
    /// Rules whose breaking is a warning, the file a WARN (the default
    /// policy, a policy's `warn` lines).
    public var warningRules: [ExpectRule] = []
    /// Compare every file with these md5s (`--golden`).
    public var golden: GoldenFile?
    /// FFmpeg threads per file; 0 picks max(1, cores / jobs).
    public var threadsPerFile: Int
    /// Contact sheet and full frame per file (`--previews DIR`); nil: none.
    public var previews: PreviewOptions?
    /// `--decoder`, `--device` (`all`: every hardware GPU), `--require-hardware`.
    public var decoder: DecoderSelection
    /// Keep each file's per-frame numbers (`FrameSeries`) for a page
    /// (`--html`); without it nothing per frame outlives the file's check.
    public var keepsFrameSeries: Bool
    /// Consecutive files on a GPU share one decode session, so that the
    /// next file's frames enter the pipeline while the last one's are still
    /// in it (`BatchCheck`, `GPUDecodeLanes`). Off (the tests' reference), a
    /// session per file; so too with more jobs than devices.
    public var sharesDecodeSessions = true
    /// Measure every sound track beside the frames (`AudioMeasurement`); off with `--audio none`.
    public var measuresAudio = true

    /// Counts every checked frame, for a progress line; nil: nothing counts.
    public var frameProgress: CheckFrameProgress?

    public static let defaultTimeout = 600.0

    public init(
        sample: Int? = nil, jobs: Int = 1, timeout: Double = CheckOptions.defaultTimeout, rules: [ExpectRule] = [],
        golden: GoldenFile? = nil, threadsPerFile: Int = 0, previews: PreviewOptions? = nil,
        decoder: DecoderSelection = .init(choice: .cpu), keepsFrameSeries: Bool = false
    ) {
        self.sample = sample
        self.jobs = jobs
        self.timeout = timeout
        self.rules = rules
        self.golden = golden
        self.threadsPerFile = threadsPerFile
        self.previews = previews
        self.decoder = decoder
        self.keepsFrameSeries = keepsFrameSeries
    }
}
