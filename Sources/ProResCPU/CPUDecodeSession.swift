import Foundation
import HostSupport
import ProResCore

/// A decode session on our CPU decoder, with the FFmpeg session's contract
/// (`FrameDecoding`): samples in through `decode(_:)` with back-pressure,
/// frames out in order, each with a status, on the session's own output
/// thread. Each frame's slices are spread over `threads`, those of up to
/// `ProResCPUDecoder.framesAtOnce` queued frames together.
// @unchecked: the decoder is used by the decode thread alone; queues and threads have their own locks.
public final class CPUDecodeSession: FrameDecoding, @unchecked Sendable {
    public let format: FormatDescription
    private let decoder: ProResCPUDecoder
    private let input: BlockingQueue<CompressedSample>
    private let output: BlockingQueue<DecodedFrame>
    private let handler: FrameOutputHandler
    private let idleHandler: OutputIdleHandler?
    private let workers = SessionThreads()

    /// `threads`: 0 means one per core. `packing`: frames in that packed
    /// layout instead of the native planar one.
    public init(
        format: FormatDescription, threads: Int, packing: PackedLayout? = nil,
        outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler? = nil
    ) {
        self.format = format
        let resolved = threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
        decoder = ProResCPUDecoder(bitDepth: format.bitDepth, threads: resolved, packing: packing)
        handler = outputHandler
        idleHandler = outputIdleHandler
        input = BlockingQueue(capacity: max(2, decoder.framesAtOnce))
        output = BlockingQueue(capacity: resolved + 2)
        workers.start("prores-decode.cpu-decode") { [self] in runDecoder() }
        workers.start("prores-decode.output") { [self] in runOutput() }
    }

    deinit {
        cancel()
        workers.wait()
    }

    public func decode(_ sample: CompressedSample) throws { try workers.feed(sample, to: input) }

    public func finish() throws { try workers.finish(closing: input) }

    public func cancel() { fail(ProResDecodeError.interrupted) }

    public var poolStatistics: PixelBufferPool.Statistics { decoder.poolStatistics }

    private func fail(_ error: Error) {
        workers.record(error)
        input.closeAndDrain()
        output.closeAndDrain()
    }

    private func runOutput() { workers.deliver(output, to: handler, idle: idleHandler, failing: fail) }

    private func runDecoder() {
        decoding: while true {
            // The frames already queued, without waiting for more.
            let batch = input.popBatch(limit: decoder.framesAtOnce)
            if batch.isEmpty { break }
            let sent = monotonicNanoseconds()
            let outcomes = decoder.decode(batch.map(\.bytes))
            for (sample, outcome) in zip(batch, outcomes) {
                if !output.push(Self.frame(sample, outcome, sent: sent)) { break decoding }
            }
        }
        output.close()
    }

    /// A failed frame's truncation, named as the FFmpeg session names it:
    /// for frames that got as far as the decoder's slices, not for those
    /// refused on their headers.
    private static func truncation(failing sample: CompressedSample) -> String? {
        guard let header = try? ProResFrameHeader(sample.bytes), sample.bytes.count >= header.minimumFrameBytes,
            header.pictureLayoutMismatch(in: sample.bytes) == nil, header.frameSize > sample.bytes.count
        else { return nil }
        return "truncated: the frame header says \(header.frameSize) bytes, the sample has \(sample.bytes.count)"
    }

    /// One sample decoded, with its status in the words of the other decoders.
    static func frame(_ sample: CompressedSample, _ result: Result<ProResCPUDecoder.Outcome, Error>, sent: UInt64)
        -> DecodedFrame
    {
        var surface: PixelBuffer?
        var codes: (Int, Int, Int)?
        var mayDiffer = false
        let status: FrameStatus
        do {
            let outcome = try result.get()
            surface = outcome.surface
            mayDiffer = outcome.decodersMayDiffer
            let header = outcome.header
            codes = (header.colorPrimaries, header.transferCharacteristic, header.matrixCoefficients)
            var problems: [String] = []
            if header.frameSize > sample.bytes.count {
                problems.append(
                    "truncated: the frame header says \(header.frameSize) bytes, the sample has \(sample.bytes.count)")
            }
            if outcome.missingSecondField { problems.append(ProResFrameHeader.missingSecondField) }
            if header.alphaIsMissing(in: sample.bytes) { problems.append(ProResFrameHeader.missingAlpha) }
            if !outcome.missingSecondField && outcome.damagedSlices > 0 {
                problems.append("some slices could not be decoded and were concealed")
            }
            status = problems.isEmpty ? .ok : .damaged(problems.joined(separator: "; "))
        } catch {
            status = .failed(["\(error)", truncation(failing: sample)].compactMap { $0 }.joined(separator: "; "))
        }
        return DecodedFrame(
            index: sample.index, pts: sample.pts, status: status, pixelBuffer: surface, colorCodes: codes,
            readStart: sample.readStart, demuxNanoseconds: sample.demuxNanoseconds,
            decodeNanoseconds: monotonicNanoseconds() - sent, decodersMayDiffer: mayDiffer)
    }
}
