import ProResCore

/// One slice as the CPU decoder reads it: where its components lie in the
/// frame, which macroblocks it covers and at which scale.
struct CPUSlice {
    /// Byte offset of the luma data (past the slice header) in the frame.
    var dataOffset: Int
    var lumaSize: Int
    var cbSize: Int
    var crSize: Int
    var alphaSize: Int
    var qscale: Int
    var mbX: Int
    /// Macroblock row within its picture (field).
    var mbY: Int
    var log2Mbs: Int
    /// The field's row parity (0 for progressive frames).
    var parity: Int
    /// False where the slice header's sizes do not add up: concealed, never read.
    var valid: Bool
}

/// A frame's picture headers and slice index (SMPTE RDD 36 §5.2–5.3),
/// parsed from untrusted bytes with FFmpeg's rules, as the GPU decoder's
/// slice table does: a frame FFmpeg refuses throws, a slice it skips is
/// marked invalid and concealed. Storage is reused from frame to frame.
struct PictureLayout {
    private(set) var slices: [CPUSlice] = []
    private(set) var invalidSlices = 0
    /// An interlaced frame that ends with its first field (concealed).
    private(set) var missingSecondField = false
    private(set) var interlaced = false
    /// The parity of the field a missing second field would have filled.
    private(set) var missingFieldParity = 0
    private(set) var mbWidth = 0
    /// Macroblock rows of each picture.
    private(set) var mbHeight = 0

    mutating func parse(_ bytes: UnsafeRawBufferPointer, header: ProResFrameHeader) throws {
        slices.removeAll(keepingCapacity: true)
        invalidSlices = 0
        missingSecondField = false
        interlaced = header.fieldOrder != .progressive
        mbWidth = (header.width + 15) >> 4
        mbHeight = interlaced ? (header.height + 31) >> 5 : (header.height + 15) >> 4
        if let why = header.pictureLayoutMismatch(in: bytes) { throw BitstreamError(why) }

        var cursor = 8 + header.headerSize
        var remaining = bytes.count - cursor
        var firstFieldLog2Width = 0
        for field in 0..<(interlaced ? 2 : 1) {
            // RDD 36: the first field is the top one unless the frame says bottom first.
            let parity = interlaced ? (header.fieldOrder == .bottomFieldFirst ? 1 : 0) ^ field : 0
            if field == 1 && remaining <= 0 {
                missingSecondField = true
                missingFieldParity = parity
                appendConcealedField(parity: parity, log2Width: firstFieldLog2Width)
                break
            }
            let at = cursor
            func u8(_ offset: Int) -> Int { Int(bytes[at + offset]) }
            guard remaining >= 8 else {
                throw BitstreamError("invalid picture: the picture header runs past the end of the frame")
            }
            let headerSize = u8(0) >> 3
            guard headerSize >= 8, headerSize <= remaining else {
                throw BitstreamError("invalid picture: picture header size \(headerSize) is invalid")
            }
            let dataSize = u8(1) << 24 | u8(2) << 16 | u8(3) << 8 | u8(4)
            guard dataSize <= remaining else {
                throw BitstreamError("invalid picture: picture data size \(dataSize) runs past the end of the frame")
            }
            let log2Width = u8(7) >> 4
            let log2Height = u8(7) & 15
            guard log2Width <= 3, log2Height == 0 else {
                throw BitstreamError(
                    "invalid picture: unsupported slice size \(1 << log2Width)x\(1 << min(log2Height, 15)) macroblocks")
            }
            let count = mbHeight * ((mbWidth >> log2Width) + (mbWidth & ((1 << log2Width) - 1)).nonzeroBitCount)
            guard headerSize + count * 2 <= remaining else {
                throw BitstreamError("invalid picture: slice index of \(count) slices runs past the end of the frame")
            }
            if field == 0 { firstFieldLog2Width = log2Width }
            var data = at + headerSize + count * 2
            let end = at + remaining
            var mbX = 0
            var mbY = 0
            var log2Mbs = log2Width
            for slice in 0..<count {
                let size = u8(headerSize + 2 * slice) << 8 | u8(headerSize + 2 * slice + 1)
                while mbWidth - mbX < 1 << log2Mbs { log2Mbs -= 1 }
                guard size >= 6 else {
                    throw BitstreamError("invalid picture: slice \(slice) of \(size) bytes is too small")
                }
                guard data + size <= end else {
                    throw BitstreamError("invalid picture: slice \(slice) runs past the end of the frame")
                }
                func h8(_ k: Int) -> Int { Int(bytes[data + k]) }
                let sliceHeader = h8(0) >> 3
                let rawScale = min(max(h8(1), 1), 224)
                let ySize = h8(2) << 8 | h8(3)
                let uSize = h8(4) << 8 | h8(5)
                var vSize = size - ySize - uSize - sliceHeader
                if sliceHeader > 7 { vSize = size >= 8 ? h8(6) << 8 | h8(7) : -1 }
                let valid = vSize >= 0 && sliceHeader + ySize + uSize + vSize <= size
                if !valid { invalidSlices += 1 }
                slices.append(
                    CPUSlice(
                        dataOffset: data + sliceHeader, lumaSize: valid ? ySize : 0, cbSize: valid ? uSize : 0,
                        crSize: valid ? vSize : 0, alphaSize: valid ? size - ySize - uSize - vSize - sliceHeader : 0,
                        qscale: rawScale > 128 ? (rawScale - 96) << 2 : rawScale,
                        mbX: mbX, mbY: mbY, log2Mbs: log2Mbs, parity: parity, valid: valid))
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
    }

    /// A missing second field's slices: invalid, so concealed.
    private mutating func appendConcealedField(parity: Int, log2Width: Int) {
        for mbY in 0..<mbHeight {
            var mbX = 0
            var log2Mbs = log2Width
            while mbX < mbWidth {
                while mbWidth - mbX < 1 << log2Mbs { log2Mbs -= 1 }
                slices.append(
                    CPUSlice(
                        dataOffset: 0, lumaSize: 0, cbSize: 0, crSize: 0, alphaSize: 0, qscale: 1,
                        mbX: mbX, mbY: mbY, log2Mbs: log2Mbs, parity: parity, valid: false))
                invalidSlices += 1
                mbX += 1 << log2Mbs
            }
        }
    }
}
