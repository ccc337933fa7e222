import Glibc
import HostSupport
import ProResCore

/// What a file was when it was checked, recorded in the report
/// (`"source"`) so that `check --resume` can tell a file that has not
/// changed since and carry its verdict over: a local file's size and
/// modification time, an http:// object's ETag and Last-Modified.
public struct FileSource: Equatable, Sendable {
    public var size: Int64?
    /// st_mtim, in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64?
    public var etag: String?
    public var lastModified: String?
    /// A URL's whole length in bytes, where its server says.
    public var length: Int64?

    public init(
        size: Int64? = nil, modifiedNanoseconds: Int64? = nil, etag: String? = nil, lastModified: String? = nil,
        length: Int64? = nil
    ) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.etag = etag
        self.lastModified = lastModified
        self.length = length
    }

    /// The input as it is now: a regular file's size and time, or an http://
    /// URL's validators (a HEAD request); nil for anything else.
    public static func of(_ input: CheckInput) -> FileSource? {
        if CheckInput.isURL(input.location) {
            return HTTPValidators.fetch(input.location).map {
                FileSource(etag: $0.etag, lastModified: $0.lastModified, length: $0.length)
            }
        }
        var info = stat()
        guard PathBytes.withCString(input.location, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return nil
        }
        return FileSource(
            size: Int64(info.st_size),
            modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    public var json: String {
        if size != nil || modifiedNanoseconds != nil {
            return JSON.object([
                ("size", size.map(String.init) ?? "null"), ("mtime_ns", modifiedNanoseconds.map(String.init) ?? "null"),
            ])
        }
        var fields = [
            ("etag", etag.map(JSON.string) ?? "null"), ("last_modified", lastModified.map(JSON.string) ?? "null"),
        ]
        if let length { fields.append(("length", String(length))) }
        return JSON.object(fields)
    }
}
