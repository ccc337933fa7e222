import Glibc

/// Nanoseconds on CLOCK_MONOTONIC: immune to wall-clock changes, cheap to read.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// When the process started, on the monotonic clock: start-up (to the first
/// decoded frame) is measured from it. The CLI reads it first thing, which
/// fixes it; a library user that never does gets its first use instead.
public enum ProcessClock {
    public static let start = monotonicNanoseconds()

    /// Milliseconds from `start` to `instant`.
    public static func milliseconds(to instant: UInt64) -> Double { Double(instant &- start) / 1e6 }
}
