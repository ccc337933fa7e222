import Foundation
import ProResCore
import ProResFFmpeg
import ProResPipeline

extension DecoderBenchmark {
    /// The first `count` samples of the clip decoded by FFmpeg and measured
    /// on the CPU, by frame number: what `gpu-check` must find on the
    /// device. Loops of a sample repeating themselves prove nothing when a
    /// pass writes nothing (the buffer then repeats whatever it held); a
    /// digest made apart from the GPU does.
    func referenceAnalyses(_ request: AnalysisRequest, count: Int) throws -> [Int: FrameAnalysis] {
        let collected = ReferenceCollector()
        let configuration = FFmpegDecodeSession.Configuration(threads: options.threads)
        let session = try DecodeSessionFactory.ffmpeg(format: format, configuration: configuration) {
            [format] frame in
            guard frame.status.isOK, let surface = frame.pixelBuffer else { return }
            collected.add(
                frame.index,
                FrameAnalysis(
                    planar: surface.visibleSpans(), format: format.nativeFormat,
                    width: format.width, height: format.height, request: request))
        }
        for i in 0..<min(count, clipFrames) { try session.decode(sample(i)) }
        try session.finish()
        return collected.analyses
    }
}

private final class ReferenceCollector: @unchecked Sendable {  // @unchecked: `analyses` under `lock`
    private let lock = NSLock()
    private var stored: [Int: FrameAnalysis] = [:]

    func add(_ index: Int, _ analysis: FrameAnalysis) {
        lock.lock()
        stored[index] = analysis
        lock.unlock()
    }

    var analyses: [Int: FrameAnalysis] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
