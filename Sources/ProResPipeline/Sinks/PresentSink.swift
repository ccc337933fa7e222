import ProResCore
import ProResGPU

/// `play`'s sink: each converted frame goes to the window from its device
/// buffer (nothing read back), and the player learns which frame is shown.
public final class PresentSink: ConvertedFrameSink {
    private let presenter: FramePresenter
    private let shown: (Int) -> Void

    /// `shown` is called with each frame's index once it was presented.
    public init(presenter: FramePresenter, shown: @escaping (Int) -> Void) {
        self.presenter = presenter
        self.shown = shown
    }

    public var readsPixels: Bool { false }

    public func consume(_ frame: ConvertedFrame) throws {
        try presenter.present(frame.device, width: frame.width, height: frame.height)
        shown(frame.index)
    }
}
