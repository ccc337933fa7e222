import CFFmpeg
import Glibc
import HostSupport
import ProResCore

/// Reads a raw ProRes elementary stream: `icpf` frames back to back, each
/// starting with its own size. From a file the frames are indexed up front
/// (headers only), so seeking is exact and the frame count known; from a
/// pipe they are read in order.
public final class ElementaryStreamReader: SampleSource {
    private var description: FormatDescription?
    public var format: FormatDescription { description! }
    public private(set) var shortfall: String?

    private let fd: Int32
    private let ownsDescriptor: Bool
    private let path: String
    /// Bytes read from a pipe while sniffing, consumed before the descriptor.
    private var prefix: [UInt8]
    /// (offset, size) of every frame, for files; nil for pipes.
    private var frames: [(offset: Int, size: Int)]?
    private var nextIndex = 0
    private var streamOffset = 0
    private var pending: CompressedSample?

    package static func looksLikeElementaryStream(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 8 && prefix[4...7].elementsEqual("icpf".utf8)
    }

    init(fd: Int32, path: String, prefix: [UInt8], ownsDescriptor: Bool) throws {
        self.fd = fd
        self.path = path
        self.prefix = prefix
        self.ownsDescriptor = ownsDescriptor
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            frames = indexFrames(fileSize: Int(info.st_size))
        }
        guard let first = try readFrame() else {
            throw ProResDecodeError.notProRes(
                path: path, reason: shortfall ?? "the elementary stream has no complete frame")
        }
        let header: ProResFrameHeader
        do { header = try ProResFrameHeader(first.bytes) } catch {
            freePacket(first.packet)
            throw ProResDecodeError.notProRes(path: path, reason: "invalid ProRes frame header (\(error))")
        }
        description = FormatDescription(
            header: header, profile: nil,
            profileNote:
                "a raw elementary stream carries no FourCC; profile unknown, decoded as \(header.chroma == .c444 ? "4444 (12-bit)" : "422 (10-bit)") by its chroma format",
            containerTags: (2, 2, 2, nil), containerSize: nil,
            frameRate: header.frameRate, frameCount: frames?.count,
            containerName: "prores elementary stream", trackIndex: 0,
            timeBase: header.frameRate.map { ($0.denominator, $0.numerator) } ?? (1, 1))
        pending = makeSample(first)
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Walks the size fields; stops at the first thing that is not a frame.
    private func indexFrames(fileSize: Int) -> [(offset: Int, size: Int)] {
        var result: [(offset: Int, size: Int)] = []
        var offset = 0
        var head = [UInt8](repeating: 0, count: 8)
        while offset + 8 <= fileSize {
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 8, off_t(offset)) }
            guard n == 8, Self.looksLikeElementaryStream(head) else {
                shortfall = "bytes at offset \(offset) are not a ProRes frame; the stream ends there"
                break
            }
            let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            guard size >= 8 else {
                shortfall = "frame \(result.count) at offset \(offset) states an impossible size \(size)"
                break
            }
            if offset + size > fileSize {
                shortfall = "frame \(result.count) is truncated: it needs \(size) bytes, \(fileSize - offset) remain"
                result.append((offset, fileSize - offset))
                break
            }
            result.append((offset, size))
            offset += size
        }
        return result
    }

    private struct RawFrame {
        let packet: UnsafeMutablePointer<AVPacket>
        let index: Int
        let start: UInt64
        let nanoseconds: UInt64
        var bytes: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
        }
    }

    private func readFrame() throws -> RawFrame? {
        let start = monotonicNanoseconds()
        let index = nextIndex
        let size: Int
        if let frames {
            guard index < frames.count else { return nil }
            size = frames[index].size
            streamOffset = frames[index].offset
        } else {
            var head = [UInt8](repeating: 0, count: 8)
            let got = try readFully(into: &head, count: 8)
            if got == 0 { return nil }
            guard got == 8, Self.looksLikeElementaryStream(head) else {
                shortfall = "bytes after frame \(index - 1) are not a ProRes frame; the stream ends there"
                return nil
            }
            size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            guard size >= 8 else {
                shortfall = "frame \(index) states an impossible size \(size)"
                return nil
            }
            prefix = head + prefix
        }
        let got: Int
        let packet: UnsafeMutablePointer<AVPacket>
        if frames != nil {
            // Sizes in the index were clamped to the file: real bytes.
            packet = try allocatePacket(size)
            got = pread(fd, packet.pointee.data, size, off_t(streamOffset))
        } else {
            guard let bytes = try readStreamedFrame(index: index, claimedSize: size) else { return nil }
            got = bytes.count
            packet = try allocatePacket(max(got, 1))
            bytes.withUnsafeBytes {
                packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: got)
            }
        }
        if got < size {
            shortfall = "frame \(index) is truncated: \(max(got, 0)) of \(size) bytes"
            if got <= 0 {
                freePacket(packet)
                return nil
            }
            av_shrink_packet(packet, Int32(got))
        }
        nextIndex += 1
        packet.pointee.pts = Int64(index)
        packet.pointee.dts = Int64(index)
        packet.pointee.duration = 1
        return RawFrame(packet: packet, index: index, start: start, nanoseconds: monotonicNanoseconds() - start)
    }

    private func allocatePacket(_ size: Int) throws -> UnsafeMutablePointer<AVPacket> {
        guard let packet = av_packet_alloc() else { throw ProResDecodeError.decoderUnavailable("out of memory") }
        guard let size32 = Int32(exactly: size), av_new_packet(packet, size32) >= 0 else {
            freePacket(packet)
            throw ProResDecodeError.decoderUnavailable("out of memory for a \(size)-byte frame")
        }
        return packet
    }

    /// A frame from a pipe, whose size field is only a claim: the buffer
    /// grows as bytes arrive (a 7 KB stream saying 1 GiB costs 7 KB), and
    /// once the frame header is in, a size above what its own picture size
    /// allows ends the stream. nil when the stream ends here.
    private func readStreamedFrame(index: Int, claimedSize: Int) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = min(claimedSize, 1 << 16)
        var checkedHeader = false
        while bytes.count < claimedSize {
            let want = min(chunk, claimedSize - bytes.count)
            var piece = [UInt8](repeating: 0, count: want)
            let n = try readFully(into: &piece, count: want)
            bytes += piece[0..<n]
            if !checkedHeader, let header = bytes.withUnsafeBytes({ try? ProResFrameHeader($0) }) {
                checkedHeader = true
                guard claimedSize <= header.maximumFrameBytes else {
                    shortfall =
                        "frame \(index) states \(claimedSize) bytes, more than a \(header.width)x\(header.height) frame can hold "
                        + "(at most \(header.maximumFrameBytes)); the stream ends there"
                    return nil
                }
            }
            if n < want { break }
            chunk = min(chunk * 2, 1 << 26)
        }
        return bytes
    }

    /// Reads from the sniffed prefix, then the descriptor, until `count` bytes or EOF.
    private func readFully(into buffer: inout [UInt8], count: Int) throws -> Int {
        var filled = 0
        if !prefix.isEmpty {
            let n = min(count, prefix.count)
            buffer.replaceSubrange(0..<n, with: prefix[0..<n])
            prefix.removeFirst(n)
            filled = n
        }
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ProResDecodeError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    private func makeSample(_ frame: RawFrame) -> CompressedSample {
        CompressedSample(
            packet: frame.packet, index: frame.index, format: format,
            readStart: frame.start, demuxNanoseconds: frame.nanoseconds)
    }

    public func nextSample() throws -> CompressedSample? {
        if let pending {
            self.pending = nil
            return pending
        }
        return try readFrame().map(makeSample)
    }

    public func seek(toFrame target: Int) throws {
        if let frames {
            guard target < frames.count else {
                throw ProResDecodeError.badRequest(
                    .startPastEnd(start: target, frames: frames.count, container: .stream))
            }
            pending = nil
            nextIndex = target
            return
        }
        while let sample = try nextSample() {
            if sample.index >= target {
                pending = sample
                return
            }
        }
    }
}
