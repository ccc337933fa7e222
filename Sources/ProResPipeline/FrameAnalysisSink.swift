import ProResCore

/// Takes each frame's measurements (`DecodeRun.Options.analysis`), in
/// frame order, on a worker thread.
public protocol FrameAnalysisSink: AnyObject {
    func consume(index: Int, pts: Int64?, analysis: FrameAnalysis) throws
    /// As `FrameSink`'s: make outputs final, or leave nothing behind. A
    /// sink that is both kinds is finished once.
    func finish() throws
    func abort()
}
