import Foundation
import HostSupport
import ProResCore

/// One stream of samples through a `GPUDecodeLane` (one file of `check`):
/// the same contract as a session of its own — samples in, its frames out in
/// order through its own handler, bounded memory — while the lane's other
/// streams go through the same decoder before and after it.
///
/// `finish()` returns once every frame of this stream went through its
/// handler, not waiting for the streams queued behind it. `cancel()` and an
/// error thrown by its handler end this stream alone: its frames still in
/// the pipeline are dropped (the GPU work already submitted runs out) and
/// `finish()` throws. A failure of the lane ends it with `GPULaneFailure`.
// @unchecked: `fed`, `through`, `queuedFrames` and `inputEnded` are touched
// only under the lane's `books`; `ownFailure` only under `failureLock`.
package final class GPUDecodeStream: FrameDecoding, @unchecked Sendable {
    let lane: GPUDecodeLane
    private let handler: FrameOutputHandler
    private let idleHandler: OutputIdleHandler?
    /// Host surfaces for this stream's frames, when it reads them back.
    private let surfacePool: PixelBufferPool
    let readsBack: Bool

    /// Samples queued, and frames handed to the handler or dropped.
    var fed = 0, through = 0
    /// Frames waiting for the output thread.
    var queuedFrames = 0
    var inputEnded = false

    private let failureLock = NSLock()
    private var ownFailure: Error?

    init(
        lane: GPUDecodeLane, surfaceLayout: SurfaceLayout, readback: Bool, outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler?
    ) {
        self.lane = lane
        handler = outputHandler
        idleHandler = outputIdleHandler
        surfacePool = PixelBufferPool(layout: surfaceLayout)
        readsBack = readback
    }

    package func decode(_ sample: CompressedSample) throws {
        try lane.feed(sample, from: self)
    }

    package func finish() throws {
        lane.endInput(of: self)
        lane.waitUntilThrough(self)
        if let failure { throw failure }
    }

    package func cancel() {
        record(ProResDecodeError.interrupted)
        lane.endInput(of: self)
    }

    package var poolStatistics: PixelBufferPool.Statistics { surfacePool.statistics }

    /// Why this stream ended early: its own failure first, else the lane's
    /// (a cancelled lane's as `.interrupted`, any other as `GPULaneFailure`).
    var failure: Error? {
        failureLock.lock()
        let own = ownFailure
        failureLock.unlock()
        if let own { return own }
        guard let shared = lane.failure else { return nil }
        if case ProResDecodeError.interrupted = shared { return shared }
        return GPULaneFailure(underlying: shared)
    }

    /// Keeps `error` unless an earlier one was recorded; a feeder waiting
    /// for room in the lane's queue gives up.
    private func record(_ error: Error) {
        failureLock.lock()
        if ownFailure == nil { ownFailure = error }
        failureLock.unlock()
        lane.input.wake()
    }

    func makeSurface() throws -> PixelBuffer? {
        readsBack ? try surfacePool.makeBuffer() : nil
    }

    /// On the output thread: hands `frame` to the handler unless this
    /// stream failed, then the idle handler when none of its frames is
    /// queued behind it.
    func deliver(_ frame: DecodedFrame) {
        lane.books.lock()
        queuedFrames -= 1
        lane.books.unlock()
        guard failure == nil else { return }
        do {
            try Trace.span("frame handler") { try handler(frame) }
            lane.books.lock()
            let idle = queuedFrames == 0
            lane.books.unlock()
            if idle { try idleHandler?() }
        } catch {
            record(error)
        }
    }
}
