import HostSupport
import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// One file `check` looks at, or one argument that named nothing checkable.
///
/// Why a `problem` instead of dropping the argument: a QC run must never pass
/// because it found nothing to check (a typo, an empty mount, a glob that
/// matched nothing). Such an argument becomes a file-level `error`.
public struct CheckInput: Hashable, Sendable {
    /// The path as reported: the argument itself, or the argument joined with
    /// the path found under it.
    public let path: String
    /// The name in golden files: the path relative to the directory argument
    /// the file was found under, or the path as given for a file argument.
    public let key: String
    /// Why this entry cannot be checked (missing, no glob match, empty
    /// directory, not a regular file); nil for a file to open.
    public let problem: String?
    /// Found under a directory or by a glob, rather than named itself: only
    /// such files are filtered (`--include`, `--exclude`, sidecars), since a
    /// file named on the command line was asked for.
    public let found: Bool
    /// What is opened: the path, or for an http(s) URL the URL in full. A
    /// URL's `path` and `key` leave out its query and fragment, so that a
    /// presigned URL's signature reaches no report or log, and the same
    /// object signed again keeps its key.
    public let location: String
    /// The `problem` is a verdict, not a file that could not be read: the
    /// entry fails instead of being an error (a file the golden file lists
    /// that the run did not find: `GoldenCoverage`).
    public let problemFails: Bool

    public init(
        path: String, key: String, problem: String? = nil, found: Bool = false, location: String? = nil,
        problemFails: Bool = false
    ) {
        self.path = path
        self.key = key
        self.problem = problem
        self.problemFails = problemFails
        self.found = found
        self.location = location ?? path
    }

    /// `http://` or `https://` (any case): read through libavformat, with
    /// range requests. Anything else is a local path.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// A URL as it is shown and keyed: without its query and fragment, and
    /// with any password replaced by `***` (`URLCredentials`), so that no
    /// report, golden file or line on stderr holds it.
    public static func url(_ text: String) -> CheckInput {
        let shown = URLCredentials.redacted(String(text.prefix { $0 != "?" && $0 != "#" }))
        return CheckInput(path: shown, key: shown, location: text)
    }
}
