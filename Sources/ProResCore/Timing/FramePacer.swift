import Foundation

/// Presents frames on a steady clock at the media rate, the way a display
/// link (CADisplayLink pulling from AVPlayerItemVideoOutput) asks at every
/// tick "is there a new frame for this host time?".
///
/// Frames that finished every stage arrive through `push` and wait in a
/// bounded queue. Playback starts once the queue is full (or the input
/// ended): a player's preroll. Tick k is at host time t0 + k / rate, and
/// frame i (counted from the first frame of the run) is due at tick i. At
/// each tick the presenter takes every queued frame that is due and presents
/// the newest of them:
///
/// * **presented**: a frame shown at a tick (at its own tick, or later if it
///   was late but nothing newer had arrived);
/// * **dropped**: a frame that was ready but superseded, at the tick that
///   took it, by a newer due frame, so it was never shown;
/// * **late**: a tick at which no due frame was waiting, so the previous one
///   stayed on screen. A presenter that wakes after later ticks have passed
///   counts those missed ticks as late too, and serves the newest tick.
///
/// The clock never waits for the pipeline: a slow decoder shows up as late
/// ticks and dropped frames, not as a slower clock. The pipeline waits only
/// when it is a full queue ahead of the clock (back-pressure, so memory stays
/// bounded); the presenter never makes it wait otherwise. Jitter is how long
/// after each tick's host time the presenter woke for it.
// @unchecked: the queue and its flags are touched only under `condition`.
public final class FramePacer: @unchecked Sendable {
    public let rate: FrameRate
    /// Frames that may wait for their tick; also the preroll.
    public let capacity: Int
    private let firstIndex: Int
    private let clock: PacingClock
    private let condition = NSCondition()
    private var queue: [Int] = []
    private var finished = false
    private var cancelled = false
    /// Host time of tick 0, once playback started.
    private var startedAt: UInt64?
    /// Called on the presenter's thread with each frame it presents, at its
    /// tick (`play` shows it then); nil for bookkeeping alone (`--realtime`).
    public var onPresent: ((Int) -> Void)?

    public static let defaultCapacity = 3

    /// `firstIndex` is the source index of the run's first frame (`--start`).
    public init(
        rate: FrameRate, firstIndex: Int, capacity: Int = defaultCapacity, clock: PacingClock = MonotonicPacingClock()
    ) {
        precondition(capacity > 0)
        self.rate = rate
        self.firstIndex = firstIndex
        self.capacity = capacity
        self.clock = clock
    }

    /// Hands over a frame that finished every stage; frames come in index
    /// order. Blocks while the queue is full. Returns false once cancelled.
    @discardableResult
    public func push(_ index: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        queue.append(index)
        condition.broadcast()
        return true
    }

    /// No more frames: the presenter shows what is queued, then returns.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the presenter at its next tick and releases a blocked `push`.
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether frame `index`'s tick has already come, so that a frame not
    /// yet decoded can only be late or dropped: a player skips it before
    /// decoding. False until playback starts.
    public func hasMissedItsTick(_ index: Int) -> Bool {
        condition.lock()
        let start = startedAt
        condition.unlock()
        guard let start else { return false }
        return rate.ticks(in: clock.now() - start) >= index - firstIndex
    }

    /// Frames waiting for their tick.
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    /// The presenter: runs until every frame is presented or dropped (after
    /// `finish`), or until `cancel`.
    public func run() -> PacingReport {
        condition.lock()
        while queue.count < capacity && !finished && !cancelled { condition.wait() }
        condition.unlock()
        let start = clock.now()
        condition.lock()
        startedAt = start
        condition.unlock()
        var tick = 0
        var late = 0
        var presented: [Int] = []
        var dropped: [Int] = []
        var jitter: [Double] = []
        var lateFrames = FrameRanges()
        while true {
            condition.lock()
            let done = cancelled || (finished && queue.isEmpty)
            condition.unlock()
            if done { break }
            let target = start + rate.nanoseconds(ticks: tick)
            clock.sleep(until: target)
            let woke = clock.now()
            jitter.append(Double(woke - target) / 1000)
            let reached = rate.ticks(in: woke - start)
            if reached > tick {
                late += reached - tick
                for missed in tick..<reached { lateFrames.add(firstIndex + missed) }
                tick = reached
            }
            condition.lock()
            let due = Array(queue.prefix { $0 - firstIndex <= tick })
            queue.removeFirst(due.count)
            condition.broadcast()
            condition.unlock()
            if let newest = due.last {
                onPresent?(newest)
                presented.append(newest)
                dropped += due.dropLast()
            } else {
                late += 1
                lateFrames.add(firstIndex + tick)
            }
            tick += 1
        }
        return PacingReport(
            rate: rate, ticks: tick, presentedFrames: presented, droppedFrames: dropped, late: late,
            lateFrames: lateFrames.runs,
            jitter: Percentiles(jitter))
    }
}
