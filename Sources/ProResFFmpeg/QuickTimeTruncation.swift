import CFFmpeg
import Glibc
import HostSupport
import ProResCore

/// Finds a QuickTime/MP4 file's top-level box that runs past the end of the
/// file. libavformat reads a MOV cut inside its `moov` as a movie with a
/// codec-less data track, which would be reported as "not ProRes"; the
/// real problem is the cut, and this names it. It walks a local file, or a
/// URL read again from its start (so that a file cut short gets the same
/// verdict over http as on disk).
enum QuickTimeTruncation {
    /// Top-level box types that identify a QuickTime or MP4 file.
    private static let knownTypes: Set<String> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "junk", "meta",
    ]

    /// The bytes of one file, read at increasing offsets.
    struct Bytes {
        let size: Int64
        /// Up to `count` bytes at `offset`; fewer at the end, nil on failure.
        let read: (_ offset: Int64, _ count: Int) -> [UInt8]?
    }

    /// One top-level box: its type and where it would end (nil: "to the end of the file").
    private struct Box {
        let type: String
        let offset: Int64
        let size: Int64?
    }

    /// The top-level boxes up to the first that is malformed or runs past
    /// the end (included), at most 64; empty when the first is not a known type.
    private static func boxes(_ file: Bytes) -> [Box] {
        var found: [Box] = []
        var offset: Int64 = 0
        for index in 0..<64 {
            guard offset + 8 <= file.size, let head = file.read(offset, 16), head.count >= 8 else { break }
            guard head[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) else { break }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if index == 0 && !knownTypes.contains(type) { return [] }
            var size = Int64(truncatingIfNeeded: head[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            if size == 1 {
                guard head.count >= 16 else { break }
                size = Int64(truncatingIfNeeded: head[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if size == 0 {
                found.append(Box(type: type, offset: offset, size: nil))  // to the end of the file
                break
            }
            guard size >= 8 else { break }
            found.append(Box(type: type, offset: offset, size: size))
            let (end, overflow) = offset.addingReportingOverflow(size)
            if overflow || end > file.size { break }
            offset = end
        }
        return found
    }

    /// A QuickTime file with media data but no movie index at the top level:
    /// a moov-at-end recording cut short (the common case: the recorder
    /// stopped, the disk filled).
    static func lacksMovieIndex(_ file: Bytes) -> Bool {
        let types = Set(boxes(file).map(\.type))
        return types.contains("mdat") && !types.contains("moov")
    }

    /// Words naming the first truncated box, or nil when the file is not
    /// QuickTime or no box is cut.
    static func describe(_ file: Bytes) -> String? {
        for box in boxes(file) {
            guard let size = box.size else { return nil }
            let (end, overflow) = box.offset.addingReportingOverflow(size)
            if overflow || end > file.size {
                return
                    "the file is truncated: its '\(box.type)' box at offset \(box.offset) needs \(size) bytes, the file ends \(file.size - box.offset) bytes into it"
            }
        }
        return nil
    }

    static func lacksMovieIndex(path: String) -> Bool { withLocalFile(path, lacksMovieIndex) ?? false }

    static func describe(path: String) -> String? { withLocalFile(path, describe) ?? nil }

    /// `body` over the regular file at `path`; nil when it cannot be opened or is not a regular file.
    private static func withLocalFile<T>(_ path: String, _ body: (Bytes) -> T) -> T? {
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return body(
            Bytes(size: Int64(info.st_size)) { offset, count in
                var buffer = [UInt8](repeating: 0, count: count)
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
                return n < 0 ? nil : Array(buffer.prefix(n))
            })
    }

    /// `body` over `url` opened again with libavformat's I/O (`options`, the
    /// interrupt of `activity`); a server without byte ranges is read
    /// forward. nil when it cannot be opened or its length is unknown.
    static func withURL<T>(
        _ url: String, options: [(String, String)], activity: HTTPActivity, _ body: (Bytes) -> T
    ) -> T? {
        var io: UnsafeMutablePointer<AVIOContext>?
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        var interrupt = activity.interruptCallback
        let status = PathBytes.withCString(url) { avio_open2(&io, $0, AVIO_FLAG_READ, &interrupt, &dictionary) }
        av_dict_free(&dictionary)
        guard status >= 0, let opened = io else { return nil }
        defer { avio_closep(&io) }
        let size = avio_size(opened)
        guard size > 0 else { return nil }
        return body(
            Bytes(size: size) { offset, count in
                guard avio_seek(opened, offset, SEEK_SET) == offset else { return nil }
                var buffer = [UInt8](repeating: 0, count: count)
                let n = buffer.withUnsafeMutableBytes {
                    avio_read(opened, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count))
                }
                return n < 0 ? nil : Array(buffer.prefix(Int(n)))
            })
    }
}
