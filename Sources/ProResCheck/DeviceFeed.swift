import Foundation
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// What the threads checking files on one device share: the file opened
/// ahead and, when its files share a decode session (`lanes`), the turn to
/// feed it.
///
/// Why turns: with a shared session one thread's file is still on the GPU
/// and being measured while the other's feeds its samples in behind it, but
/// only one file feeds at a time, and they take the list in order, so that
/// each file's frames follow the last one's and its `finish` does not wait
/// for the next file's.
// @unchecked: `ahead` and `last` are touched only by the thread holding the turn (or
// the one thread of a device without lanes); the turn under `condition`.
final class DeviceFeed: @unchecked Sendable {
    let device: GPUDevice?
    /// The device's shared decode session; nil: a session per file.
    let lanes: GPUDecodeLanes?
    /// The next file, opened while the one before is checked.
    var ahead: (index: Int, source: Deferred<SampleSource>)?
    /// The last file given the decoder: the next file's clock starts once it
    /// has left it (`CheckCancellation.init(timeout:after:)`).
    var last: CheckCancellation?

    private let condition = NSCondition()
    private var taken = false

    init(device: GPUDevice?, sharesSession: Bool) {
        self.device = device
        lanes = sharesSession ? device.map(GPUDecodeLanes.init) : nil
    }

    /// Waits for the turn to feed (at once without lanes).
    func takeTurn() -> Turn {
        guard lanes != nil else { return Turn(nil) }
        condition.lock()
        while taken { condition.wait() }
        taken = true
        condition.unlock()
        return Turn(self)
    }

    fileprivate func passTurn() {
        condition.lock()
        taken = false
        condition.signal()
        condition.unlock()
    }

    /// One thread's turn: ended once, by whichever comes first (the file's
    /// last sample queued, or its check over).
    final class Turn: @unchecked Sendable {
        private let lock = NSLock()
        private var feed: DeviceFeed?

        fileprivate init(_ feed: DeviceFeed?) { self.feed = feed }

        func end() {
            lock.lock()
            let feed = self.feed
            self.feed = nil
            lock.unlock()
            feed?.passTurn()
        }
    }
}
