import Glibc
import ProResCore

/// What a local file was when it was checked: its size and modification
/// time, recorded in the report (`"source"`) so that `check --resume` can
/// tell a file that has not changed since, and carry its verdict over.
public struct FileSource: Equatable, Sendable {
    public let size: Int64
    /// st_mtim, in nanoseconds since 1970.
    public let modifiedNanoseconds: Int64

    public init(size: Int64, modifiedNanoseconds: Int64) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// The file at `path` now; nil for anything but a regular file.
    public static func of(path: String) -> FileSource? {
        var info = stat()
        guard PathBytes.withCString(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileSource(size: Int64(info.st_size), modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    public var json: String { JSON.object([("size", "\(size)"), ("mtime_ns", "\(modifiedNanoseconds)")]) }
}
