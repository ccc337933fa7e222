/// One frame's picture headers and slice index (SMPTE RDD 36 §5.2–5.3),
/// parsed on the CPU from untrusted bytes into the tables the GPU decoder
/// reads. Every size and offset is checked here, with FFmpeg's rules, so the
/// shaders never see a position outside the frame; a frame FFmpeg would
/// refuse is refused, a slice it would skip is marked invalid (concealed).
///
/// GPU slice entry, 8 words:
///   0 byte offset of the slice in the bitstream buffer
///   1 header size | qscale << 8 | log2(macroblocks) << 20 | valid << 24
///   2 Y' size | Cb size << 16
///   3 Cr size | alpha size << 16
///   4 first macroblock column | macroblock row (within its field) << 16
///   5 frame in batch | field parity << 8 | interlaced << 9
///   6 first coefficient (int32 index): Y', Cb, Cr, alpha regions follow
///   7 unused
/// GPU frame entry, `frameWords` words:
///   0 first slice entry, 1 slice count, 2 surface offset (8-byte units),
///   3 alpha bits code (0 none, 1 8-bit, 2 16-bit), 4–19 luma quantisation
///   matrix bytes, 20–35 chroma matrix bytes.
struct SliceTable {
    static let sliceWords = 8
    static let frameWords = 40

    struct Geometry: Equatable {
        let width: Int
        let height: Int
        let chroma: ProResFrameHeader.Chroma
    }

    /// What one frame added to the batch's tables.
    struct FrameEntry {
        let header: ProResFrameHeader
        let sliceCount: Int
        let invalidSlices: Int
    }

    private(set) var slices: [UInt32] = []
    private(set) var frames: [UInt32] = []
    private(set) var coefficientCount = 0
    private(set) var maxSlicesPerFrame = 0
    private(set) var maxLog2SliceWidth = 0

    var sliceCount: Int { slices.count / Self.sliceWords }
    var frameCount: Int { frames.count / Self.frameWords }

    /// Adds one frame, whose bytes will sit at `bitstreamOffset` in the
    /// bitstream buffer and whose surface at `surfaceOffset` (8-byte units).
    /// Throws (adding nothing) when the frame cannot be decoded at all.
    mutating func add(frame bytes: UnsafeRawBufferPointer, geometry: Geometry, bitstreamOffset: Int,
                      surfaceOffset: Int) throws -> FrameEntry {
        let header: ProResFrameHeader
        do { header = try ProResFrameHeader(bytes) } catch { throw BitstreamError("invalid frame header: \(error)") }
        guard header.width == geometry.width, header.height == geometry.height, header.chroma == geometry.chroma else {
            throw BitstreamError("invalid picture: \(header.width)x\(header.height) \(header.chroma.rawValue) differs from the stream's "
                                 + "\(geometry.width)x\(geometry.height) \(geometry.chroma.rawValue); the GPU decoder needs one geometry a session")
        }
        var newSlices: [UInt32] = []
        var coefficients = coefficientCount
        var invalid = 0
        var maxLog2 = 0
        let frameIndex = UInt32(frameCount)
        let interlaced = header.fieldOrder != .progressive
        let chromaBlocksPerMb = geometry.chroma == .c444 ? 4 : 2
        let regionPerMb = 64 * (4 + 2 * chromaBlocksPerMb + (header.alpha != .none ? 4 : 0))

        var cursor = 8 + header.headerSize
        var remaining = bytes.count - cursor
        for field in 0..<(interlaced ? 2 : 1) {
            if field == 1 && remaining <= 0 { break }
            func u8(_ at: Int) -> Int { Int(bytes[cursor + at]) }
            guard remaining >= 8 else { throw BitstreamError("invalid picture: the picture header runs past the end of the frame") }
            let headerSize = u8(0) >> 3
            guard headerSize >= 8, headerSize <= remaining else { throw BitstreamError("invalid picture: picture header size \(headerSize) is invalid") }
            let dataSize = u8(1) << 24 | u8(2) << 16 | u8(3) << 8 | u8(4)
            guard dataSize <= remaining else { throw BitstreamError("invalid picture: picture data size \(dataSize) runs past the end of the frame") }
            let log2Width = u8(7) >> 4, log2Height = u8(7) & 15
            guard log2Width <= 3, log2Height == 0 else {
                throw BitstreamError("invalid picture: unsupported slice size \(1 << log2Width)x\(1 << min(log2Height, 15)) macroblocks")
            }
            let mbWidth = (header.width + 15) >> 4
            let mbHeight = interlaced ? (header.height + 31) >> 5 : (header.height + 15) >> 4
            let count = mbHeight * ((mbWidth >> log2Width) + (mbWidth & ((1 << log2Width) - 1)).nonzeroBitCount)
            guard headerSize + count * 2 <= remaining else { throw BitstreamError("invalid picture: slice index of \(count) slices runs past the end of the frame") }
            maxLog2 = max(maxLog2, log2Width)
            // RDD 36: the first field is the top one unless the frame says bottom first.
            let parity = (header.fieldOrder == .bottomFieldFirst ? 1 : 0) ^ field
            var data = headerSize + count * 2
            var mbX = 0, mbY = 0, log2Mbs = log2Width
            for slice in 0..<count {
                let size = u8(headerSize + 2 * slice) << 8 | u8(headerSize + 2 * slice + 1)
                while mbWidth - mbX < 1 << log2Mbs { log2Mbs -= 1 }
                guard size >= 6 else { throw BitstreamError("invalid picture: slice \(slice) of \(size) bytes is too small") }
                guard data + size <= remaining else { throw BitstreamError("invalid picture: slice \(slice) runs past the end of the frame") }
                let s = data
                let sliceHeader = u8(s) >> 3
                let rawScale = min(max(u8(s + 1), 1), 224)
                let qscale = rawScale > 128 ? (rawScale - 96) << 2 : rawScale
                let ySize = u8(s + 2) << 8 | u8(s + 3)
                let uSize = u8(s + 4) << 8 | u8(s + 5)
                var vSize = size - ySize - uSize - sliceHeader
                if sliceHeader > 7 { vSize = size >= 8 ? u8(s + 6) << 8 | u8(s + 7) : -1 }
                let aSize = size - ySize - uSize - vSize - sliceHeader
                let valid = vSize >= 0 && sliceHeader + ySize + uSize + vSize <= size
                if !valid { invalid += 1 }
                newSlices += [
                    UInt32(bitstreamOffset + cursor + s),
                    UInt32(sliceHeader) | UInt32(qscale) << 8 | UInt32(log2Mbs) << 20 | (valid ? 1 << 24 : 0),
                    valid ? UInt32(ySize) | UInt32(uSize) << 16 : 0,
                    valid ? UInt32(vSize) | UInt32(aSize) << 16 : 0,
                    UInt32(mbX) | UInt32(mbY) << 16,
                    frameIndex | UInt32(parity) << 8 | (interlaced ? 1 << 9 : 0),
                    UInt32(coefficients),
                    0,
                ]
                coefficients += regionPerMb << log2Mbs
                data += size
                mbX += 1 << log2Mbs
                if mbX == mbWidth {
                    log2Mbs = log2Width
                    mbX = 0
                    mbY += 1
                }
            }
            cursor += dataSize
            remaining -= dataSize
        }

        let first = UInt32(sliceCount)
        let added = newSlices.count / Self.sliceWords
        slices += newSlices
        coefficientCount = coefficients
        maxSlicesPerFrame = max(maxSlicesPerFrame, added)
        maxLog2SliceWidth = max(maxLog2SliceWidth, maxLog2)
        var entry = [UInt32](repeating: 0, count: Self.frameWords)
        entry[0] = first
        entry[1] = UInt32(added)
        entry[2] = UInt32(surfaceOffset)
        entry[3] = UInt32(header.alpha.rawValue)
        let luma = header.lumaQuantMatrix ?? [UInt8](repeating: 4, count: 64)
        let chroma = header.chromaQuantMatrix ?? luma
        for i in 0..<16 {
            entry[4 + i] = Self.word(luma, i)
            entry[20 + i] = Self.word(chroma, i)
        }
        frames += entry
        return FrameEntry(header: header, sliceCount: added, invalidSlices: invalid)
    }

    private static func word(_ bytes: [UInt8], _ i: Int) -> UInt32 {
        UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8 | UInt32(bytes[4 * i + 2]) << 16 | UInt32(bytes[4 * i + 3]) << 24
    }
}
