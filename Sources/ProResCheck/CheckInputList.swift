import Glibc
import HostSupport
import ProResCore

/// `check --list FILE|-`: the files to check, one path or http(s) URL a
/// line, as a database query or `aws s3 ls` prints them.
///
/// A line is taken byte for byte (a name that is not UTF-8 stays the name
/// it is, `PathBytes`); only a final `\r` (a list written on Windows) is
/// dropped. Blank lines and lines whose first non-blank character is `#`
/// are skipped. Each entry is then expanded as a PATH operand is, except
/// that it is never a glob pattern.
public enum CheckInputList {
    /// Bigger than any list of paths a run could check in a day (a million
    /// 60-byte names), small enough that a wrong file (a clip, /dev/zero
    /// through a pipe) is refused before it fills memory.
    public static let maximumBytes = 64 << 20
    /// A path is at most PATH_MAX (4096) bytes; a presigned URL a few KiB.
    public static let maximumLineBytes = 16 << 10

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case notAFile(String)
        case tooLarge
        case lineTooLong(line: Int)

        public var description: String {
            switch self {
            case .unreadable(let reason): return reason
            case .notAFile(let kind): return "\(kind), not a file of paths"
            case .tooLarge: return "larger than \(maximumBytes >> 20) MiB"
            case .lineTooLong(let line): return "line \(line) is longer than \(maximumLineBytes) bytes"
            }
        }
    }

    /// The entries of `bytes`, in order.
    public static func entries(_ bytes: [UInt8]) throws -> [String] {
        var entries: [String] = []
        for (number, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard raw.count <= maximumLineBytes else { throw Problem.lineTooLong(line: number + 1) }
            let line = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
            let text = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if text.isEmpty || text.first == UInt8(ascii: "#") { continue }
            entries.append(PathBytes.string(line))
        }
        return entries
    }

    /// Reads the list at `path` ("-": stdin): a regular file or a pipe,
    /// never a directory or a device (which could be endless or block).
    public static func read(_ path: String) throws -> [String] {
        let fd = path == "-" ? STDIN_FILENO : PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            throw Problem.unreadable(errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Problem.unreadable(String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFIFO: break
        case S_IFDIR: throw Problem.notAFile("a directory")
        case S_IFCHR, S_IFBLK: throw Problem.notAFile("a device")
        case S_IFSOCK: throw Problem.notAFile("a socket")
        default: throw Problem.notAFile("a special file")
        }
        if info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > maximumBytes { throw Problem.tooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Problem.unreadable(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > maximumBytes { throw Problem.tooLarge }
        }
        return try entries(bytes)
    }
}
