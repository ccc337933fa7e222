import Foundation
import Glibc
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// A destination for bytes that never leaves a partial file behind. A
/// regular file is written under a temporary name beside it and renamed into
/// place by `commit()`; `discard()` (or a signal, via `TemporaryFiles`)
/// removes it. Special files (`/dev/null`, pipes) and stdout (`-`) are
/// written directly. An existing file is replaced only when `overwrite` says so.
public final class OutputFile {
    public let path: String
    private var fd: Int32
    private let temporaryPath: String?
    private var closed = false

    public init(path: String, overwrite: Bool) throws {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            temporaryPath = nil
            return
        }
        var info = stat()
        if PathBytes.withCString(path, { stat($0, &info) }) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                throw ProResDecodeError.output(path: path, reason: "is a directory")
            case S_IFREG:
                guard overwrite else {
                    throw ProResDecodeError.outputExists(path: path)
                }
            default:
                // A device or pipe: nothing there to lose, and renaming onto it would be wrong.
                fd = PathBytes.withCString(path) { open($0, O_WRONLY | O_CLOEXEC) }
                guard fd >= 0 else { throw ProResDecodeError.output(path: path, reason: String(cString: strerror(errno))) }
                temporaryPath = nil
                return
            }
        }
        // Byte-exact (PathBytes): the name may not be UTF-8.
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[...$0] } ?? ""
        let name = slash.map { path[path.index(after: $0)...] } ?? path[...]
        var template = PathBytes.bytes("\(directory).\(name).XXXXXX.part").map { CChar(bitPattern: $0) } + [0]
        fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
        guard fd >= 0 else { throw ProResDecodeError.output(path: path, reason: String(cString: strerror(errno))) }
        let temporary = template.withUnsafeBufferPointer { PathBytes.string(cString: $0.baseAddress!) }
        temporaryPath = temporary
        TemporaryFiles.shared.register(temporary)
        // mkstemp makes 0600 files; give the result ordinary permissions.
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
    }

    deinit { discard() }

    /// Writes every span, in order, with as few system calls as possible.
    public func write(_ spans: [UnsafeRawBufferPointer]) throws {
        var vectors = spans.filter { $0.count > 0 }.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
        var first = 0
        while first < vectors.count {
            let batch = min(vectors.count - first, 1024)
            let written = vectors.withUnsafeMutableBufferPointer { writev(fd, $0.baseAddress! + first, Int32(batch)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ProResDecodeError.output(path: displayName, reason: errno == EPIPE ? "the reader closed the pipe" : String(cString: strerror(errno)))
            }
            // Skip what went out; a short write resumes mid-vector.
            var remaining = written
            while remaining > 0 && first < vectors.count {
                if remaining >= vectors[first].iov_len {
                    remaining -= vectors[first].iov_len
                    first += 1
                } else {
                    vectors[first].iov_base += remaining
                    vectors[first].iov_len -= remaining
                    remaining = 0
                }
            }
        }
    }

    public func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write([UnsafeRawBufferPointer($0)]) }
    }

    /// Makes the output final: closes it and renames it into place.
    public func commit() throws {
        guard !closed else { return }
        closed = true
        if fd == STDOUT_FILENO { return }
        let closeStatus = close(fd)
        guard let temporaryPath else {
            if closeStatus != 0 { throw ProResDecodeError.output(path: path, reason: String(cString: strerror(errno))) }
            return
        }
        if closeStatus != 0 || PathBytes.withCString(temporaryPath, { from in PathBytes.withCString(path) { rename(from, $0) } }) != 0 {
            let reason = String(cString: strerror(errno))
            _ = PathBytes.withCString(temporaryPath) { unlink($0) }
            TemporaryFiles.shared.unregister(temporaryPath)
            throw ProResDecodeError.output(path: path, reason: reason)
        }
        TemporaryFiles.shared.unregister(temporaryPath)
    }

    /// Abandons the output: nothing of it remains.
    public func discard() {
        guard !closed else { return }
        closed = true
        if fd == STDOUT_FILENO { return }
        close(fd)
        if let temporaryPath {
            _ = PathBytes.withCString(temporaryPath) { unlink($0) }
            TemporaryFiles.shared.unregister(temporaryPath)
        }
    }

    private var displayName: String { path == "-" ? "stdout" : path }

    /// Whether `seek` works: a regular file (its temporary), not a pipe or a device.
    public var isSeekable: Bool { !closed && lseek(fd, 0, SEEK_CUR) >= 0 }

    /// lseek(2) for a muxer that goes back to fill in sizes (QuickTime);
    /// the new offset, or -1.
    public func seek(to offset: Int64, whence: Int32) -> Int64 {
        Int64(lseek(fd, off_t(offset), whence))
    }
}

/// Temporary outputs still being written, so an interrupt can remove them.
public final class TemporaryFiles: @unchecked Sendable {
    public static let shared = TemporaryFiles()
    private let lock = NSLock()
    private var paths: Set<String> = []

    func register(_ path: String) { lock.lock(); paths.insert(path); lock.unlock() }
    func unregister(_ path: String) { lock.lock(); paths.remove(path); lock.unlock() }

    /// Unlinks every registered file (used on SIGINT/SIGTERM/SIGHUP).
    public func removeAll() {
        lock.lock()
        for path in paths { _ = PathBytes.withCString(path) { unlink($0) } }
        paths.removeAll()
        lock.unlock()
    }
}
