/// The window's first client size: the frame at 1:1 when it fits the
/// screen, else the largest size of the frame's aspect that fits.
public enum WindowSize {
    public static func initial(frame: (width: Int, height: Int), screen: (width: Int, height: Int)) -> (
        width: Int, height: Int
    ) {
        guard frame.width > screen.width || frame.height > screen.height else { return frame }
        let scale = min(Double(screen.width) / Double(frame.width), Double(screen.height) / Double(frame.height))
        return (
            max(1, Int((Double(frame.width) * scale).rounded(.down))),
            max(1, Int((Double(frame.height) * scale).rounded(.down)))
        )
    }
}
