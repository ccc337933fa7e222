import Foundation
import ProResCore
import ProResPipeline

/// What a check keeps of each frame: its `FrameAnalysis` (BLAKE3-256 and
/// picture sums: from the GPU decoder's device passes, or measured from the
/// native planar bytes on every core) and, only against a v1 golden file,
/// its md5, which needs the frame's bytes on the host (hashed on every core
/// too, `OrderedFrameWork`).
///
/// Thread-safety: analyses arrive in frame order on one thread at a time,
/// md5s likewise; the two streams may interleave, hence the lock.
// @unchecked: every stored list is touched only under `lock`.
final class CheckSink: FrameAnalysisSink, FrameSink, @unchecked Sendable {
    private let lock = NSLock()
    private var measured: [FrameMeasurement] = []
    /// BLAKE3-256 of every frame delivered, measured or not.
    private var digests: [(index: Int, hash: String)] = []
    private var md5List: [(index: Int, hash: String)] = []
    private var md5Work: OrderedFrameWork<String>?
    /// The still grid of the frame the current hold started with.
    private var holdStart: StillGrid?

    /// `md5`: also hash each frame's bytes with md5 (a v1 golden file).
    init(md5: Bool) {
        guard md5 else { return }
        let hashing = FrameHashSink.Algorithm.md5
        md5Work = OrderedFrameWork(batch: hashing.batch, work: hashing.hex) { [weak self] index, _, _, hex in
            guard let self else { return }
            lock.lock()
            md5List.append((index, hex))
            lock.unlock()
        }
    }

    func consume(index: Int, pts: Int64?, analysis: FrameAnalysis) throws {
        // No hash, no frame: it is then missing from the file's frames and
        // the file fails, rather than passing with an empty hash.
        guard let hash = analysis.digest?.hex else { return }
        lock.lock()
        defer { lock.unlock() }
        digests.append((index, hash))
        // A frame of another size than the stream's (never seen from FFmpeg's
        // ProRes decoder) is hashed but not measured.
        guard let sums = analysis.sums else { return }
        let difference = stillDifference(analysis.stillGrid)
        measured.append(FrameMeasurement(index: index, digest: hash, sums: sums, stillDifference: difference))
    }

    /// As `freezedetect` does: a frame is compared with the first frame of
    /// the hold, and one that differs by more than the noise starts the next.
    private func stillDifference(_ grid: StillGrid?) -> Double? {
        guard let grid else { return nil }
        let difference = holdStart.flatMap { grid.difference(from: $0) }
        if (difference ?? .infinity) > FrameStatistics.frozenNoise { holdStart = grid }
        return difference
    }

    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        try consume(index: index, pts: pts, spans: spans, holder: nil)
    }

    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer], holder: PixelBuffer?) throws {
        try md5Work?.submit(index: index, pts: pts, spans: spans, holder: holder)
    }

    func finish() throws { try md5Work?.finish() }
    func abort() { md5Work?.cancel() }

    var measurements: [FrameMeasurement] {
        lock.lock()
        defer { lock.unlock() }
        return measured
    }

    /// Every delivered frame's BLAKE3-256 (hex), in frame order.
    var hashes: [(index: Int, hash: String)] {
        lock.lock()
        defer { lock.unlock() }
        return digests.sorted { $0.index < $1.index }
    }

    /// Every delivered frame's md5, in frame order (with `md5` only).
    var md5s: [(index: Int, hash: String)] {
        lock.lock()
        defer { lock.unlock() }
        return md5List.sorted { $0.index < $1.index }
    }
}
