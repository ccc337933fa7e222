extension ProResFrameHeader {
    /// Why the frame's pictures disagree with its header, or nil when every
    /// picture present adds up. RDD 36 packs a picture as its header, a
    /// slice index whose length the frame header's size and interlace mode
    /// fix, and the slices the index sizes, back to back, so those must
    /// account for the picture's size exactly. A header that claims
    /// interlacing over one progressive picture (or the reverse) reads the
    /// index with the wrong slice count and fails this; the decoders would
    /// otherwise decode slice data from inside the index, each its own way.
    /// Such a frame is failed on both decoders with these words. Pictures
    /// that run past the frame are left to the truncation checks, a missing
    /// second field to `secondFieldIsMissing`. `bytes` is the whole sample.
    public func pictureLayoutMismatch(in bytes: UnsafeRawBufferPointer) -> String? {
        let columns = macroblockColumns
        var cursor = pictureOffset
        for picture in 0..<pictures {
            let remaining = bytes.count - cursor
            guard remaining >= 8 else { return nil }
            func u8(_ offset: Int) -> Int { Int(bytes[cursor + offset]) }
            let headerBytes = u8(0) >> 3
            let dataSize = u8(1) << 24 | u8(2) << 16 | u8(3) << 8 | u8(4)
            let log2Width = u8(7) >> 4
            guard headerBytes >= 8, dataSize <= remaining, log2Width <= 3 else { return nil }
            let count =
                macroblockRowsPerPicture * ((columns >> log2Width) + (columns & ((1 << log2Width) - 1)).nonzeroBitCount)
            var used = headerBytes + 2 * count
            if used <= dataSize {
                for slice in 0..<count { used += u8(headerBytes + 2 * slice) << 8 | u8(headerBytes + 2 * slice + 1) }
            }
            guard used == dataSize else {
                let what = fieldOrder == .progressive ? "a progressive" : "an interlaced"
                return
                    "invalid picture: picture \(picture + 1) has \(dataSize) bytes, but its index and the \(count) slices "
                    + "of \(what) \(width)x\(height) frame take \(used) (the frame header disagrees with the data)"
            }
            cursor += dataSize
        }
        return nil
    }
}

extension ProResFrameHeader {
    /// A frame whose header promises an alpha channel while a slice of it
    /// carries no alpha bytes. FFmpeg then leaves that slice's alpha as the
    /// surface held it (stale, or zero) and the GPU decoder made it opaque;
    /// both now make it opaque (FFmpeg's path by concealing the frame into
    /// a pre-filled surface) and report the frame damaged. Only consistent
    /// pictures are looked at (`pictureLayoutMismatch` fails the others).
    public func alphaIsMissing(in bytes: UnsafeRawBufferPointer) -> Bool {
        guard alpha != .none, pictureLayoutMismatch(in: bytes) == nil else { return false }
        let columns = macroblockColumns
        var cursor = pictureOffset
        for _ in 0..<pictures {
            guard bytes.count - cursor >= 8 else { return false }
            func u8(_ offset: Int) -> Int { Int(bytes[offset]) }
            func u16(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }
            let headerBytes = u8(cursor) >> 3
            let dataSize = u16(cursor + 1) << 16 | u16(cursor + 3)
            let log2Width = u8(cursor + 7) >> 4
            // The pictures `pictureLayoutMismatch` left unjudged are not read either.
            guard headerBytes >= 8, dataSize <= bytes.count - cursor, log2Width <= 3 else { return false }
            let count =
                macroblockRowsPerPicture * ((columns >> log2Width) + (columns & ((1 << log2Width) - 1)).nonzeroBitCount)
            guard headerBytes + 2 * count <= dataSize else { return false }
            var slice = cursor + headerBytes + 2 * count
            for index in 0..<count {
                let size = u16(cursor + headerBytes + 2 * index)
                defer { slice += size }
                guard size >= 6, slice + 8 <= bytes.count else { continue }  // the decoders' own damage
                let sliceHeader = u8(slice) >> 3
                let y = u16(slice + 2)
                let u = u16(slice + 4)
                let v = sliceHeader > 7 ? u16(slice + 6) : size - y - u - sliceHeader
                if v >= 0, size - sliceHeader - y - u - v <= 0 { return true }
            }
            cursor += dataSize
        }
        return false
    }

    /// The damage a frame with `alphaIsMissing` is reported with.
    public static let missingAlpha =
        "the frame header promises an alpha channel some slices do not carry; their alpha was made opaque"
}
