import Foundation
import HostSupport
import ProResCore

/// Work on whole frames (a hash of 33 MB) on every core, its results handed
/// on in frame order: what lets `--framemd5` keep up with the GPU decoder,
/// whose frames arrive far faster than one core can hash them.
///
/// A worker takes up to `batch` queued frames at once (md5 hashes several
/// frames side by side, one per SIMD lane), but never waits for more than
/// are queued: a short queue means the hashing keeps up anyway.
///
/// Each submitted frame holds a use of its surface until its work is done,
/// so at most `depth` frames are held; `submit` waits when that many are.
/// Results are delivered, in submission order, by whichever worker finishes
/// the next one; a delivery that throws stops the work, and the error comes
/// out of the next `submit` or `finish`.
// @unchecked: every mutable field is touched under `lock`; deliveries
// additionally under `deliveryLock`, one at a time, in order.
package final class OrderedFrameWork<Result>: @unchecked Sendable {
    private struct Job {
        let sequence: Int
        let index: Int
        let pts: Int64?
        let bytes: FrameBytes
        let holder: PixelBuffer?
        /// Bytes copied when there is no surface to hold (`spans` point into them).
        let copy: CopiedFrame?
    }

    private let work: ([FrameBytes]) -> [Result]
    private let batch: Int
    private let deliver: (_ index: Int, _ pts: Int64?, _ bytes: Int, Result) throws -> Void
    private let depth: Int
    private let lock = NSCondition()
    private let deliveryLock = NSLock()
    private var queue: [Job] = []
    private var held = 0
    private var submitted = 0
    private var done: [Int: (Int, Int64?, Int, Result)] = [:]
    private var delivered = 0
    /// Results whose `deliver` call has returned.
    private var handedOn = 0
    private var failure: Error?
    private var closed = false
    private let workers = DispatchGroup()
    private let workerCount: Int
    private var started = false

    /// The worker threads start with the first frame: a run whose frames
    /// never come this way (the GPU decoder measured them) costs nothing.
    /// `work` gets 1...`batch` frames and returns one result for each. The
    /// default depth lets half the workers take a full batch while the
    /// decoder fills the queue again.
    package init(
        workers count: Int = ProcessInfo.processInfo.activeProcessorCount, depth: Int? = nil, batch: Int = 1,
        work: @escaping ([FrameBytes]) -> [Result],
        deliver: @escaping (_ index: Int, _ pts: Int64?, _ bytes: Int, Result) throws -> Void
    ) {
        self.work = work
        self.deliver = deliver
        self.batch = max(1, batch)
        workerCount = max(1, count)
        self.depth = depth ?? max(2, self.batch / 2) * workerCount
    }

    /// Under `lock`.
    private func startWorkers() {
        guard !started else { return }
        started = true
        for _ in 0..<workerCount {
            workers.enter()
            startWorkerThread("prores-decode.frame-work", { [self] in run() }, finished: workers.leave)
        }
    }

    deinit { cancel() }

    /// Queues one frame. `holder`: the surface behind `spans`, held until the
    /// work is done; without one the bytes are copied first.
    package func submit(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer], holder: PixelBuffer?) throws {
        try submit(index: index, pts: pts, bytes: .spans(spans), holder: holder)
    }

    /// Queues one frame's bytes (the native planes of a packed surface:
    /// `holder` is that surface).
    package func submit(index: Int, pts: Int64?, bytes: FrameBytes, holder: PixelBuffer?) throws {
        let copy: CopiedFrame? = if holder == nil, case .spans(let spans) = bytes { CopiedFrame(spans) } else { nil }
        precondition(
            holder != nil || copy != nil, "a packed surface's planes are read from the surface, which must be held")
        lock.lock()
        defer { lock.unlock() }
        while held >= depth && failure == nil && !closed { lock.wait() }
        if let failure { throw failure }
        precondition(!closed, "submit after finish")
        startWorkers()
        holder?.retainUse()
        held += 1
        queue.append(
            Job(
                sequence: submitted, index: index, pts: pts, bytes: copy.map { .spans([$0.bytes]) } ?? bytes,
                holder: holder, copy: copy))
        submitted += 1
        lock.broadcast()
    }

    /// Waits until every frame submitted so far has had its result
    /// delivered, and takes more afterwards: results that reach the same
    /// consumer another way (a `HandoverSession`'s GPU frames, measured on
    /// the device) then come after these.
    func waitUntilDelivered() throws {
        lock.lock()
        defer { lock.unlock() }
        while handedOn < submitted && failure == nil { lock.wait() }
        if let failure { throw failure }
    }

    /// Waits for every queued frame's result to be delivered.
    package func finish() throws {
        lock.lock()
        closed = true
        lock.broadcast()
        lock.unlock()
        workers.wait()
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
    }

    /// Drops queued frames and stops the workers (the run was aborted).
    package func cancel() {
        lock.lock()
        if failure == nil { failure = CancellationError() }
        closed = true
        dropQueuedAndUnlock()
        workers.wait()
    }

    /// Called under `lock`, which it releases: the queued frames are given
    /// up (their surfaces go back) and waiting submitters are woken.
    private func dropQueuedAndUnlock() {
        let dropped = queue
        queue.removeAll()
        held -= dropped.count
        lock.broadcast()
        lock.unlock()
        dropped.forEach { $0.holder?.releaseUse() }
    }

    private func run() {
        while true {
            lock.lock()
            while queue.isEmpty && !closed && failure == nil { lock.wait() }
            if queue.isEmpty || failure != nil {
                // After a failure nothing more is worked on: let the frames go.
                dropQueuedAndUnlock()
                return
            }
            let jobs = Array(queue.prefix(batch))
            queue.removeFirst(jobs.count)
            lock.unlock()

            let results = work(jobs.map(\.bytes))
            jobs.forEach { $0.holder?.releaseUse() }
            lock.lock()
            held -= jobs.count
            for (job, result) in zip(jobs, results) {
                done[job.sequence] = (job.index, job.pts, job.bytes.count, result)
            }
            lock.broadcast()
            lock.unlock()
            deliverReady()
        }
    }

    /// Hands on every result that is next in order.
    private func deliverReady() {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        while true {
            lock.lock()
            let next = failure == nil ? done.removeValue(forKey: delivered) : nil
            if next != nil { delivered += 1 }
            lock.unlock()
            guard let (index, pts, bytes, result) = next else { return }
            do {
                try deliver(index, pts, bytes, result)
                lock.lock()
                handedOn += 1
                lock.broadcast()
                lock.unlock()
            } catch {
                lock.lock()
                if failure == nil { failure = error }
                lock.broadcast()
                lock.unlock()
                return
            }
        }
    }
}

/// A frame's bytes copied into one allocation, freed with the last job
/// that points into it.
private final class CopiedFrame: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer

    init(_ spans: [UnsafeRawBufferPointer]) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: spans.reduce(0) { $0 + $1.count }, alignment: 64)
        var offset = 0
        for span in spans where span.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: memory[offset..<offset + span.count]).copyMemory(from: span)
            offset += span.count
        }
        bytes = UnsafeRawBufferPointer(memory)
    }

    deinit { bytes.deallocate() }
}
