import Glibc
import HostSupport

/// The real `PacingClock`: CLOCK_MONOTONIC, and an absolute-deadline sleep,
/// so that waking late for one tick does not push every later tick back.
public final class MonotonicPacingClock: PacingClock {
    public init() {}

    public func now() -> UInt64 { monotonicNanoseconds() }

    public func sleep(until deadline: UInt64) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}
