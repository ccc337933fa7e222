import Glibc
import HostSupport
import ProResCore

/// Finds a QuickTime/MP4 file's top-level box that runs past the end of the
/// file. libavformat reads a MOV cut inside its `moov` as a movie with a
/// codec-less data track, which would be reported as "not ProRes"; the
/// real problem is the cut, and this names it.
enum QuickTimeTruncation {
    /// Top-level box types that identify a QuickTime or MP4 file.
    private static let knownTypes: Set<String> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "junk", "meta",
    ]

    /// A QuickTime file with media data but no movie index at the top level:
    /// a moov-at-end recording cut short (the common case: the recorder
    /// stopped, the disk filled). The walk ends at a box "to the end of the
    /// file" or one that runs past it.
    static func lacksMovieIndex(path: String) -> Bool {
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let fileSize = Int64(info.st_size)
        var offset: Int64 = 0
        var seen: Set<String> = []
        var head = [UInt8](repeating: 0, count: 16)
        for index in 0..<64 {
            guard offset + 8 <= fileSize else { break }
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, off_t(offset)) }
            guard n >= 8, head[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) else { break }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if index == 0 && !knownTypes.contains(type) { return false }
            seen.insert(type)
            var size = Int64(head[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            if size == 1, n >= 16 {
                size = Int64(truncatingIfNeeded: head[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
            guard size >= 8 else { break }  // 0: to the end of the file
            let (end, overflow) = offset.addingReportingOverflow(size)
            if overflow || end > fileSize { break }
            offset = end
        }
        return seen.contains("mdat") && !seen.contains("moov")
    }

    /// Words naming the first truncated box of the regular file at `path`,
    /// or nil when it is not a QuickTime file or no box is cut.
    static func describe(path: String) -> String? {
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let fileSize = Int64(info.st_size)
        var offset: Int64 = 0
        var head = [UInt8](repeating: 0, count: 16)
        for index in 0..<64 {
            guard offset + 8 <= fileSize else { return nil }
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, off_t(offset)) }
            guard n >= 8 else { return nil }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if index == 0 && !knownTypes.contains(type) { return nil }
            guard head[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            var size = Int64(head[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            if size == 1 {
                guard n >= 16 else { return nil }
                size = Int64(truncatingIfNeeded: head[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if size == 0 {
                return nil  // "to the end of the file": cannot be cut
            }
            guard size >= 8 else { return nil }
            let (end, overflow) = offset.addingReportingOverflow(size)
            if overflow || end > fileSize {
                return
                    "the file is truncated: its '\(type)' box at offset \(offset) needs \(size) bytes, the file ends \(fileSize - offset) bytes into it"
            }
            offset = end
        }
        return nil
    }
}
