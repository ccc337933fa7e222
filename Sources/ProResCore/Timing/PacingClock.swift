/// The clock a `FramePacer` ticks on: the host time a display link reports.
/// Injected so that pacing can be tested on simulated time, without sleeping.
public protocol PacingClock: AnyObject {
    /// Monotonic nanoseconds.
    func now() -> UInt64
    /// Returns at or after `deadline` (never before it).
    func sleep(until deadline: UInt64)
}
