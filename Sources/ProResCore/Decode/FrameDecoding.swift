/// What a decode run needs from a decode session, CPU or GPU: samples in,
/// frames out in order through the session's output handler.
public protocol FrameDecoding: AnyObject {
    /// Queues a sample; blocks while the session is full (back-pressure).
    func decode(_ sample: CompressedSample) throws
    /// Waits until every frame went through the output handler.
    func finish() throws
    /// Stops at once; queued samples are dropped.
    func cancel()
    var poolStatistics: PixelBufferPool.Statistics { get }
}

/// Receives each decoded frame, in order, on the session's output thread.
public typealias FrameOutputHandler = (DecodedFrame) throws -> Void

/// Called on the session's output thread after a frame's handler when no
/// decoded frame is queued behind it: a consumer that holds frames' work to
/// group it with the next ones' (the `--vulkan` converter) hands it on then.
public typealias OutputIdleHandler = () throws -> Void
