/// Anything that yields compressed ProRes samples in order (AVAssetReader's
/// track output): a container through libavformat, or a raw elementary stream.
public protocol SampleSource: AnyObject {
    var format: FormatDescription { get }
    /// The next sample, or nil at the end of the input.
    func nextSample() throws -> CompressedSample?
    /// Positions the source so that the next sample is frame `index` exactly.
    func seek(toFrame index: Int) throws
    /// Frames the input ended short of the count it announced, if it did.
    var shortfall: String? { get }
    /// Starts reading the next `frames` samples now, in the background,
    /// for a consumer that is not ready yet (the GPU decoder's device is
    /// still being made). A source that cannot does nothing.
    func prefetch(frames: Int)
    /// From now on keeps up to `samples` reads in flight ahead of the
    /// consumer, where the source reads ahead at all (others ignore it).
    func readAhead(samples: Int)
}

extension SampleSource {
    public func prefetch(frames: Int) {}
    public func readAhead(samples: Int) {}
}
