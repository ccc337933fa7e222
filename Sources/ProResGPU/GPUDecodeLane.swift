import Foundation
import GPUKit
import HostSupport
import ProResCore

/// One GPU decode pipeline — a decoder, its slots and four threads — that
/// carries one stream after another (`GPUDecodeStream`, each with its own
/// output handler): `check`'s files of one format. Why: a session per file
/// fills the pipeline from empty and drains it to empty before the next
/// file's first batch is even parsed, so each 48-frame 4K file takes
/// 14–20 ms on the H200 against ~10 ms of GPU work. On a lane the next file's samples follow the last
/// one's into the same queue.
///
/// The threads: the caller's queues samples; the parse thread batches
/// whatever is queued (a batch may hold frames of two streams: frames are
/// independent on the GPU, and every stream of a lane has the geometry,
/// colour tags and analysis its decoder was made for, its reuse key) and
/// parses headers; the submit thread stages and submits; the completion
/// thread waits for each batch in order and queues its frames for the
/// output thread, which runs each frame's stream's handler, so a slow
/// handler holds back only frames already decoded.
///
/// Failures: a stream's own (its handler threw, it was cancelled) end that
/// stream alone, whose frames are then dropped. A failure of the lane itself
/// (a device error, memory) ends every stream in it: each throws
/// `GPULaneFailure`, so that its caller knows the fault was not its own.
// @unchecked: the queues and `SessionThreads` are thread-safe; `books`
// guards the streams' counts and the statistics, `stateLock` the state.
package final class GPUDecodeLane: @unchecked Sendable {
    package let format: FormatDescription
    let decoder: GPUProResDecoder
    let overlapTransforms: Bool
    /// Samples, each with its stream.
    let input: BlockingQueue<(sample: CompressedSample, stream: GPUDecodeStream)>
    let freeSlots: BlockingQueue<Int>
    let slotCount: Int
    /// Batches parsed, waiting for a slot.
    let parsed: BlockingQueue<Batch>
    let submitted: BlockingQueue<Batch>
    let output: BlockingQueue<(frame: DecodedFrame, stream: GPUDecodeStream)>
    let threads = SessionThreads()
    let timingLock = NSLock()
    var timings: [GPUProResDecoder.BatchTiming] = []
    /// Under `timingLock`.
    var completed = 0

    /// The streams' counts (`GPUDecodeStream`'s `fed`, `through`,
    /// `queuedFrames`), what this lane counts, and the waits for them.
    let books = NSCondition()
    /// Streams opened whose input has not ended: while there are none, a
    /// batch that is not full does not wait out its patience.
    var feedingStreams = 0
    /// Frames queued by every stream so far, and those handed to (or
    /// dropped for) their stream.
    var framesFed = 0, framesThrough = 0
    /// Under `books`.
    var counts = Statistics()

    package var statistics: Statistics {
        books.lock()
        defer { books.unlock() }
        return counts
    }

    package struct Statistics: Sendable, Equatable {
        /// Streams the lane carried.
        package var streams = 0
        /// Streams opened while an earlier stream's frames were still in
        /// the pipeline: the overlap the lane exists for.
        package var overlapped = 0
        /// Batches that held frames of two streams or more.
        package var mixedBatches = 0

        package init(streams: Int = 0, overlapped: Int = 0, mixedBatches: Int = 0) {
            self.streams = streams
            self.overlapped = overlapped
            self.mixedBatches = mixedBatches
        }

        package static func + (a: Statistics, b: Statistics) -> Statistics {
            Statistics(
                streams: a.streams + b.streams, overlapped: a.overlapped + b.overlapped,
                mixedBatches: a.mixedBatches + b.mixedBatches)
        }
    }

    private let stateLock = NSLock()
    private var closed = false
    /// Where the decoder goes back when the lane ends cleanly.
    private let reuse: (device: GPUDevice, key: String)?

    /// A batch, parsed, then submitted. It owns one use of each host
    /// surface until that surface is handed to its frame (`take`): a batch
    /// dropped on the way (a failed lane drains its queues) gives its
    /// surfaces back.
    // @unchecked: passed from the parse thread to the submit thread to the
    // completion thread through queues; one thread at a time touches it.
    final class Batch: @unchecked Sendable {
        let samples: [CompressedSample]
        /// Each sample's stream.
        let streams: [GPUDecodeStream]
        /// Host surfaces, made once the batch has a slot (none while it
        /// waits for one: at 4K each is 33 MB), for the streams that read back.
        var surfaces: [PixelBuffer?] = []
        let prepared: GPUProResDecoder.PreparedBatch
        var slot = 0
        var submitted: UInt64 = 0

        init(samples: [CompressedSample], streams: [GPUDecodeStream], prepared: GPUProResDecoder.PreparedBatch) {
            self.samples = samples
            self.streams = streams
            self.prepared = prepared
        }

        /// Frame i's surface, with its use, now the caller's.
        func take(_ i: Int) -> PixelBuffer? {
            guard i < surfaces.count else { return nil }  // no host surfaces (frames stay on the GPU)
            defer { surfaces[i] = nil }
            return surfaces[i]
        }

        deinit { surfaces.forEach { $0?.releaseUse() } }
    }

    /// On a shared device: the decoder (and its buffers) of an earlier
    /// lane or session of the same geometry is taken when there is one, and
    /// given back when this lane ends cleanly.
    package convenience init(
        format: FormatDescription, device: GPUDevice, configuration: GPUDecodeSession.Configuration
    ) throws {
        var configuration = configuration
        if configuration.cpus == nil { configuration.cpus = device.placement.cpus }
        let key = GPUDecodeSession.reuseKey(format, configuration)
        let kept = device.takeDecoder(key)
        kept?.chargeQueueWaits(to: SharedWaits.currentLedger)
        let decoder =
            try kept
            ?? Trace.span("decoder made") {
                try GPUProResDecoder(
                    context: device.context, kernels: device.kernels, format: format, configuration: configuration,
                    regionImports: device.regionImports)
            }
        try self.init(format: format, decoder: decoder, configuration: configuration, reuse: (device, key))
    }

    init(
        format: FormatDescription, decoder: GPUProResDecoder, configuration: GPUDecodeSession.Configuration,
        reuse: (device: GPUDevice, key: String)?
    ) throws {
        self.format = format
        self.decoder = decoder
        self.reuse = reuse
        uploadsBefore = (decoder.uploadedInPlace, decoder.staged)
        linkTrafficBefore = decoder.linkTraffic
        heldBefore = decoder.heldTransforms
        overlapTransforms = configuration.overlapTransforms
        input = BlockingQueue(capacity: 2 * decoder.framesPerBatch)
        slotCount = configuration.slots
        freeSlots = BlockingQueue(capacity: slotCount)
        for slot in 0..<slotCount { freeSlots.push(slot) }
        parsed = BlockingQueue(capacity: 1)
        submitted = BlockingQueue(capacity: configuration.slots)
        output = BlockingQueue(capacity: decoder.framesPerBatch + 2)
        // Pinning is best effort: a refused mask leaves the thread where it was.
        let cpus = configuration.cpus
        func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
            threads.start(name) {
                if let cpus { _ = pinCurrentThread(to: cpus) }
                body()
            }
        }
        start("prores-decode.gpu-parse") { [self] in runParse() }
        start("prores-decode.gpu-submit") { [self] in runSubmit() }
        start("prores-decode.gpu-complete") { [self] in runCompletions() }
        start("prores-decode.output") { [self] in runOutput() }
    }

    deinit {
        cancel()
        threads.wait()
    }

    package var framesPerBatch: Int { decoder.framesPerBatch }
    /// The decoder's upload path, and this lane's frames so far uploaded in place and staged.
    package var uploads: (path: UploadPath, inPlace: Int, staged: Int) {
        (decoder.upload, decoder.uploadedInPlace - uploadsBefore.inPlace, decoder.staged - uploadsBefore.staged)
    }
    /// The decoder's counts when this lane took it (a decoder serves one lane at a time).
    private let uploadsBefore: (inPlace: Int, staged: Int)
    /// What this lane's input took from host memory (read once its batches are done).
    package var linkTraffic: LinkTraffic { decoder.linkTraffic.since(linkTrafficBefore) }
    private let linkTrafficBefore: LinkTraffic
    private let heldBefore: Int
    /// Batches whose transform went beside the next batch's entropy pass (`overlapTransforms`).
    package var heldTransforms: Int { decoder.heldTransforms - heldBefore }

    /// GPU time of the batches timed so far (timestamp queries; the first
    /// few and then one in the decoder's `timedBatchInterval`), in order.
    package var batchTimings: [GPUProResDecoder.BatchTiming] {
        timingLock.lock()
        defer { timingLock.unlock() }
        return timings
    }

    /// Batches completed so far, timed or not.
    package var completedBatches: Int {
        timingLock.lock()
        defer { timingLock.unlock() }
        return completed
    }

    /// The lane's own failure (a device error), or `.interrupted` once cancelled.
    package var failure: Error? { threads.failure }

    /// A stream whose frames go to `outputHandler`, in order, on the
    /// output thread; `readback` copies each frame into a host surface of
    /// the stream's own pool. Throws once the lane failed or was closed.
    package func openStream(
        readback: Bool, outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler? = nil
    ) throws -> GPUDecodeStream {
        stateLock.lock()
        let isClosed = closed
        stateLock.unlock()
        if let failure {
            if case ProResDecodeError.interrupted = failure { throw failure }
            throw GPULaneFailure(underlying: failure)
        }
        if isClosed { throw ProResDecodeError.interrupted }
        let stream = GPUDecodeStream(
            lane: self, surfaceLayout: decoder.surfaceLayout, readback: readback,
            outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
        books.lock()
        feedingStreams += 1
        counts.streams += 1
        if framesThrough < framesFed { counts.overlapped += 1 }
        books.unlock()
        return stream
    }

    /// No more streams: the queued samples are decoded, every frame goes
    /// through its handler, the threads end, and the decoder goes back to
    /// the device for the next lane or session of its kind unless the lane
    /// failed. Returns once all that is done.
    package func close() {
        stateLock.lock()
        let wasClosed = closed
        closed = true
        stateLock.unlock()
        input.close()
        threads.wait()
        // Only a decoder whose every batch completed may serve another file.
        if !wasClosed, failure == nil, let reuse { reuse.device.keep(decoder, key: reuse.key) }
    }

    /// Stops at once: every stream throws `.interrupted`, queued samples and
    /// frames are dropped, and the decoder is not kept. Nothing once closed.
    package func cancel() {
        stateLock.lock()
        let wasClosed = closed
        stateLock.unlock()
        if !wasClosed { fail(ProResDecodeError.interrupted) }
    }

    // MARK: - The streams' side

    /// Queues `sample` for `stream`; blocks while the queue is full, unless
    /// the stream fails meanwhile.
    func feed(_ sample: CompressedSample, from stream: GPUDecodeStream) throws {
        if let failure = stream.failure { throw failure }
        books.lock()
        stream.fed += 1
        framesFed += 1
        books.unlock()
        if !input.push((sample, stream), unless: { stream.failure != nil }) {
            account(stream, frames: 1)
            throw stream.failure ?? ProResDecodeError.interrupted
        }
    }

    /// `stream` will queue nothing more (it finished or failed).
    func endInput(of stream: GPUDecodeStream) {
        books.lock()
        let ended = !stream.inputEnded
        if ended {
            stream.inputEnded = true
            feedingStreams -= 1
        }
        books.unlock()
        // The parse thread may be waiting out its patience, a feeder for room.
        if ended { input.wake() }
    }

    /// `frames` of `stream` went through its handler or were dropped.
    func account(_ stream: GPUDecodeStream, frames: Int) {
        books.lock()
        stream.through += frames
        framesThrough += frames
        books.broadcast()
        books.unlock()
    }

    /// Waits until every frame `stream` queued went through (or the lane
    /// failed: then until no thread of the lane runs, so that no handler of
    /// the stream is still running when its caller moves on).
    func waitUntilThrough(_ stream: GPUDecodeStream) {
        books.lock()
        while stream.through < stream.fed && failure == nil { books.wait() }
        let laneFailed = stream.through < stream.fed
        books.unlock()
        if laneFailed { threads.wait() }
    }

    /// A failure of the lane itself: every stream ends with it.
    func fail(_ error: Error) {
        threads.record(error)
        input.closeAndDrain()
        parsed.closeAndDrain()
        freeSlots.closeAndDrain()
        submitted.closeAndDrain()
        output.closeAndDrain()
        books.lock()
        books.broadcast()
        books.unlock()
    }
}

/// A stream ended because the decode pipeline it shared with others failed
/// (a device error): not the stream's own doing, so `check` checks its file
/// again alone. Reads as the underlying error.
package struct GPULaneFailure: Error, CustomStringConvertible {
    package let underlying: Error
    package var description: String { "\(underlying)" }
}

extension GPUProResDecoder {
    /// A decoder as `configuration` asks for it.
    convenience init(
        context: VulkanContext, kernels: KernelCache, format: FormatDescription,
        configuration: GPUDecodeSession.Configuration, regionImports: HostRegionImports? = nil
    ) throws {
        try self.init(
            context: context, kernels: kernels, format: format, slots: configuration.slots,
            framesPerBatch: configuration.framesPerBatch, expectedFrames: configuration.expectedFrames,
            expectedFrameBytes: configuration.expectedFrameBytes, analysis: configuration.analysis,
            upload: configuration.upload, deliversSurfaces: configuration.deviceSurfaces, regionImports: regionImports,
            timedBatchInterval: configuration.timestampInterval)
    }
}
