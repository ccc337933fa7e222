import Foundation
import ProResCore

/// A `SampleSource` that reads each sample's frame header on its way to the
/// decoder and keeps the frames' descriptions as runs (`DescriptionRuns`):
/// how `check` and `info` see a description change mid-clip, where
/// `FormatDescription` holds the first frame's alone. A sample whose header
/// does not parse is left to the decoder to report.
public final class DescribedSource: SampleSource, @unchecked Sendable {
    // @unchecked: `collected` is touched only under `lock` (the run reads
    // samples on its thread; the caller reads the runs after it).
    private let base: SampleSource
    private let lock = NSLock()
    private var collected = DescriptionRuns()

    public init(_ base: SampleSource) { self.base = base }

    public var format: FormatDescription { base.format }
    public var shortfall: String? { base.shortfall }
    public var runs: DescriptionRuns { lock.withLock { collected } }

    public func nextSample() throws -> CompressedSample? {
        guard let sample = try base.nextSample() else { return nil }
        if let header = try? ProResFrameHeader(sample.bytes) {
            let description = FrameDescription(header: header, stream: base.format.colorTags)
            lock.withLock { collected.add(index: sample.index, description) }
        }
        return sample
    }

    public func seek(toFrame index: Int) throws { try base.seek(toFrame: index) }
    public func prefetch(frames: Int) { base.prefetch(frames: frames) }
    public func readAhead(samples: Int) { base.readAhead(samples: samples) }
}

extension DescribedSource {
    /// The descriptions of `samples` frames spread over `source` (its first
    /// ones when its length is unknown), read without decoding: how `info`
    /// looks for a change. A frame that cannot be reached ends the look.
    public static func sample(_ source: SampleSource, samples: Int = 64) -> DescriptionRuns {
        let frames =
            source.format.frameCount.map { FrameSampling.indices(count: $0, samples: samples) } ?? Array(0..<samples)
        let described = DescribedSource(SampledSource(source, frames: frames))
        while (try? described.nextSample()) ?? nil != nil {}
        return described.runs
    }

    /// Where each change lies among the frames seen, in words: "at frame 5"
    /// when the frame before was seen too, else "between frames 3 and 9".
    public static func changeNotes(_ runs: DescriptionRuns) -> [String] {
        zip(runs.runs, runs.runs.dropFirst()).map { earlier, run in
            let place =
                run.first == earlier.last + 1
                ? "at frame \(run.first)" : "between frames \(earlier.last) and \(run.first)"
            return "the description changes \(place): "
                + run.description.differences(from: earlier.description).joined(separator: ", ")
        }
    }
}
