import Foundation
import HostSupport

/// Decodes a stream's first frames with a session that is ready at once
/// while a faster one starts, then hands every later sample to that one:
/// the CPU decoder (open in milliseconds) while the GPU decoder's device
/// is made (0.16–0.23 s on the H200, the driver's own time). The frames
/// leave in order through one handler: the successor's first frame waits
/// until the opening session has delivered all of its own.
///
/// The opening session is kept short of work (`backlog` frames queued at
/// most): at the handover whatever it still holds must drain before the
/// successor's frames may leave, so a deep queue there would idle the
/// faster decoder.
// @unchecked: the feeding state is touched by the caller's thread alone (one
// feeder, as for every session); `lock` guards what other threads read.
package final class HandoverSession: FrameDecoding, @unchecked Sendable {
    /// Makes a session that sends its frames to the given handlers.
    package typealias Maker = (@escaping FrameOutputHandler, OutputIdleHandler?) throws -> FrameDecoding

    private let first: FrameDecoding
    /// The successor's maker once it can start, nil until then; asked
    /// without waiting before each sample (a throw fails the stream).
    private let successor: () throws -> Maker?
    private let handler: FrameOutputHandler
    private let idleHandler: OutputIdleHandler?
    private let backlog: Int
    /// Signalled each time the opening session delivers a frame.
    private let delivered = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outstanding = 0
    private var next: FrameDecoding?
    private var cancelled = false
    /// Ends once the opening session has delivered its last frame (or failed).
    private var drained: Deferred<Void>?
    /// Samples the opening session decoded.
    package private(set) var framesOnFirst = 0

    package init(
        first makeFirst: Maker, successor: @escaping () throws -> Maker?, backlog: Int = 2,
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws {
        self.successor = successor
        self.backlog = max(1, backlog)
        handler = outputHandler
        idleHandler = outputIdleHandler
        let box = WeakBox()
        first = try makeFirst(
            { frame in
                try outputHandler(frame)
                box.session?.firstDelivered()
            }, outputIdleHandler)
        box.session = self
    }

    /// Whether the successor took over (false when the stream ended first).
    package var handedOver: Bool { current() != nil }

    package func decode(_ sample: CompressedSample) throws {
        while true {
            if let next = current() {
                try next.decode(sample)
                return
            }
            if lock.withLock({ cancelled }) { throw ProResDecodeError.interrupted }
            if let make = try successor() {
                try handOver(to: make)
                continue
            }
            if lock.withLock({ outstanding }) < backlog {
                lock.withLock { outstanding += 1 }
                framesOnFirst += 1
                try first.decode(sample)
                return
            }
            // Until the opening session delivers a frame or the successor is ready.
            _ = delivered.wait(timeout: .now() + .milliseconds(1))
        }
    }

    package func finish() throws {
        // Once handed over (even if the successor then failed to start),
        // the opening session is finishing on the drain thread.
        if let drained {
            try drained.get()
            try current()?.finish()
        } else {
            try first.finish()
        }
    }

    package func cancel() {
        let next = lock.withLock { () -> FrameDecoding? in
            cancelled = true
            return self.next
        }
        first.cancel()
        next?.cancel()
    }

    /// Both sessions' surface pools together.
    package var poolStatistics: PixelBufferPool.Statistics {
        let a = first.poolStatistics
        guard let b = current()?.poolStatistics else { return a }
        return .init(
            allocated: a.allocated + b.allocated, vended: a.vended + b.vended, peakInUse: max(a.peakInUse, b.peakInUse))
    }

    // MARK: - Handing over

    private func current() -> FrameDecoding? { lock.withLock { next } }

    private func firstDelivered() {
        lock.withLock { outstanding -= 1 }
        delivered.signal()
    }

    /// Starts the successor, its frames held back until the opening session
    /// has delivered everything it was given. A successor that fails to
    /// start fails the stream (the maker decides what may fall back).
    private func handOver(to make: Maker) throws {
        // The drain thread only finishes it; the feeder no longer touches it.
        let first = UncheckedSendable(self.first)
        let drained = Deferred("prores-decode.handover-drain") { try first.value.finish() }
        self.drained = drained
        let handler = self.handler
        let gate = HandoverGate(drained)
        let session = try make(
            { frame in
                try gate.open()
                try handler(frame)
            }, idleHandler)
        let stop = lock.withLock { () -> Bool in
            next = session
            return cancelled
        }
        if stop { session.cancel() }
    }
}

/// The successor's frames wait here for the opening session's last one.
// @unchecked: `opened` is read and written by the successor's output thread alone.
private final class HandoverGate: @unchecked Sendable {
    private let drained: Deferred<Void>
    private var opened = false
    init(_ drained: Deferred<Void>) { self.drained = drained }

    func open() throws {
        if opened { return }
        try drained.get()
        opened = true
    }
}

/// Lets the opening session's handler reach the handover session without keeping it alive.
private final class WeakBox: @unchecked Sendable {
    weak var session: HandoverSession?
}
