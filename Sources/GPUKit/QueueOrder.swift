import CVulkan
import Foundation
import HostSupport

/// The submissions to one queue made on behalf of jobs with clocks of their
/// own (a `check` file's `--timeout`), in queue order.
///
/// Why: a queue runs what it is given in order, so a job whose batch waits
/// behind another job's earlier batches spends that time on the other job's
/// work. `CommandRecorder.wait(for:)` charges the part of a wait during which
/// another job's earlier submission is still pending to the waiting job's
/// ledger (`WaitLedger`), which its clock leaves out. On a GPU that overlaps
/// submissions the overlap counts as the other job's too: a job's clock
/// never runs faster for sharing the device.
///
/// Recorders are held weakly. A recorder's last reference may be the one a
/// lookup here took, and its deinit waits for the device under the submit
/// lock: every such reference is let go after `lock` is released, and
/// `record` is called after the submit lock is.
// @unchecked: `entries` is touched only under `lock`, `sequence` only under `sequenceLock`.
final class QueueOrder: @unchecked Sendable {
    private struct Entry {
        weak var recorder: CommandRecorder?
        let value: UInt64
        let owner: ObjectIdentifier
        let sequence: UInt64
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private let sequenceLock = NSLock()
    private var sequence: UInt64 = 0

    /// The next submission's place in the queue; taken under the submit lock.
    func place() -> UInt64 {
        sequenceLock.lock()
        defer { sequenceLock.unlock() }
        sequence += 1
        return sequence
    }

    /// Records `recorder`'s submission of `value`, at `place`, for `owner`.
    func record(_ recorder: CommandRecorder, value: UInt64, place: UInt64, owner: WaitLedger) {
        lock.lock()
        let held = prune()
        entries.append(Entry(recorder: recorder, value: value, owner: ObjectIdentifier(owner), sequence: place))
        lock.unlock()
        withExtendedLifetime(held) {}
    }

    /// The submissions of other owners that went to the queue before
    /// `recorder`'s `value` and had not completed when asked.
    func ahead(of recorder: CommandRecorder, value: UInt64) -> [(recorder: CommandRecorder, value: UInt64)] {
        lock.lock()
        let mine = entries.first { $0.recorder === recorder && $0.value == value }
        let held = prune()
        let found: [(recorder: CommandRecorder, value: UInt64)] =
            mine.map { mine in
                entries.compactMap { entry in
                    guard entry.sequence < mine.sequence, entry.owner != mine.owner, let other = entry.recorder else {
                        return nil
                    }
                    return (other, entry.value)
                }
            } ?? []
        lock.unlock()
        withExtendedLifetime(held) {}
        return found
    }

    /// Drops completed submissions and those of recorders gone; returns the
    /// recorders it looked at, for the caller to let go of after `lock`.
    private func prune() -> [CommandRecorder] {
        var looked: [CommandRecorder] = []
        entries.removeAll { entry in
            guard let recorder = entry.recorder else { return true }
            looked.append(recorder)
            return recorder.hasCompleted(entry.value)
        }
        return looked
    }
}
