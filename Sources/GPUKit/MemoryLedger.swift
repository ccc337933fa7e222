import Foundation

/// What one device's buffers hold, in bytes: now and at most so far, for
/// memory of the device's own (device-local allocations) and of the host
/// (staging, readback and imported memory).
///
/// Why it is kept: on the H200 a plain gigabyte of device-local memory cost
/// ~39 ms to allocate (a dedicated one ~2), and what the kernel spends
/// taking a process's memory back at exit grows with it,
/// so a run's peak is a cost the `--json` summary shows.
///
/// Thread-safety: every member is behind `lock`.
public final class MemoryLedger: @unchecked Sendable {
    public struct Totals: Equatable, Sendable {
        public var device = 0
        public var host = 0
    }

    private let lock = NSLock()
    private var now = Totals()
    private var highest = Totals()

    /// The bytes held now.
    public var current: Totals { lock.withLock { now } }
    /// The most held at once so far.
    public var peak: Totals { lock.withLock { highest } }

    func allocated(_ bytes: Int, onDevice: Bool) {
        lock.withLock {
            if onDevice { now.device += bytes } else { now.host += bytes }
            highest.device = max(highest.device, now.device)
            highest.host = max(highest.host, now.host)
        }
    }

    func freed(_ bytes: Int, onDevice: Bool) {
        lock.withLock { if onDevice { now.device -= bytes } else { now.host -= bytes } }
    }
}
