import CFFmpeg
import Foundation
import HostSupport
import ProResCore

/// An asynchronous ProRes decoder (VTDecompressionSession) on FFmpeg's
/// libavcodec. Samples go in through `decode(_:)`, which returns at once
/// unless too many frames are already in flight (back-pressure); decoded
/// frames come out in order, each with a status, on the session's own output
/// thread, so a slow output handler never blocks the decoder's thread.
// @unchecked: the codec context is used by the decode thread alone; queues and threads have their own locks.
public final class FFmpegDecodeSession: FrameDecoding, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// FFmpeg frame + slice threads; 0 means one per core.
        public var threads: Int
        /// Frames decoded but not yet handed to the output handler.
        public var maximumFramesInFlight: Int
        /// Every thread on one frame at a time: the first frame comes out
        /// after one frame's decoding spread over the threads, where frame
        /// threads hold it until each thread has a frame (a 4K HQ frame
        /// takes one core 0.15–0.2 s on the H200's host). For a session that
        /// decodes only the first frames (`HandoverSession`).
        public var slicesOnly: Bool

        public init(threads: Int = 0, maximumFramesInFlight: Int? = nil, slicesOnly: Bool = false) {
            let resolved = threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
            self.threads = resolved
            self.maximumFramesInFlight = maximumFramesInFlight ?? resolved + 2
            self.slicesOnly = slicesOnly
        }
    }

    public typealias OutputHandler = FrameOutputHandler

    public let format: FormatDescription
    public let configuration: Configuration

    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let allocator = DecoderSurfaceAllocator()
    private let packets = SamplePacket()
    private let input: BlockingQueue<CompressedSample>
    private let output: BlockingQueue<DecodedFrame>
    private let handler: OutputHandler
    private let idleHandler: OutputIdleHandler?
    private let threads = SessionThreads()
    private var finished = false

    public init(
        format: FormatDescription, configuration: Configuration = .init(),
        outputHandler: @escaping OutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws {
        self.format = format
        self.configuration = configuration
        self.handler = outputHandler
        idleHandler = outputIdleHandler
        input = BlockingQueue(capacity: max(1, configuration.threads))
        output = BlockingQueue(capacity: max(1, configuration.maximumFramesInFlight))
        codec = try allocator.openDecoder(
            for: format, threads: configuration.threads, slicesOnly: configuration.slicesOnly)
        threads.start("prores-decode.decode") { [self] in runDecoder() }
        threads.start("prores-decode.output") { [self] in runOutput() }
    }

    deinit {
        cancel()
        threads.wait()
        avcodec_free_context(&codec)
    }

    /// Queues a sample. Blocks while the session is full; throws once the
    /// session has failed (the output handler threw) or was cancelled.
    public func decode(_ sample: CompressedSample) throws {
        try threads.feed(sample, to: input)
    }

    /// Flushes the decoder, waits until every frame went through the output
    /// handler, and rethrows the handler's error if it threw.
    public func finish() throws {
        try threads.finish(closing: input)
    }

    /// Stops at once: queued samples are dropped, no more frames are delivered.
    public func cancel() {
        fail(ProResDecodeError.interrupted)
    }

    /// How the surface pool behaved: allocations stay bounded by frames in flight.
    public var poolStatistics: PixelBufferPool.Statistics { allocator.statistics }

    // MARK: - Threads

    private func fail(_ error: Error) {
        threads.record(error)
        input.closeAndDrain()
        output.closeAndDrain()
    }

    private func runOutput() { threads.deliver(output, to: handler, idle: idleHandler, failing: fail) }

    /// A sample handed to FFmpeg, waiting for its picture.
    private struct InFlight {
        let sample: CompressedSample
        let sent: UInt64
        /// Set when the sample was rejected before reaching FFmpeg.
        let rejection: String?
        /// A problem noticed in the sample that still lets it decode.
        let damage: String?
        /// Decode it again into a pre-filled surface even if FFmpeg reports
        /// no error (a missing second field or alpha, which it does not report).
        var conceal = false
    }

    /// Why a frame has no picture, in one wording. FFmpeg's own error cannot
    /// be pinned on a frame: one thread returns it from send_packet for the
    /// frame just sent, frame threads return it from receive_frame frames
    /// later (or not at all), so quoting it made reports depend on --threads.
    static let noPicture = "the decoder produced no picture"

    private func runDecoder() {
        guard let codec, let picture = av_frame_alloc() else {
            fail(ProResDecodeError.decoderUnavailable("out of memory"))
            output.close()
            return
        }
        var frame: UnsafeMutablePointer<AVFrame>? = picture
        defer { av_frame_free(&frame) }
        var inFlight: [InFlight] = []
        var concealer: ConcealingDecoder?

        func emit(_ entry: InFlight, status: FrameStatus, surface: PixelBuffer?, codes: (Int, Int, Int)?) {
            let now = monotonicNanoseconds()
            let decoded = DecodedFrame(
                index: entry.sample.index, pts: entry.sample.pts, status: status,
                pixelBuffer: surface, colorCodes: codes,
                readStart: entry.sample.readStart,
                demuxNanoseconds: entry.sample.demuxNanoseconds,
                decodeNanoseconds: now - entry.sent)
            output.push(decoded)
        }
        /// Frames come out in order, so every sample ahead of the one that
        /// just arrived produced no picture.
        func emitFailuresBefore(_ index: Int?) {
            while let head = inFlight.first, head.sample.index != index {
                inFlight.removeFirst()
                let why = [head.rejection ?? Self.noPicture, head.damage].compactMap { $0 }.joined(separator: "; ")
                emit(head, status: .failed(why), surface: nil, codes: nil)
            }
        }
        func emitRejectedAtHead() {
            while let head = inFlight.first, head.rejection != nil {
                inFlight.removeFirst()
                emit(head, status: .failed(head.rejection!), surface: nil, codes: nil)
            }
        }
        func receive() -> Bool {
            while true {
                let status = avcodec_receive_frame(codec, picture)
                if status == PD_AVERROR_EAGAIN || status == PD_AVERROR_EOF { return status == PD_AVERROR_EAGAIN }
                // A failed frame: it is reported when the next picture (or the end) shows it missing.
                if status < 0 { continue }
                let index = Int(picture.pointee.pts)
                guard inFlight.contains(where: { $0.sample.index == index && $0.rejection == nil }) else {
                    av_frame_unref(picture)
                    continue
                }
                emitFailuresBefore(index)
                let entry = inFlight.removeFirst()
                let made = outcome(of: picture, for: entry, concealer: &concealer)
                emit(entry, status: made.status, surface: made.surface, codes: made.codes)
                emitRejectedAtHead()
            }
        }

        while let sample = input.pop() {
            let entry = Self.admitted(sample, sent: monotonicNanoseconds())
            inFlight.append(entry)
            guard entry.rejection == nil else {
                emitRejectedAtHead()
                continue
            }
            while true {
                let status = packets.with(sample) { avcodec_send_packet(codec, $0) } ?? PD_AVERROR_ENOMEM
                if status == PD_AVERROR_EAGAIN {
                    _ = receive()
                    continue
                }
                break
            }
            _ = receive()
        }
        if threads.failure == nil {
            avcodec_send_packet(codec, nil)
            _ = receive()
            emitFailuresBefore(nil)
        }
        inFlight.removeAll()
        output.close()
    }

    /// The frame `picture` holds for `entry`: its surface (redone into a
    /// neutral-filled one where slices, a field or alpha are missing, so the
    /// output is reproducible), its status and colour codes. Unrefs `picture`.
    private func outcome(
        of picture: UnsafeMutablePointer<AVFrame>, for entry: InFlight, concealer: inout ConcealingDecoder?
    ) -> (status: FrameStatus, surface: PixelBuffer?, codes: (Int, Int, Int)) {
        var surface = DecoderSurfaceAllocator.surface(of: picture)
        surface?.retainUse()
        var problems: [String] = []
        if let damage = entry.damage { problems.append(damage) }
        if picture.pointee.decode_error_flags != 0 || entry.conceal {
            // Redo it into a neutral-filled surface so the output is reproducible.
            if concealer == nil { concealer = try? ConcealingDecoder(format: format) }
            if let concealed = concealer?.decode(entry.sample) {
                surface?.releaseUse()
                surface = concealed
            }
            // A missing field or alpha is named by its own damage line.
            if picture.pointee.decode_error_flags != 0 {
                problems.append("some slices could not be decoded and were concealed")
            }
        }
        if picture.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 {
            problems.append("the container marked the frame corrupt")
        }
        let codes = (
            Int(picture.pointee.color_primaries.rawValue), Int(picture.pointee.color_trc.rawValue),
            Int(picture.pointee.colorspace.rawValue)
        )
        av_frame_unref(picture)
        let frameStatus: FrameStatus =
            surface == nil
            ? .failed("the decoder returned a picture outside the surface pool")
            : problems.isEmpty ? .ok : .damaged(problems.joined(separator: "; "))
        return (frameStatus, surface, codes)
    }

    /// `sample` as it goes in: rejected before FFmpeg sees it (a header
    /// that does not parse, a frame shorter than its picture needs, a slice
    /// index that does not fit its picture), or sent with the damage its
    /// header shows (truncated, a missing second field or alpha).
    private static func admitted(_ sample: CompressedSample, sent: UInt64) -> InFlight {
        let header: ProResFrameHeader
        do {
            header = try ProResFrameHeader(sample.bytes)
        } catch {
            return InFlight(sample: sample, sent: sent, rejection: "invalid frame header: \(error)", damage: nil)
        }
        guard sample.bytes.count >= header.minimumFrameBytes else {
            let why =
                "invalid picture: a \(header.width)x\(header.height) frame needs at least \(header.minimumFrameBytes) bytes, this one has \(sample.bytes.count)"
            return InFlight(sample: sample, sent: sent, rejection: why, damage: nil)
        }
        // The GPU decoder fails such a frame in the same words; FFmpeg
        // would decode slices from inside the index, its own way.
        if let why = header.pictureLayoutMismatch(in: sample.bytes) {
            return InFlight(sample: sample, sent: sent, rejection: why, damage: nil)
        }
        let missingField = header.secondFieldIsMissing(in: sample.bytes)
        let missingAlpha = header.alphaIsMissing(in: sample.bytes)
        let damage = [
            header.frameSize > sample.bytes.count
                ? "truncated: the frame header says \(header.frameSize) bytes, the sample has \(sample.bytes.count)"
                : nil,
            missingField ? ProResFrameHeader.missingSecondField : nil,
            missingAlpha ? ProResFrameHeader.missingAlpha : nil,
        ].compactMap { $0 }.joined(separator: "; ")
        return InFlight(
            sample: sample, sent: sent, rejection: nil, damage: damage.isEmpty ? nil : damage,
            conceal: missingField || missingAlpha)
    }
}
