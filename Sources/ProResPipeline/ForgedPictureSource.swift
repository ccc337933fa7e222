import ProResCore

/// A source whose first frame has been read already: that frame first, then
/// the rest of `base`. Why: the GPU decoder sizes its buffers for the picture
/// the first frame header claims; when that claim is forged (the frame's
/// bytes cannot hold such a picture) and the device cannot hold it either,
/// the run rejects the frames one by one, as FFmpeg's session does, instead
/// of failing the whole file (`DecodeRun`, one verdict from both decoders).
final class ForgedPictureSource: SampleSource {
    private let base: SampleSource
    private var first: CompressedSample?

    private init(_ base: SampleSource, first: CompressedSample) {
        self.base = base
        self.first = first
    }

    /// The source with its next sample read ahead, if that sample's header
    /// claims a picture larger than its bytes can hold; else nil (the sample
    /// is then consumed: the run is failing anyway).
    static func reading(_ base: SampleSource, start: Int) throws -> ForgedPictureSource? {
        if start > 0 { try base.seek(toFrame: start) }
        guard let sample = try base.nextSample() else { return nil }
        guard let header = try? ProResFrameHeader(sample.bytes), sample.bytes.count < header.minimumFrameBytes else {
            return nil
        }
        return ForgedPictureSource(base, first: sample)
    }

    var format: FormatDescription { base.format }
    var shortfall: String? { base.shortfall }

    func nextSample() throws -> CompressedSample? {
        if let first {
            self.first = nil
            return first
        }
        return try base.nextSample()
    }

    /// A seek to the frame read ahead keeps it.
    func seek(toFrame index: Int) throws {
        if first?.index == index { return }
        first = nil
        try base.seek(toFrame: index)
    }

    func prefetch(frames: Int) { base.prefetch(frames: frames) }
    func readAhead(samples: Int) { base.readAhead(samples: samples) }
}
