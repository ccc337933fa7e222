import ProResCore

/// A `SampleSource` whose untagged colour is what the user said to assume
/// (`--assume-primaries`, `--assume-transfer`, `--assume-matrix`): the
/// conversion uses it and the outputs carry it, where otherwise the
/// conversion guesses and the outputs say "unspecified".
public final class AssumedColourSource: SampleSource {
    private let base: SampleSource
    public let format: FormatDescription

    public init(_ base: SampleSource, primaries: Int?, transfer: Int?, matrix: Int?) {
        self.base = base
        format = base.format.assuming(primaries: primaries, transfer: transfer, matrix: matrix)
    }

    public var shortfall: String? { base.shortfall }
    public func nextSample() throws -> CompressedSample? { try base.nextSample() }
    public func seek(toFrame index: Int) throws { try base.seek(toFrame: index) }
    public func prefetch(frames: Int) { base.prefetch(frames: frames) }
    public func readAhead(samples: Int) { base.readAhead(samples: samples) }
}
