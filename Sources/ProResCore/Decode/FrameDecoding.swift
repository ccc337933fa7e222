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
