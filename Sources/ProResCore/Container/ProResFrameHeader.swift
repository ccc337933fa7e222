/// The ProRes frame header (SMPTE RDD 36 §5.1), parsed from untrusted bytes
/// with every read bounds-checked. It is the first code to see a sample, so it
/// rejects exactly what cannot be decoded and describes the rest.
public struct ProResFrameHeader: Equatable, Sendable {
    public enum Chroma: String, Sendable {
        case c422 = "4:2:2"
        case c444 = "4:4:4"
    }
    public enum FieldOrder: String, Sendable {
        case progressive
        case topFieldFirst = "top field first"
        case bottomFieldFirst = "bottom field first"
    }
    public enum Alpha: Int, Sendable {
        case none = 0
        case bits8 = 1
        case bits16 = 2
        public var bits: Int { self == .bits8 ? 8 : self == .bits16 ? 16 : 0 }
    }

    /// The largest picture we accept: beyond RDD 36's 8K use, small enough
    /// that a forged header cannot make us allocate absurd surfaces.
    public static let maximumDimension = 16384

    /// `frame_size` as the header states it (bytes, including this field).
    public let frameSize: Int
    public let headerSize: Int
    public let version: Int
    /// Four-character creator code, e.g. "apl0" (Apple) or "fmpg" (FFmpeg).
    public let creator: String
    public let width: Int
    public let height: Int
    public let chroma: Chroma
    public let fieldOrder: FieldOrder
    public let aspectRatioCode: Int
    public let frameRateCode: Int
    public let colorPrimaries: Int
    public let transferCharacteristic: Int
    public let matrixCoefficients: Int
    public let alpha: Alpha
    public let lumaQuantMatrix: [UInt8]?
    public let chromaQuantMatrix: [UInt8]?

    /// Parses the header at the start of one compressed frame.
    public init(_ bytes: UnsafeRawBufferPointer) throws {
        let total = bytes.count
        guard total >= 28 else {
            throw BitstreamError("frame of \(total) bytes is too short for a ProRes frame header")
        }
        func u8(_ offset: Int) -> Int { Int(bytes[offset]) }
        func u16(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }
        guard bytes[4] == 0x69, bytes[5] == 0x63, bytes[6] == 0x70, bytes[7] == 0x66 else {
            throw BitstreamError("missing the 'icpf' frame identifier")
        }
        frameSize = u16(0) << 16 | u16(2)
        let h = 8  // the frame header follows frame_size and 'icpf'
        headerSize = u16(h)
        guard headerSize >= 20 else {
            throw BitstreamError("frame header size \(headerSize) is below the 20 bytes it must hold")
        }
        guard headerSize <= total - h else {
            throw BitstreamError("frame header size \(headerSize) runs past the \(total)-byte frame")
        }
        version = u16(h + 2)
        guard version <= 1 else { throw BitstreamError("unsupported bitstream version \(version)") }
        creator = printableFourCC(Array(bytes[h + 4..<h + 8]))
        width = u16(h + 8)
        height = u16(h + 10)
        guard width > 0, height > 0 else { throw BitstreamError("picture size \(width)x\(height) is empty") }
        guard width <= Self.maximumDimension, height <= Self.maximumDimension else {
            throw BitstreamError(
                "picture size \(width)x\(height) exceeds the supported maximum \(Self.maximumDimension)x\(Self.maximumDimension)"
            )
        }
        // FFmpeg's av_image_check_size, which its decoder applies on open:
        // refused here, the user hears why instead of "Invalid argument".
        guard (width + 128) * (height + 128) < Int(Int32.max) / 8 else {
            throw BitstreamError(
                "picture size \(width)x\(height) is larger than FFmpeg decodes ((width + 128) × (height + 128) must be below 2^28)"
            )
        }
        let flags = u8(h + 12)
        // FFmpeg decodes every chroma_format other than 3 as 4:2:2; so do we.
        chroma = flags >> 6 == 3 ? .c444 : .c422
        switch (flags >> 2) & 3 {
        case 0: fieldOrder = .progressive
        case 1: fieldOrder = .topFieldFirst
        case 2: fieldOrder = .bottomFieldFirst
        default: throw BitstreamError("reserved interlace mode 3")
        }
        aspectRatioCode = u8(h + 13) >> 4
        frameRateCode = u8(h + 13) & 15
        colorPrimaries = u8(h + 14)
        transferCharacteristic = u8(h + 15)
        matrixCoefficients = u8(h + 16)
        guard let alpha = Alpha(rawValue: u8(h + 17) & 15) else {
            throw BitstreamError("invalid alpha channel type \(u8(h + 17) & 15)")
        }
        self.alpha = alpha
        let quantFlags = u8(h + 19)
        var cursor = h + 20
        func matrix() throws -> [UInt8] {
            guard cursor + 64 <= total else {
                throw BitstreamError("quantisation matrix runs past the end of the frame")
            }
            defer { cursor += 64 }
            return Array(bytes[cursor..<cursor + 64])
        }
        lumaQuantMatrix = quantFlags & 2 != 0 ? try matrix() : nil
        chromaQuantMatrix = quantFlags & 1 != 0 ? try matrix() : nil
    }

    /// The frame rate the header states (RDD 36 frame_rate_code), if any.
    public var frameRate: (numerator: Int, denominator: Int)? {
        let rates: [Int: (Int, Int)] = [
            1: (24000, 1001), 2: (24, 1), 3: (25, 1), 4: (30000, 1001), 5: (30, 1),
            6: (50, 1), 7: (60000, 1001), 8: (60, 1), 9: (100, 1), 10: (120000, 1001), 11: (120, 1),
        ]
        return rates[frameRateCode]
    }

    /// Where the first picture header starts, relative to the frame start.
    public var pictureOffset: Int { 8 + headerSize }

    var macroblockColumns: Int { (width + 15) >> 4 }
    /// Macroblock rows of one picture: the frame, or one field.
    var macroblockRowsPerPicture: Int { fieldOrder == .progressive ? (height + 15) >> 4 : (height + 31) >> 5 }
    var pictures: Int { fieldOrder == .progressive ? 1 : 2 }

    /// The fewest bytes a decodable frame of this size takes: the first
    /// picture's 8-byte header and a 2-byte index entry for each of its
    /// slices, at the widest slices (8 macroblocks). FFmpeg and the GPU
    /// decoder refuse anything shorter; refusing it before decoding keeps a
    /// forged 8192x8192 header on a 12 KB frame from costing a 256 MB surface.
    public var minimumFrameBytes: Int {
        pictureOffset + 8 + 2 * macroblockRowsPerPicture * ((macroblockColumns + 7) / 8)
    }

    /// The most bytes a frame of this size can use: each picture's header
    /// (at most 31 bytes) and, at one macroblock per slice, a 2-byte index
    /// entry and at most 65535 bytes (a 16-bit size) for every slice. A
    /// `frame_size` above it is a lie, not a reason to allocate.
    public var maximumFrameBytes: Int {
        pictureOffset + pictures * (31 + macroblockRowsPerPicture * macroblockColumns * (2 + 65535))
    }
}
