import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// How a file compared with `--golden`.
public enum GoldenVerdict: Equatable, Sendable {
    case match
    /// The golden file has no entry under this file's key.
    case notInGolden(key: String)
    /// The first frame (lowest index) whose md5 differs, is missing on one
    /// side, or is extra on the other.
    case mismatch(frame: Int, reason: String)

    public var problem: String? {
        switch self {
        case .match: return nil
        case .notInGolden(let key): return "'\(key)' is not in the golden file"
        case .mismatch(let frame, let reason): return "golden mismatch at frame \(frame): \(reason)"
        }
    }

    public var json: String {
        switch self {
        case .match:
            return JSON.object([("result", JSON.string("match")), ("frame", "null"), ("reason", "null")])
        case .notInGolden:
            return JSON.object([
                ("result", JSON.string("not in golden")), ("frame", "null"), ("reason", JSON.string(problem!)),
            ])
        case .mismatch(let frame, let reason):
            return JSON.object([
                ("result", JSON.string("mismatch")), ("frame", "\(frame)"), ("reason", JSON.string(reason)),
            ])
        }
    }
}
