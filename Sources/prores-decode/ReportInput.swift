import Foundation
import Glibc
import HostSupport
import ProResCheck
import ProResCore
import ProResPipeline

/// The reader of what an earlier `check` wrote and a later command reads
/// back: a shard report (`merge`, `check --resume`) and the golden file
/// named in it, found beside it. A report is a regular file of at most
/// `maximumBytes`, checked before a byte is read, so a directory, a device
/// or an endless stream is one clear line, not a crash or a read without
/// end; the golden file goes through its own bounded reader.
enum ReportInput {
    /// A report of 12,800 files is ~25 MB; this refuses a wrong file (a clip) early.
    static let maximumBytes = 1 << 30

    /// The bytes of the report at `path`; `what` starts each error ("--resume").
    static func bytes(_ path: String, what: String) throws -> [UInt8] {
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else {
            throw ProResDecodeError.inputUnreadable(
                path: path, reason: "\(what): " + (errno == ENOENT ? "no such file" : String(cString: strerror(errno))))
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let kind = info.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            throw ProResDecodeError.inputUnreadable(path: path, reason: "\(what): \(kind), not a report")
        }
        guard Int(info.st_size) <= maximumBytes else {
            throw ProResDecodeError.inputUnreadable(
                path: path, reason: "\(what): larger than \(maximumBytes >> 30) GiB, not a report")
        }
        // Bounded again while reading: the file may grow after the check.
        let data: Data
        do { data = try handle.read(upToCount: maximumBytes + 1) ?? Data() } catch {
            throw ProResDecodeError.inputUnreadable(path: path, reason: "\(what): \(error.localizedDescription)")
        }
        guard data.count <= maximumBytes else {
            throw ProResDecodeError.inputUnreadable(
                path: path, reason: "\(what): larger than \(maximumBytes >> 30) GiB, not a report")
        }
        return [UInt8](data)
    }

    /// The path of the golden file a report names (by its last component,
    /// beside the report), or nil when its run wrote none.
    static func goldenPath(of report: ShardReport, at reportPath: String) -> String? {
        guard let written = report.run.golden.flatMap(PathBytes.fromReportText) else { return nil }
        let name = written.split(separator: "/").last.map(String.init) ?? written
        let directory = ShardMergeDirectory.of(reportPath)
        return directory == "." ? name : directory + "/" + name
    }

    /// The golden file at `path` (`-`: stdin), read and parsed; `what`, if
    /// given, starts each error ("--resume").
    static func golden(_ path: String, what: String? = nil) throws -> GoldenFile {
        let name = path == "-" ? "stdin" : path
        let prefix = what.map { "\($0): golden file: " } ?? "golden file: "
        let bytes: [UInt8]
        do throws(AuxiliaryInput.Refusal) { bytes = try GoldenFile.input.read(path) } catch {
            throw ProResDecodeError.inputUnreadable(path: name, reason: prefix + error.text)
        }
        do { return try GoldenFile(parsing: String(decoding: bytes, as: UTF8.self)) } catch {
            throw ProResDecodeError.inputUnreadable(path: name, reason: prefix + "\(error)")
        }
    }
}
