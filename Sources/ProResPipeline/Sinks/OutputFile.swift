import Foundation
import GPUKit
import Glibc
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// A destination for bytes that never leaves a partial file behind. A
/// regular file is written under a short temporary name beside it
/// (`Publish`) and published by `commit()`: without `overwrite`, a name
/// that exists, or appears while the run writes, is never replaced (of two
/// runs racing for it exactly one wins). `discard()` (or a signal, via
/// `TemporaryFiles`) removes it. A missing parent directory is made (and
/// taken back if nothing is published in it). Special files (`/dev/null`,
/// pipes), stdout (`-`) and names of open descriptors (`/dev/stdout`,
/// `/proc/self/fd/N`: `DescriptorNames`) are written directly, in place;
/// nothing is ever renamed over them. A symlink to a regular file keeps its
/// link: the file it points to is the one replaced.
public final class OutputFile {
    public let path: String
    private var fd: Int32
    private let temporaryPath: String?
    /// Where the temporary is published: `path`, or the file a symlink at `path` points to.
    private let publishedPath: String
    private let overwrite: Bool
    private var closed = false

    public init(path: String, overwrite: Bool) throws {
        self.path = path
        self.overwrite = overwrite
        publishedPath = Self.linkTarget(path) ?? path
        if path == "-" {
            fd = STDOUT_FILENO
            temporaryPath = nil
            return
        }
        if let descriptor = DescriptorNames.descriptor(path) {
            fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else { throw ProResDecodeError.output(path: path, reason: String(cString: strerror(errno))) }
            temporaryPath = nil
            return
        }
        var info = stat()
        if PathBytes.withCString(path, { stat($0, &info) }) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                throw ProResDecodeError.output(path: path, reason: "is a directory")
            case S_IFREG:
                // Fails fast; `commit` holds the rule again against a name that appears meanwhile.
                guard overwrite else {
                    throw ProResDecodeError.outputExists(path: path)
                }
            default:
                // A device or pipe: nothing there to lose, and renaming onto it would be wrong.
                fd = PathBytes.withCString(path) { open($0, O_WRONLY | O_CLOEXEC) }
                guard fd >= 0 else {
                    throw ProResDecodeError.output(path: path, reason: String(cString: strerror(errno)))
                }
                temporaryPath = nil
                return
            }
        }
        try Self.makeParent(of: publishedPath)
        guard let temporary = Publish.temporaryFile(beside: publishedPath) else {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.shared.removeEmptyMadeDirectories()
            throw ProResDecodeError.output(path: path, reason: reason)
        }
        fd = temporary.fd
        temporaryPath = temporary.path
    }

    /// The real path of the regular file a symlink at `path` points to; nil
    /// when `path` is no symlink, or its target is missing or no regular file.
    private static func linkTarget(_ path: String) -> String? {
        var info = stat()
        guard PathBytes.withCString(path, { lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFLNK,
            PathBytes.withCString(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG,
            let real = PathBytes.withCString(path, { realpath($0, nil) })
        else { return nil }
        defer { free(real) }
        return PathBytes.string(cString: real)
    }

    /// `mkdir -p` of the directory part, as `--save` and `--previews` do for
    /// theirs: `check ... --html qc/index.html` works in a fresh folder.
    private static func makeParent(of path: String) throws {
        let directory = Publish.directoryPrefix(of: path)
        guard !directory.isEmpty, directory != "/" else { return }
        var info = stat()
        guard PathBytes.withCString(directory, { stat($0, &info) }) != 0 else { return }
        if let failure = Directories.create(directory, made: TemporaryFiles.shared.registerMade) {
            TemporaryFiles.shared.removeEmptyMadeDirectories()
            throw ProResDecodeError.output(
                path: path, reason: "cannot create its directory (\(String(cString: strerror(failure))))")
        }
    }

    deinit { discard() }

    /// Writes every span, in order, with as few system calls as possible.
    public func write(_ spans: [UnsafeRawBufferPointer]) throws {
        var vectors = spans.filter { $0.count > 0 }.map {
            iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
        }
        var first = 0
        while first < vectors.count {
            let batch = min(vectors.count - first, 1024)
            let written = vectors.withUnsafeMutableBufferPointer { writev(fd, $0.baseAddress! + first, Int32(batch)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ProResDecodeError.output(
                    path: displayName,
                    reason: errno == EPIPE ? "the reader closed the pipe" : String(cString: strerror(errno)))
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

    /// Makes the output final: closes it and publishes it under its name.
    public func commit() throws {
        guard !closed else { return }
        closed = true
        if fd == STDOUT_FILENO { return }
        let closeStatus = close(fd)
        let closeError = errno
        guard let temporaryPath else {
            if closeStatus != 0 {
                throw ProResDecodeError.output(path: path, reason: String(cString: strerror(closeError)))
            }
            return
        }
        guard closeStatus == 0 else {
            Self.remove(temporaryPath)
            throw ProResDecodeError.output(path: path, reason: String(cString: strerror(closeError)))
        }
        do { try Publish.publish(temporaryPath, as: publishedPath, replacing: overwrite, shownAs: path) } catch {
            TemporaryFiles.shared.removeEmptyMadeDirectories()
            throw error
        }
    }

    /// Abandons the output: nothing of it remains.
    public func discard() {
        guard !closed else { return }
        closed = true
        if fd == STDOUT_FILENO { return }
        close(fd)
        if let temporaryPath {
            Self.remove(temporaryPath)
            TemporaryFiles.shared.removeEmptyMadeDirectories()
        }
    }

    private static func remove(_ temporary: String) {
        _ = PathBytes.withCString(temporary) { unlink($0) }
        TemporaryFiles.shared.unregister(temporary)
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
