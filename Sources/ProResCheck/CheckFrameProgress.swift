import Foundation
import ProResCore

/// Frames checked so far across the files being checked, and how many the
/// opened files hold: what `check`'s progress line shows inside a long file
/// (a 20,000-frame file is minutes of one file). Safe from any thread.
public final class CheckFrameProgress: @unchecked Sendable {
    // @unchecked: the counters are touched only under `lock`.
    private let lock = NSLock()
    private var done = 0
    private var expected = 0
    private var unknown = false
    /// Called after each frame with the counts (on the decoding thread).
    private let changed: @Sendable (_ done: Int, _ expected: Int?) -> Void

    public init(changed: @escaping @Sendable (_ done: Int, _ expected: Int?) -> Void) { self.changed = changed }

    /// A file opened: `frames` more to check (nil: it does not say).
    func opened(frames: Int?) {
        lock.withLock {
            if let frames { expected += frames } else { unknown = true }
        }
    }

    func frameChecked() {
        let counts = lock.withLock { () -> (Int, Int?) in
            done += 1
            return (done, unknown ? nil : expected)
        }
        changed(counts.0, counts.1)
    }
}
