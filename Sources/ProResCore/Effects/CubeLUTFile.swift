import Glibc

/// Reads a .cube file's bytes, saying in words why it cannot: the path may
/// name a device (`/dev/zero` never ends), a FIFO, a directory, or a file
/// too large to be a LUT, and FileManager's "nil" says none of that.
enum CubeLUTFile {
    /// More than the text of the largest LUT (256³ lines of three numbers).
    static let maximumBytes = 1 << 30

    static func read(_ path: String) throws -> [UInt8] {
        func fail(_ why: String) -> CubeLUTError { CubeLUTError(path: path, line: nil, message: why) }
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw fail(errno == ENOENT ? "no such file" : String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw fail(String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw fail("is a directory")
        case S_IFCHR, S_IFBLK: throw fail("is a device, not a .cube file")
        case S_IFSOCK: throw fail("is a socket, not a .cube file")
        default: break
        }
        if info.st_mode & S_IFMT == S_IFREG && Int(info.st_size) > maximumBytes {
            throw fail("is \(info.st_size) bytes, larger than any .cube file (at most \(maximumBytes))")
        }
        // A FIFO is read to its end, within the same limit; blocking from here on.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail(String(cString: strerror(errno)))
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            if bytes.count > maximumBytes { throw fail("holds more than \(maximumBytes) bytes, more than any .cube file") }
        }
    }
}
