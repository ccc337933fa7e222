import CFFmpeg
import Foundation
import Glibc
import HostSupport
import ProResCore

/// Reads a MOV/MP4 track's samples straight from the file by its sample
/// table, several at once: pread(2) of each sample into a block of
/// `SampleMemory` (which a GPU decoder imports and uploads from without a
/// copy) that becomes the packet's own, `readAhead` samples ahead of the
/// consumer on worker threads. libavformat reads one packet at a time, copying it out
/// of its I/O buffer into fresh memory; on the H200 host that caps
/// decoding a 4K HQ file at ~1,500 fps, a quarter of the GPU decoder's rate.
///
/// Used only where it reads exactly what libavformat would: a regular local
/// file, every sample inside it, none to be discarded by an edit list,
/// timestamps increasing, and the packets libavformat already read (the
/// leading ones) equal to their table entries. Anything else (truncated
/// files, pipes, URLs, other containers) stays with libavformat.
// @unchecked: the table is immutable; `pending` is used by the reading thread alone, each read's result under its own lock.
final class SampleTableReader: @unchecked Sendable {
    private struct Entry {
        let offset: Int64
        let size: Int
        let timestamp: Int64
    }

    /// One sample being read on a worker thread.
    private final class Pending: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var result: Result<UnsafeMutablePointer<AVPacket>, Error>?
    }

    private let fd: Int32
    private let entries: [Entry]
    private let streamIndex: Int32
    /// The block size: the largest sample and its padding.
    private let blockBytes: Int
    private let displayPath: String
    /// Reads kept in flight ahead of the consumer: set before the first
    /// sample is asked for (`setReadAhead`), or by the consumer's thread.
    private var readAhead: Int
    /// Reads in flight, by sample index; touched by the consumer's thread only.
    private var pending: [Int: Pending] = [:]

    /// The largest sample read this way; a table claiming more is not trusted.
    private static let maxSampleBytes = 1 << 30
    private static let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)

    var count: Int { entries.count }
    /// Reads started and not yet handed out (tests).
    var readsPending: Int { pending.count }

    /// nil when the track cannot be read this way (see the type's comment);
    /// `leading`: the packets libavformat read so far, samples 0 onwards.
    init?(
        path: String, displayPath: String, context: UnsafeMutablePointer<AVFormatContext>,
        stream: UnsafeMutablePointer<AVStream>,
        leading: [UnsafeMutablePointer<AVPacket>], readAhead: Int = SampleSourcePrefetch.readsAhead
    ) {
        guard let name = context.pointee.iformat.map({ String(cString: $0.pointee.name) }),
            name.split(separator: ",").contains("mov")
        else { return nil }
        let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        let fileSize = Int64(info.st_size)

        var entries: [Entry] = []
        var largest = 0
        let count = Int(avformat_index_get_entries_count(stream))
        for i in 0..<count {
            guard let e = avformat_index_get_entry(stream, Int32(i))?.pointee else {
                close(fd)
                return nil
            }
            let size = Int(e.size)
            guard e.pos >= 0, size > 0, size <= Self.maxSampleBytes, e.pos + Int64(size) <= fileSize,
                e.flags & AVINDEX_DISCARD_FRAME == 0, entries.last.map({ $0.timestamp < e.timestamp }) ?? true
            else {
                close(fd)
                return nil
            }
            entries.append(Entry(offset: e.pos, size: size, timestamp: e.timestamp))
            largest = max(largest, size)
        }
        guard !entries.isEmpty, leading.count <= entries.count else {
            close(fd)
            return nil
        }
        for (packet, entry) in zip(leading, entries) {
            let p = packet.pointee
            guard p.pos == entry.offset, Int(p.size) == entry.size, p.dts == entry.timestamp,
                p.pts == PD_AV_NOPTS_VALUE || p.pts == entry.timestamp
            else {
                close(fd)
                return nil
            }
        }
        self.fd = fd
        self.entries = entries
        blockBytes = largest + Self.padding
        self.displayPath = displayPath
        self.readAhead = Self.bounded(readAhead)
        streamIndex = stream.pointee.index
    }

    func setReadAhead(_ samples: Int) {
        readAhead = Self.bounded(samples)
    }

    private static func bounded(_ readAhead: Int) -> Int { max(1, min(readAhead, 256)) }

    deinit {
        discardReadAhead()
        close(fd)
    }

    /// Sample `index` as a packet owning a pooled buffer, having started the
    /// reads of the samples after it. Called in order, the reads stay ahead;
    /// any other order (a seek) drops what was read ahead.
    func packet(_ index: Int) throws -> UnsafeMutablePointer<AVPacket> {
        if pending[index] == nil { discardReadAhead() }
        prefetch(from: index, count: readAhead)
        let read = pending.removeValue(forKey: index)!
        Trace.span("wait for sample read") { read.done.wait() }
        return try read.result!.get()
    }

    /// Starts the reads of samples `index..<index + count` not yet started:
    /// a wider window than `readAhead`, once, while the consumer is not
    /// ready. `packet` then finds them in flight or done. `maxBytes` stops
    /// the window early (never before its first sample).
    func prefetch(from index: Int, count: Int, maxBytes: Int = .max) {
        var bytes = 0
        for ahead in index..<min(index + count, entries.count) {
            bytes += entries[ahead].size
            if bytes > maxBytes && ahead > index { break }
            guard pending[ahead] == nil else { continue }
            let read = Pending()
            pending[ahead] = read
            let queued = Trace.begin()
            ReadThreads.run { [self] in
                Trace.end("read waited for a thread", since: queued)
                read.result = Result { try self.read(ahead) }
                read.done.signal()
            }
        }
    }

    private func discardReadAhead() {
        for read in pending.values {
            read.done.wait()
            if case .success(let packet) = read.result { freePacket(packet) }
        }
        pending.removeAll()
    }

    /// The table keeps no durations: the time to the next sample (the last
    /// one lasts as long as the one before it).
    private func duration(_ index: Int) -> Int64 {
        if index + 1 < entries.count { return entries[index + 1].timestamp - entries[index].timestamp }
        return index > 0 ? entries[index].timestamp - entries[index - 1].timestamp : 1
    }

    private func read(_ index: Int) throws -> UnsafeMutablePointer<AVPacket> {
        try Trace.span("read sample") { try readUntraced(index) }
    }

    private func readUntraced(_ index: Int) throws -> UnsafeMutablePointer<AVPacket> {
        let entry = entries[index]
        guard let packet = av_packet_alloc() else { throw ProResDecodeError.decoderUnavailable("out of memory") }
        guard let block = SampleMemory.shared.allocate(bytes: blockBytes) else {
            freePacket(packet)
            throw ProResDecodeError.decoderUnavailable("out of memory")
        }
        // The packet's buffer owns the block; freeing it returns the block.
        guard
            let buffer = makeBuffer(
                block.pointer.assumingMemoryBound(to: UInt8.self), bytes: block.capacity, keeping: block)
        else {
            freePacket(packet)
            throw ProResDecodeError.decoderUnavailable("out of memory")
        }
        packet.pointee.buf = buffer
        let data = buffer.pointee.data!
        var done = 0
        while done < entry.size {
            let at = off_t(entry.offset) + off_t(done)
            let n =
                StreamingPread.shared?.read(fd, into: data + done, count: entry.size - done, at: at)
                ?? pread(fd, data + done, entry.size - done, at)
            if n > 0 {
                done += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            let reason =
                n == 0
                ? "the file ended inside frame \(index) (did it shrink while being read?)"
                : String(cString: strerror(errno))
            freePacket(packet)
            throw ProResDecodeError.inputUnreadable(
                path: displayPath, reason: "read error at frame \(index): \(reason)")
        }
        (data + entry.size).initialize(repeating: 0, count: Self.padding)
        packet.pointee.data = data
        packet.pointee.size = Int32(entry.size)
        packet.pointee.pts = entry.timestamp
        packet.pointee.dts = entry.timestamp
        packet.pointee.duration = duration(index)
        packet.pointee.pos = entry.offset
        packet.pointee.stream_index = streamIndex
        packet.pointee.flags = AV_PKT_FLAG_KEY
        return packet
    }
}
