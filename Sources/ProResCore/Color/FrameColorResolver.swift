/// Chooses each frame's conversion from that frame's own header tags (an
/// edited file may switch colour spaces mid-stream), falling back to the
/// stream's resolved tags, then to the documented size-based fallback. Every
/// fallback is counted and described, never silent.
public final class FrameColorResolver {
    public let stream: ColorTags
    public let referenceWhite: Double
    private let height: Int
    private var cache: [[Int]: (spec: ConversionSpec, parameters: ConversionParameters, substituted: Bool)] = [:]
    /// What had to be substituted, once per distinct reason.
    public private(set) var fallbacks: [String] = []
    /// Frames whose conversion used any substitution.
    public private(set) var framesWithFallback = 0

    public init(stream: ColorTags, height: Int, referenceWhite: Double) {
        self.stream = stream
        self.height = height
        self.referenceWhite = referenceWhite
    }

    /// What `fallbacks` says when neither the frame nor the stream tags `kind`:
    /// the same fact the stream's own fallback reports before decoding, so a
    /// caller that printed that one can leave this one out.
    public static func untaggedNote(_ kind: ColorCode.Kind, using fallback: ColorCode) -> String {
        "\(kind) untagged; using \(fallback.displayName) (documented fallback)"
    }

    /// The frame's conversion, and the description it was made from (which
    /// effects reading the source's Y'CbCr need).
    public func resolve(frameCodes: (primaries: Int, transfer: Int, matrix: Int)?) -> (
        spec: ConversionSpec, parameters: ConversionParameters
    ) {
        let codes = frameCodes.map { [$0.primaries, $0.transfer, $0.matrix] } ?? [2, 2, 2]
        if let cached = cache[codes] {
            if cached.substituted { framesWithFallback += 1 }
            return (cached.spec, cached.parameters)
        }
        var substituted = false
        func note(_ message: String) {
            substituted = true
            if !fallbacks.contains(message) { fallbacks.append(message) }
        }
        let fallback = ColorTags(bitstream: nil, container: (2, 2, 2, nil), height: height)
        func pick(
            _ kind: ColorCode.Kind, _ code: Int, stream: Tagged<ColorCode>, fallback: ColorCode,
            supported: (Int) -> Bool
        ) -> Int {
            let fromFrame = ColorCode(kind, code)
            if fromFrame.isSpecified && supported(code) { return code }
            if fromFrame.isSpecified { note("frame \(kind) \(fromFrame.displayName) is not supported for conversion") }
            if stream.value.isSpecified && supported(stream.value.code) && stream.source != .fallback {
                return stream.value.code
            }
            if stream.value.isSpecified && !supported(stream.value.code) {
                note(
                    "\(kind) \(stream.value.displayName) is not supported for conversion; using \(fallback.displayName)"
                )
            } else {
                note(Self.untaggedNote(kind, using: fallback))
            }
            return fallback.code
        }
        let primaries = pick(.primaries, codes[0], stream: stream.primaries, fallback: fallback.primaries.value) {
            ColorPrimariesSpec(code: $0) != nil
        }
        let transfer = pick(.transfer, codes[1], stream: stream.transfer, fallback: fallback.transfer.value) {
            TransferFunction(code: $0) != nil
        }
        let matrix = pick(.matrix, codes[2], stream: stream.matrix, fallback: fallback.matrix.value) {
            YCbCrToRGB(matrixCode: $0) != nil
        }
        // Every fallback value is supported by construction.
        let spec = try! ConversionSpec(
            matrixCode: matrix, transferCode: transfer, primariesCode: primaries,
            range: stream.range.value, referenceWhite: referenceWhite)
        let parameters = ConversionParameters(spec)
        cache[codes] = (spec, parameters, substituted)
        if substituted { framesWithFallback += 1 }
        return (spec, parameters)
    }
}
