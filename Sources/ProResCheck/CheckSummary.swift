import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The totals of a check run.
public struct CheckSummary: Sendable {
    public let files: Int
    public let passed: Int
    /// Files that passed with warnings (WARN); not among `passed`.
    public let warned: Int
    public let failed: Int
    public let errors: Int
    public let seconds: Double
    public let shard: CheckShard?
    public let sample: Int?
    /// The run was stopped by a signal: the totals are of the files it
    /// finished, and the report is one `check --resume` takes, not `merge`.
    public var interrupted = false

    public init(_ results: [FileCheckResult], seconds: Double, shard: CheckShard?, sample: Int?) {
        files = results.count
        passed = results.filter { $0.status == .pass }.count
        warned = results.filter { $0.status == .warn }.count
        failed = results.filter { $0.status == .fail }.count
        errors = results.filter { $0.status == .error }.count
        self.seconds = seconds
        self.shard = shard
        self.sample = sample
    }

    /// Totals counted elsewhere (checked files and carried ones, `--resume`).
    public init(
        files: Int, passed: Int, warned: Int, failed: Int, errors: Int, seconds: Double, shard: CheckShard?,
        sample: Int?
    ) {
        self.files = files
        self.passed = passed
        self.warned = warned
        self.failed = failed
        self.errors = errors
        self.seconds = seconds
        self.shard = shard
        self.sample = sample
    }

    /// `8 files: 3 passed, 1 warned, 2 failed, 2 errors in 0.42 s`
    public var text: String {
        Self.counts(files: files, passed: passed, warned: warned, failed: failed, errors: errors)
            + (shard.map { " (shard \($0))" } ?? "") + " in \(JSON.number(seconds, digits: 2)) s"
            + (interrupted ? ", interrupted" : "")
    }

    /// `8 files: 3 passed, 1 warned, 2 failed, 2 errors`, as check and merge word their totals.
    public static func counts(files: Int, passed: Int, warned: Int, failed: Int, errors: Int) -> String {
        "\(files) file\(files == 1 ? "" : "s"): \(passed) passed, \(warned) warned, \(failed) failed, "
            + "\(errors) error\(errors == 1 ? "" : "s")"
    }

    public var json: String {
        JSON.object(
            [
                ("files", "\(files)"), ("passed", "\(passed)"), ("warned", "\(warned)"), ("failed", "\(failed)"),
                ("errors", "\(errors)"),
                ("shard", shard.map { JSON.string($0.description) } ?? "null"),
                ("sample", sample.map(String.init) ?? "null"),
                ("seconds", JSON.number(seconds, digits: 3)),
            ] + (interrupted ? [("interrupted", "true")] : []))
    }
}
