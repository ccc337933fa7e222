import GPUKit
import ProResCore

/// One frame's picture headers and slice index (SMPTE RDD 36 §5.2–5.3),
/// parsed on the CPU from untrusted bytes into the tables the GPU decoder
/// reads. Every size and offset is checked here, with FFmpeg's rules, so the
/// shaders never see a position outside the frame; a frame FFmpeg would
/// refuse is refused, a slice it would skip is marked invalid (concealed).
///
/// Frames are parsed independently (in parallel), then written into the
/// batch's tables at their place (`write`).
///
/// The table layouts are declared in `DecoderKernels` (Slice, Frame).
package struct SliceTable {
    package static let sliceWords = DecoderKernels.Slice.layout.words
    static let frameWords = DecoderKernels.Frame.layout.words

    package struct Geometry: Equatable {
        let width: Int
        let height: Int
        let chroma: ProResFrameHeader.Chroma

        package init(width: Int, height: Int, chroma: ProResFrameHeader.Chroma) {
            self.width = width
            self.height = height
            self.chroma = chroma
        }
    }

    let header: ProResFrameHeader
    /// Slice entries with frame-relative byte offsets and coefficient indices.
    package private(set) var slices: [UInt32] = []
    package private(set) var coefficientCount = 0
    private(set) var invalidSlices = 0
    /// An interlaced frame that ends with its first field (concealed).
    private(set) var missingSecondField = false
    /// Alpha promised, but a slice carries none (its alpha comes out opaque).
    private(set) var missingAlpha = false
    private(set) var maxLog2SliceWidth = 0

    package var sliceCount: Int { slices.count / Self.sliceWords }

    /// A macroblock's room in the coefficient buffer: 4 Y' blocks, 2 or 4
    /// blocks each of Cb and Cr, and 16x16 alpha samples when there is alpha.
    package static func coefficientsPerMacroblock(_ chroma: ProResFrameHeader.Chroma, alpha: Bool) -> Int {
        64 * (4 + 2 * (chroma == .c444 ? 4 : 2) + (alpha ? 4 : 0))
    }

    /// Parses one frame; throws when it cannot be decoded at all.
    package init(frame bytes: UnsafeRawBufferPointer, geometry: Geometry) throws {
        do { header = try ProResFrameHeader(bytes) } catch { throw BitstreamError("invalid frame header: \(error)") }
        guard header.width == geometry.width, header.height == geometry.height, header.chroma == geometry.chroma else {
            throw BitstreamError(
                "invalid picture: \(header.width)x\(header.height) \(header.chroma.rawValue) differs from the stream's "
                    + "\(geometry.width)x\(geometry.height) \(geometry.chroma.rawValue); the GPU decoder needs one geometry a session"
            )
        }
        // FFmpeg's path fails such a frame before decoding, in these words.
        if let why = header.pictureLayoutMismatch(in: bytes) { throw BitstreamError(why) }
        missingAlpha = header.alphaIsMissing(in: bytes)
        let interlaced = header.fieldOrder != .progressive
        let regionPerMb = Self.coefficientsPerMacroblock(geometry.chroma, alpha: header.alpha != .none)
        slices.reserveCapacity(Self.sliceWords * ((header.width + 127) >> 7) * ((header.height + 15) >> 4))

        var cursor = 8 + header.headerSize
        var remaining = bytes.count - cursor
        var firstFieldLog2Width = 0
        for field in 0..<(interlaced ? 2 : 1) {
            if field == 1 && remaining <= 0 {
                // The frame ends with its first field: the second field's
                // slices are concealed as FFmpeg's path now conceals them
                // (`ProResFrameHeader.secondFieldIsMissing`).
                appendConcealedField(
                    parity: (header.fieldOrder == .bottomFieldFirst ? 1 : 0) ^ 1, log2Width: firstFieldLog2Width,
                    regionPerMb: regionPerMb)
                missingSecondField = true
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
            let mbWidth = (header.width + 15) >> 4
            let mbHeight = interlaced ? (header.height + 31) >> 5 : (header.height + 15) >> 4
            let count = mbHeight * ((mbWidth >> log2Width) + (mbWidth & ((1 << log2Width) - 1)).nonzeroBitCount)
            guard headerSize + count * 2 <= remaining else {
                throw BitstreamError("invalid picture: slice index of \(count) slices runs past the end of the frame")
            }
            maxLog2SliceWidth = max(maxLog2SliceWidth, log2Width)
            if field == 0 { firstFieldLog2Width = log2Width }
            // RDD 36: the first field is the top one unless the frame says bottom first.
            let parity = (header.fieldOrder == .bottomFieldFirst ? 1 : 0) ^ field
            let heads = Self.sliceHeads(
                bytes, at: at + headerSize + count * 2, index: at + headerSize, count: count,
                end: at + remaining)
            var data = headerSize + count * 2
            var mbX = 0
            var mbY = 0
            var log2Mbs = log2Width
            for slice in 0..<count {
                let size = u8(headerSize + 2 * slice) << 8 | u8(headerSize + 2 * slice + 1)
                while mbWidth - mbX < 1 << log2Mbs { log2Mbs -= 1 }
                guard size >= 6 else {
                    throw BitstreamError("invalid picture: slice \(slice) of \(size) bytes is too small")
                }
                guard data + size <= remaining else {
                    throw BitstreamError("invalid picture: slice \(slice) runs past the end of the frame")
                }
                let s = data
                // The slice's first 8 bytes, big-endian: byte k is head >> (56 - 8k).
                let head = heads[slice]
                func h8(_ k: Int) -> Int { Int(truncatingIfNeeded: head >> UInt64(56 - 8 * k)) & 0xFF }
                let sliceHeader = h8(0) >> 3
                let rawScale = min(max(h8(1), 1), 224)
                let qscale = rawScale > 128 ? (rawScale - 96) << 2 : rawScale
                let ySize = h8(2) << 8 | h8(3)
                let uSize = h8(4) << 8 | h8(5)
                var vSize = size - ySize - uSize - sliceHeader
                if sliceHeader > 7 { vSize = size >= 8 ? h8(6) << 8 | h8(7) : -1 }
                let aSize = size - ySize - uSize - vSize - sliceHeader
                let valid = vSize >= 0 && sliceHeader + ySize + uSize + vSize <= size
                if !valid { invalidSlices += 1 }
                typealias Entry = DecoderKernels.Slice
                // Each field in place in a register-sized entry, then appended:
                // an array literal here would allocate per slice.
                var entry = SIMD8<UInt32>(repeating: 0)
                func set(_ field: BitField, _ value: Int) { entry[field.word] |= field.encode(value) }
                set(Entry.bitstreamOffset, at + s)
                set(Entry.headerSize, sliceHeader)
                set(Entry.qscale, qscale)
                set(Entry.log2Macroblocks, log2Mbs)
                set(Entry.valid, valid ? 1 : 0)
                if valid {
                    set(Entry.lumaSize, ySize)
                    set(Entry.cbSize, uSize)
                    set(Entry.crSize, vSize)
                    set(Entry.alphaSize, aSize)
                }
                set(Entry.column, mbX)
                set(Entry.row, mbY)
                set(Entry.fieldParity, parity)
                set(Entry.interlaced, interlaced ? 1 : 0)
                set(Entry.firstCoefficient, coefficientCount)
                for word in 0..<Self.sliceWords { slices.append(entry[word]) }
                coefficientCount += regionPerMb << log2Mbs
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

    /// The first 8 bytes of each of a field's `count` slices (big-endian in
    /// a word, zeros past `end`), the slices laid end to end from `first`
    /// by the sizes in the index at `index`. Why a pass of its own: each
    /// slice's header is a cache miss (a 4K frame's 4,050 slices lie ~1 KB
    /// apart in memory the reader wrote around the caches), and the main
    /// loop's work between them let the core wait for one miss at a time;
    /// here the loads do not depend on one another, so many are in flight
    /// at once. Sizes past the frame are the main loop's to refuse.
    private static func sliceHeads(_ bytes: UnsafeRawBufferPointer, at first: Int, index: Int, count: Int, end: Int)
        -> [UInt64]
    {
        [UInt64](unsafeUninitializedCapacity: count) { heads, initialized in
            var s = first
            for slice in 0..<count {
                if s + 8 <= end {
                    heads[slice] = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: s, as: UInt64.self))
                } else {
                    var head: UInt64 = 0
                    for k in 0..<8 where s + k < end { head |= UInt64(bytes[s + k]) << UInt64(56 - 8 * k) }
                    heads[slice] = head
                }
                s += Int(bytes[index + 2 * slice]) << 8 | Int(bytes[index + 2 * slice + 1])
            }
            initialized = count
        }
    }

    /// One field of slices the host rejected (valid 0): the transform writes
    /// concealment (video black, neutral chroma, opaque) and reads nothing.
    private mutating func appendConcealedField(parity: Int, log2Width: Int, regionPerMb: Int) {
        typealias Entry = DecoderKernels.Slice
        let mbWidth = (header.width + 15) >> 4
        let mbHeight = (header.height + 31) >> 5
        for mbY in 0..<mbHeight {
            var mbX = 0
            var log2Mbs = log2Width
            while mbX < mbWidth {
                while mbWidth - mbX < 1 << log2Mbs { log2Mbs -= 1 }
                var entry = SIMD8<UInt32>(repeating: 0)
                func set(_ field: BitField, _ value: Int) { entry[field.word] |= field.encode(value) }
                set(Entry.bitstreamOffset, 8)
                set(Entry.log2Macroblocks, log2Mbs)
                set(Entry.column, mbX)
                set(Entry.row, mbY)
                set(Entry.fieldParity, parity)
                set(Entry.interlaced, 1)
                set(Entry.firstCoefficient, coefficientCount)
                for word in 0..<Self.sliceWords { slices.append(entry[word]) }
                coefficientCount += regionPerMb << log2Mbs
                invalidSlices += 1
                mbX += 1 << log2Mbs
            }
        }
    }

    /// Writes this frame's slice entries at `slicesOut` and its frame entry
    /// at `frameOut`, placed in the batch.
    func write(
        slices slicesOut: UnsafeMutablePointer<UInt32>, frame frameOut: UnsafeMutablePointer<UInt32>, frameIndex: Int,
        firstSlice: Int, bitstreamOffset: Int, firstCoefficient: Int, surfaceOffset: Int
    ) {
        typealias Entry = DecoderKernels.Slice
        typealias FrameEntry = DecoderKernels.Frame
        // Offsets are whole words holding frame-relative values: the batch's
        // place is added. Store-only: mapped staging memory may be
        // write-combined, where a read-modify-write would be very slow.
        let offsetWord = Entry.bitstreamOffset.word
        let coefficientWord = Entry.firstCoefficient.word
        let frameWord = Entry.frame.word
        precondition(Entry.bitstreamOffset.bits == 32 && Entry.firstCoefficient.bits == 32)
        let frameBits = Entry.frame.encode(frameIndex)
        slices.withUnsafeBufferPointer { words in
            for i in 0..<sliceCount {
                let entry = slicesOut + i * Self.sliceWords
                let word = words.baseAddress! + i * Self.sliceWords
                for w in 0..<Self.sliceWords {
                    var value = word[w]
                    if w == offsetWord { value += UInt32(bitstreamOffset) }
                    if w == coefficientWord { value += UInt32(firstCoefficient) }
                    if w == frameWord { value |= frameBits }
                    entry[w] = value
                }
            }
        }
        var frame = [UInt32](repeating: 0, count: Self.frameWords)
        frame[FrameEntry.firstSlice.word] |= FrameEntry.firstSlice.encode(firstSlice)
        frame[FrameEntry.sliceCount.word] |= FrameEntry.sliceCount.encode(sliceCount)
        frame[FrameEntry.surfaceOffset.word] |= FrameEntry.surfaceOffset.encode(surfaceOffset)
        frame[FrameEntry.alphaBits.word] |= FrameEntry.alphaBits.encode(header.alpha.rawValue)
        let luma = header.lumaQuantMatrix ?? [UInt8](repeating: 4, count: 64)
        let chroma = header.chromaQuantMatrix ?? luma
        for i in 0..<FrameEntry.lumaMatrix.count {
            frame[FrameEntry.lumaMatrix.word + i] = Self.word(luma, i)
            frame[FrameEntry.chromaMatrix.word + i] = Self.word(chroma, i)
        }
        for w in 0..<Self.frameWords { frameOut[w] = frame[w] }
    }

    private static func word(_ bytes: [UInt8], _ i: Int) -> UInt32 {
        UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8 | UInt32(bytes[4 * i + 2]) << 16 | UInt32(bytes[4 * i + 3])
            << 24
    }
}
