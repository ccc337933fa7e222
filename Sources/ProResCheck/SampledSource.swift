import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// A `SampleSource` that yields only chosen frames of another, seeking past
/// the rest (exact seeks: ProRes is intra-only). Frame indices stay those of
/// the file, so reports and golden files name real frames.
///
/// Why a source rather than several runs: one `DecodeRun` keeps one decoder
/// and one pool, and its report covers the whole sample.
final class SampledSource: SampleSource {
    private let base: SampleSource
    private let wanted: [Int]
    private var cursor = 0
    /// The index `base` yields next without a seek.
    private var following = 0
    private var seekFailure: String?

    /// `frames` ascending.
    init(_ base: SampleSource, frames: [Int]) {
        self.base = base
        self.wanted = frames
    }

    var format: FormatDescription { base.format }

    /// A seek that could not reach a wanted frame ends the sample: the frames
    /// not delivered are reported missing, with this reason.
    var shortfall: String? { seekFailure ?? base.shortfall }

    func nextSample() throws -> CompressedSample? {
        guard cursor < wanted.count, seekFailure == nil else { return nil }
        let target = wanted[cursor]
        cursor += 1
        if target != following {
            do {
                try base.seek(toFrame: target)
            } catch {
                seekFailure = "cannot reach frame \(target): \(error)"
                return nil
            }
        }
        guard let sample = try base.nextSample() else { return nil }
        following = sample.index + 1
        return sample
    }

    func seek(toFrame index: Int) throws {
        cursor = wanted.firstIndex { $0 >= index } ?? wanted.count
    }
}
