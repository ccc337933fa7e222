import ProResCore

/// What a saved picture says about itself, beyond its pixels: the facts
/// `FrameSaver` and `check --previews` write into EXR headers and PNG chunks.
///
/// Why: FFmpeg's encoders write none of this, so without it readers take the
/// Display P3 pixels for Rec.709 / sRGB and non-square pixels for square.
public struct ImageFileTags: Sendable {
    /// Pixel width over height in lowest terms; nil for square pixels.
    public var sampleAspectRatio: (numerator: Int, denominator: Int)?
    public var frameRate: (numerator: Int, denominator: Int)?
    /// The time code of source frame 0.
    public var startTimecode: SMPTETimecode?
    /// Nits of RGB (1, 1, 1): the `--reference-white`, for PQ and HLG sources only
    /// (an SDR source's 1.0 is its display's white, not a luminance).
    public var whiteLuminance: Double?

    /// Colour only: Display P3, square pixels, no timing.
    public init() {}

    public init(format: FormatDescription, referenceWhite: Double) {
        sampleAspectRatio = format.sampleAspectRatio
        frameRate = format.frameRate
        startTimecode = format.timecode(atFrame: 0)
        let transfer = TransferFunction(format.colorTags.transfer.value)
        whiteLuminance = transfer == .pq || transfer == .hlg ? referenceWhite : nil
    }

    /// The EXR attributes for source frame `index`.
    public func exrAttributes(frameIndex index: Int) -> [EXRAttribute] {
        var attributes = [EXRAttribute.chromaticities(ColorPrimariesSpec.displayP3.chromaticities)]
        let aspect = sampleAspectRatio ?? (1, 1)
        attributes.append(.pixelAspectRatio(numerator: aspect.numerator, denominator: aspect.denominator))
        if let rate = frameRate {
            attributes.append(.framesPerSecond(numerator: rate.numerator, denominator: rate.denominator))
        }
        if let start = startTimecode { attributes.append(.timeCode(start.advanced(by: index))) }
        if let whiteLuminance { attributes.append(.whiteLuminance(nits: whiteLuminance)) }
        return attributes
    }

    /// The PNG chunks for a picture in Display P3 with the sRGB curve: cICP
    /// (P3-D65 primaries 12, sRGB transfer 13, RGB matrix 0, full range), an
    /// iCCP profile for readers without cICP, and pHYs for the pixel shape.
    public var pngChunks: [PNGChunk] {
        let aspect = sampleAspectRatio ?? (1, 1)
        return [
            .codingIndependentCodePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true),
            .embeddedProfile(name: "Display P3", profile: DisplayP3ICCProfile.bytes),
            .pixelAspect(numerator: aspect.numerator, denominator: aspect.denominator),
        ]
    }

    /// An EXR from `StillImageEncoder` with these tags set in its header;
    /// failures name `errorPath`.
    public func taggedEXR(_ encoded: [UInt8], frameIndex: Int, errorPath: String) throws -> [UInt8] {
        do { return try EXRHeaderEditor.setting(exrAttributes(frameIndex: frameIndex), in: encoded) } catch {
            throw ProResDecodeError.output(path: errorPath, reason: "cannot tag the EXR: \(error)")
        }
    }

    /// A PNG from `StillImageEncoder` with these tags' chunks after IHDR.
    public func taggedPNG(_ encoded: [UInt8], errorPath: String) throws -> [UInt8] {
        do { return try PNGChunkEditor.inserting(pngChunks, into: encoded) } catch {
            throw ProResDecodeError.output(path: errorPath, reason: "cannot tag the PNG: \(error)")
        }
    }
}
