import Foundation
import ProResCore
import ProResGPU

/// `play`'s sink: each converted frame goes to the window from its device
/// buffer (nothing read back), and the player learns which frame is shown.
// @unchecked: `pendingSize` is touched only under `lock`; the presenter is
// used by the one thread presenting.
public final class PresentSink: ConvertedFrameSink, @unchecked Sendable {
    private let presenter: FramePresenter
    private let shown: (Int) -> Void
    private let lock = NSLock()
    private var pendingSize: (width: Int, height: Int)?

    /// `shown` is called with each frame's index once it was presented.
    public init(presenter: FramePresenter, shown: @escaping (Int) -> Void) {
        self.presenter = presenter
        self.shown = shown
    }

    public var readsPixels: Bool { false }

    /// The window's new client size, applied before the next frame (from
    /// the thread watching the window, while another may be presenting).
    public func resize(to size: (width: Int, height: Int)) {
        lock.lock()
        pendingSize = size
        lock.unlock()
    }

    public func consume(_ frame: ConvertedFrame) throws {
        lock.lock()
        let size = pendingSize
        pendingSize = nil
        lock.unlock()
        if let size { presenter.resize(to: size) }
        try presenter.present(frame.device, width: frame.width, height: frame.height)
        shown(frame.index)
    }
}
