import ProResCore

/// One PNG chunk: a four-letter type and its data. In the file it is
/// `length(uint32 BE) type data CRC-32(type + data)`.
public struct PNGChunk: Equatable, Sendable {
    public let type: String
    public let data: [UInt8]

    public init(type: String, data: [UInt8]) {
        precondition(type.utf8.count == 4, "PNG chunk types are four letters")
        self.type = type
        self.data = data
    }

    var encoded: [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        out.append(contentsOf: typed)
        out.appendBigEndian(CRC32.checksum(typed))
        return out
    }

    /// `cICP` (PNG 3rd edition): H.273 code points the picture is coded
    /// with. Decoders that know it prefer it to iCCP.
    public static func codingIndependentCodePoints(primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)
        -> PNGChunk
    {
        PNGChunk(type: "cICP", data: [primaries, transfer, matrix, fullRange ? 1 : 0])
    }

    /// `iCCP`: a profile name (1-79 Latin-1 bytes), 0, compression method 0,
    /// then the ICC profile as a zlib stream.
    public static func embeddedProfile(name: String, profile: [UInt8]) -> PNGChunk {
        precondition((1...79).contains(name.utf8.count), "iCCP names are 1-79 bytes")
        var data: [UInt8] = []
        data.appendNulTerminated(name)
        data.append(0)
        data.append(contentsOf: ZlibStoredStream.wrap(profile))
        return PNGChunk(type: "iCCP", data: data)
    }

    /// `pHYs` with unit 0 (aspect ratio only) for pixels `numerator`:`denominator`
    /// wide:high. Pixels per unit is the inverse of a pixel's size, so the
    /// X count is the *denominator*: a 4:3 pixel is 3 per unit across, 4 down.
    public static func pixelAspect(numerator: Int, denominator: Int) -> PNGChunk {
        var data: [UInt8] = []
        data.appendBigEndian(UInt32(denominator))
        data.appendBigEndian(UInt32(numerator))
        data.append(0)
        return PNGChunk(type: "pHYs", data: data)
    }
}
