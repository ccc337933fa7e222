import Foundation
import Glibc
import HostSupport
import ProResCheck
import ProResOptions

/// `check --policy FILE|default|none`: the policy in force. A file is read whole
/// (a regular file of at most `maximumBytes`, UTF-8); anything wrong with
/// it, reading or a line, is a usage error naming the file (and the line).
enum CheckPolicyFile {
    /// A policy is a few dozen lines; this refuses a wrong file (a clip) early.
    static let maximumBytes = 1 << 20

    /// The policy `--policy` names; nil: the default policy.
    static func load(_ path: String?) throws -> CheckPolicy {
        guard let path, path != "default" else { return .standard }
        if path == "none" { return CheckPolicy() }
        let text = try read(path)
        do { return try CheckPolicy.parse(text, name: "--policy '\(path)'") } catch let problem as CheckPolicy.Problem {
            throw UsageError(problem.description)
        }
    }

    private static func read(_ path: String) throws -> String {
        func unreadable(_ why: String) -> UsageError { UsageError("--policy '\(path)': \(why)") }
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw unreadable(errno == ENOENT ? "no such file" : String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw unreadable(info.st_mode & S_IFMT == S_IFDIR ? "a directory, not a policy file" : "not a regular file")
        }
        // Bounded while reading: the size may change after fstat.
        let data: Data
        do { data = try handle.read(upToCount: maximumBytes + 1) ?? Data() } catch {
            throw unreadable(error.localizedDescription)
        }
        guard data.count <= maximumBytes else { throw unreadable("larger than 1 MiB, not a policy file") }
        guard let text = String(data: data, encoding: .utf8) else { throw unreadable("not UTF-8 text") }
        return text
    }
}
