/// ProRes entropy decoding (SMPTE RDD 36 §7.1) of one component of a slice,
/// bit-exact with FFmpeg's software decoder down to its bit reader: each
/// codeword starts from the next 32 bits, escape codes longer than 31 bits
/// are errors, the read position stops 8 bits past the component's end
/// (reads there see the frame's following bytes, then its zero padding),
/// and values are stored as 16-bit integers, wrapping. So a damaged slice
/// fails, or decodes to the same garbage, as it does there and on the GPU.
///
/// The reader loads 64 bits at the current position for each step (at least
/// 57 of them valid): a run, its level and the level's sign usually come out
/// of one load, which keeps the serial chain of a coefficient short.
struct BitReader {
    /// The component's first byte; the frame's bytes and padding follow it.
    let base: UnsafePointer<UInt8>
    /// Bits read so far, at most `limit`.
    var position = 0
    /// The component's size in bits.
    let sizeBits: Int
    /// Where FFmpeg's reader stops: 8 bits past the end.
    let limit: Int

    init(_ base: UnsafePointer<UInt8>, bytes: Int) {
        self.base = base
        sizeBits = bytes << 3
        limit = sizeBits + 8
    }

    /// 64 bits from `position`, first bit in the top bit; the low
    /// `position & 7` bits are zeros, not data.
    @inline(__always) func window() -> UInt64 {
        let raw = UnsafeRawPointer(base + (position &>> 3)).loadUnaligned(as: UInt64.self)
        return UInt64(bigEndian: raw) &<< UInt64(truncatingIfNeeded: position & 7)
    }

    @inline(__always) var validBits: Int { 64 &- (position & 7) }

    @inline(__always) mutating func skip(_ n: Int) { position = min(position &+ n, limit) }

    /// `n` bits (1...25) as FFmpeg's get_bits reads them.
    @inline(__always) mutating func bits(_ n: Int) -> Int {
        let value = Int(truncatingIfNeeded: window() &>> UInt64(truncatingIfNeeded: 64 &- n))
        skip(n)
        return value
    }
}

/// An adaptive Rice / exp-Golomb codebook (RDD 36 Table 9), with the
/// constants a codeword's decoding needs worked out beforehand and packed
/// into one word: a codeword's decoding loads it whole, so that both of its
/// cases are worked out from registers and one is picked without a branch
/// (which grain makes unpredictable).
struct Codebook {
    /// Bits 0-7 switch bits, 8-15 Rice order, 16-23 exp-Golomb order -
    /// switch bits (signed), 32-63 what an exp-Golomb code's bits are
    /// offset by to give its value (signed).
    let packed: UInt64

    init(_ code: Int) {
        let switchBits = code & 3
        let riceOrder = code >> 5
        let expOrder = (code >> 2) & 7
        let expOffset = ((switchBits + 1) << riceOrder) - (1 << expOrder)
        packed =
            UInt64(switchBits) | UInt64(riceOrder) << 8 | UInt64(UInt8(bitPattern: Int8(expOrder - switchBits))) << 16
            | UInt64(UInt32(bitPattern: Int32(expOffset))) << 32
    }

    @inline(__always) var switchBits: Int { Int(packed & 0xFF) }
    @inline(__always) var riceOrder: Int { Int((packed &>> 8) & 0xFF) }
    @inline(__always) var expMinusSwitch: Int { Int(Int8(truncatingIfNeeded: packed &>> 16)) }
    @inline(__always) var expOffset: Int { Int(Int32(truncatingIfNeeded: packed &>> 32)) }

    static let firstDC = Codebook(0xB8)
    static let dc = [0x04, 0x28, 0x28, 0x4D, 0x4D, 0x70, 0x70].map(Codebook.init)
    /// The run codebook after each previous run (0...15, 15 for every larger one).
    static let runCodes = [
        0x06, 0x06, 0x05, 0x05, 0x04, 0x29, 0x29, 0x29, 0x29, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x4C,
    ]
    /// The level codebook after each previous level (0...9, 9 for every larger one).
    static let levelCodes = [0x04, 0x0A, 0x05, 0x06, 0x04, 0x28, 0x28, 0x28, 0x28, 0x4C]

    /// The codeword at the top of `window`: its length and value; length 0
    /// for an escape longer than 31 bits (an all-zero window counts 64
    /// leading zeros, longer still). A Rice code's top bits are its
    /// terminating 1, worth 1 << rice order, and its suffix.
    @inline(__always) func decode(_ window: UInt64) -> (bits: Int, value: Int) {
        // Wrapping arithmetic: no value here comes near overflowing, and
        // the checks would sit on the serial path of every codeword.
        // Both cases worked out, one kept by a mask: all ones where the
        // prefix is longer than the switch bits (exp-Golomb).
        // The low bit set: a count without the all-zero case's extra
        // instructions; 63 or 64 leading zeros are both escapes too long.
        let q = (window | 1).leadingZeroBitCount
        let riceOrder = self.riceOrder
        let expGolomb = (switchBits &- q) &>> 63
        let riceBits = q &+ riceOrder &+ 1
        let riceOffset = (q &- 1) &<< riceOrder
        let bits = riceBits ^ ((riceBits ^ (2 &* q &+ expMinusSwitch)) & expGolomb)
        let offset = riceOffset ^ ((riceOffset ^ expOffset) & expGolomb)
        if bits > 31 { return (0, 0) }
        let top = Int(truncatingIfNeeded: window &>> UInt64(truncatingIfNeeded: 64 &- bits))
        return (bits, top &+ offset)
    }
}

/// The tables one component's decoding reads, as unsafe pointers: the
/// loops below must not pay for bounds checks or reference counting.
struct EntropyTables {
    let dc: UnsafeMutablePointer<Codebook>
    /// Per scan position: where the coefficient goes in a block stored
    /// transposed (natural column × 8 + natural row), progressive then interlaced.
    let scans: UnsafeMutablePointer<UInt8>
    /// The run and level codebooks, each distinct one once, and which of
    /// them follows each previous value (run: 0...15, level: 0...9, the
    /// last standing for every larger one).
    let runBooks: UnsafeMutablePointer<Codebook>
    let levelBooks: UnsafeMutablePointer<Codebook>
    let runBookAfter: UnsafeMutablePointer<Int>
    let levelBookAfter: UnsafeMutablePointer<Int>
    /// `ShortCodes` tables of every distinct run and level codebook.
    let shortRuns: UnsafeMutablePointer<UInt32>
    let shortLevels: UnsafeMutablePointer<UInt32>

    static let shared = EntropyTables()

    private init() {
        func copy<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
            let pointer = UnsafeMutablePointer<T>.allocate(capacity: values.count)
            pointer.initialize(from: values, count: values.count)
            return pointer
        }
        dc = copy(Codebook.dc)
        scans = copy((ProResScanOrder.progressive + ProResScanOrder.interlaced).map { UInt8(($0 & 7) << 3 | $0 >> 3) })
        let runCodes = Codebook.runCodes
        let levelCodes = Codebook.levelCodes
        let distinctRuns = runCodes.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        let distinctLevels = levelCodes.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        let runAfter = runCodes.map { code in distinctRuns.firstIndex(of: code) ?? 0 }
        let levelAfter = levelCodes.map { code in distinctLevels.firstIndex(of: code) ?? 0 }
        runBooks = copy(distinctRuns.map(Codebook.init))
        levelBooks = copy(distinctLevels.map(Codebook.init))
        runBookAfter = copy(runAfter)
        levelBookAfter = copy(levelAfter)
        shortRuns = copy(distinctRuns.flatMap { ShortCodes.runs(Codebook($0), next: runAfter) })
        shortLevels = copy(distinctLevels.flatMap { ShortCodes.levels(Codebook($0), next: levelAfter) })
    }
}

/// Lookup tables for the codewords of at most `bits` bits, indexed by a
/// codebook's place among the distinct ones times 2^bits plus the next
/// `bits` bits of the stream: what the codebook's arithmetic decoding gives
/// for them, worked out once, so that a typical run and level take two
/// loads instead of two dozen instructions each. 0 where the codeword is
/// longer (the arithmetic decoding then takes it). 10 bits (48 KiB in
/// all) measures best: at 8, 4444 XQ's larger levels mostly miss; at 11,
/// 422 HQ slows as the tables outgrow the caches.
enum ShortCodes {
    static let bits = 10
    static let size = 1 << bits

    /// A run entry: bits 0-4 the codeword's length, 5-15 the run + 1,
    /// 16-31 the next run codebook's table offset.
    static func runs(_ book: Codebook, next: [Int]) -> [UInt32] {
        (0..<size).map { pattern in
            let (length, value) = book.decode(UInt64(pattern) << UInt64(64 - bits))
            guard length > 0, length <= bits else { return 0 }
            return UInt32(length) | UInt32(value + 1) << 5 | UInt32(next[min(value, next.count - 1)] * size) << 16
        }
    }

    /// A level entry, its sign bit included: bits 0-4 the length with the
    /// sign, 5-9 the length without, 10-12 the next level codebook's place,
    /// 13-31 the signed coefficient.
    static func levels(_ book: Codebook, next: [Int]) -> [UInt32] {
        (0..<size).map { pattern in
            let window = UInt64(pattern) << UInt64(64 - bits)
            let (length, value) = book.decode(window)
            guard length > 0, length + 1 <= bits else { return 0 }
            let negative = (window << UInt64(length)) >> 63 != 0
            let level = value + 1
            return UInt32(length + 1) | UInt32(length) << 5 | UInt32(next[min(level, next.count - 1)]) << 10
                | UInt32(bitPattern: Int32(negative ? -level : level)) << 13
        }
    }
}

extension EntropyTables: @unchecked Sendable {}  // written once, at initialisation, read only after

/// The scan orders of RDD 36 (§7.3): the natural (raster) index of each scan position.
enum ProResScanOrder {
    static let progressive: [Int] = [
        0, 1, 8, 9, 2, 3, 10, 11, 16, 17, 24, 25, 18, 19, 26, 27,
        4, 5, 12, 20, 13, 6, 7, 14, 21, 28, 29, 22, 15, 23, 30, 31,
        32, 33, 40, 48, 41, 34, 35, 42, 49, 56, 57, 50, 43, 36, 37, 44,
        51, 58, 59, 52, 45, 38, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]
    static let interlaced: [Int] = [
        0, 8, 1, 9, 16, 24, 17, 25, 2, 10, 3, 11, 18, 26, 19, 27,
        32, 40, 33, 34, 41, 48, 56, 49, 42, 35, 43, 50, 57, 58, 51, 59,
        4, 12, 5, 6, 13, 20, 28, 21, 14, 7, 15, 22, 29, 36, 44, 37,
        30, 23, 31, 38, 45, 52, 60, 53, 46, 39, 47, 54, 61, 62, 55, 63,
    ]
}

enum EntropyDecoder {
    /// Decodes one component's DC and AC coefficients into `blocks`
    /// (1 << log2Blocks blocks of 64, zeroed by the caller), each block
    /// transposed (natural column × 8 + natural row). False where FFmpeg
    /// fails the slice.
    static func decodeCoefficients(
        _ reader: inout BitReader, into blocks: UnsafeMutablePointer<Int16>, log2Blocks: Int,
        interlaced: Bool
    ) -> Bool {
        let context = ACContext(log2Blocks: log2Blocks, interlaced: interlaced)
        guard decodeDC(&reader, into: blocks, log2Blocks: log2Blocks) else { return false }
        var stream = ACStream(reader, blocks: blocks, context: context)
        while stream.step(context) == .more {}
        reader = stream.reader
        return stream.outcome == .done
    }

    /// Two components of the same size in blocks, each as
    /// `decodeCoefficients` decodes it, their AC codewords taken in turns:
    /// a codeword's chain of dependent steps (load, count the leading zeros,
    /// shift, pick the next codebook) is long and serial within a stream,
    /// and two independent chains fill each other's waits. Each stream's
    /// reads and results are exactly those it has alone.
    static func decodeCoefficients(
        _ first: inout BitReader, into firstBlocks: UnsafeMutablePointer<Int16>,
        _ second: inout BitReader, into secondBlocks: UnsafeMutablePointer<Int16>,
        log2Blocks: Int, interlaced: Bool
    ) -> (Bool, Bool) {
        let context = ACContext(log2Blocks: log2Blocks, interlaced: interlaced)
        let firstDC = decodeDC(&first, into: firstBlocks, log2Blocks: log2Blocks)
        let secondDC = decodeDC(&second, into: secondBlocks, log2Blocks: log2Blocks)
        var a = ACStream(first, blocks: firstBlocks, context: context)
        var b = ACStream(second, blocks: secondBlocks, context: context)
        if !firstDC { a.outcome = .failed }
        if !secondDC { b.outcome = .failed }
        if a.outcome == .more && b.outcome == .more {
            while true {
                let stepA = a.step(context)
                let stepB = b.step(context)
                if stepA != .more || stepB != .more { break }
            }
        }
        while a.outcome == .more { _ = a.step(context) }
        while b.outcome == .more { _ = b.step(context) }
        first = a.reader
        second = b.reader
        return (a.outcome == .done, b.outcome == .done)
    }

    /// The DC coefficients of every block (RDD 36 §7.1.1).
    private static func decodeDC(_ reader: inout BitReader, into blocks: UnsafeMutablePointer<Int16>, log2Blocks: Int)
        -> Bool
    {
        let tables = EntropyTables.shared
        var (bits, code) = Codebook.firstDC.decode(reader.window())
        if bits == 0 { return false }
        reader.skip(bits)
        var dc = Int16(truncatingIfNeeded: (code >> 1) ^ -(code & 1))
        blocks[0] = dc
        code = 5
        var sign = 0
        for block in 1..<(1 << log2Blocks) {
            (bits, code) = tables.dc[min(code, 6)].decode(reader.window())
            if bits == 0 { return false }
            reader.skip(bits)
            sign = code != 0 ? sign ^ -(code & 1) : 0
            dc = dc &+ Int16(truncatingIfNeeded: (((code + 1) >> 1) ^ sign) - sign)
            blocks[block << 6] = dc
        }
        return true
    }
}

/// What the AC decoding of every component of one size shares.
struct ACContext {
    let log2Blocks: Int
    let maxPosition: Int
    let blockMask: Int
    let tables: EntropyTables
    /// The scan order's block offsets, progressive or interlaced.
    let scan: UnsafeMutablePointer<UInt8>

    init(log2Blocks: Int, interlaced: Bool) {
        tables = EntropyTables.shared
        self.log2Blocks = log2Blocks
        maxPosition = 64 << log2Blocks
        blockMask = (1 << log2Blocks) - 1
        scan = tables.scans + (interlaced ? 64 : 0)
    }
}

/// One component's AC coefficients (RDD 36 §7.1.2), decoded a run and
/// its level at a time.
struct ACStream {
    enum Outcome { case more, done, failed }

    var reader: BitReader
    let blocks: UnsafeMutablePointer<Int16>
    var outcome = Outcome.more
    /// The next run's and level's codebooks, as offsets into the
    /// `ShortCodes` tables (the codebook's place × `ShortCodes.size`):
    /// those after a run of 4 and a level of 2.
    private var runBook = 0, levelBook = 0
    /// FFmpeg tests for the end of the data on its 32-bit cache as the
    /// last level's sign left it: shifted, zeros after the bits still
    /// valid. The length of that level (-1 before the first).
    private var lastLevelBits = -1
    /// Scan position × blocks + block of the last coefficient.
    private var position: Int

    init(_ reader: BitReader, blocks: UnsafeMutablePointer<Int16>, context: ACContext) {
        self.reader = reader
        self.blocks = blocks
        position = context.blockMask
        runBook = context.tables.runBookAfter[4] &* ShortCodes.size
        levelBook = context.tables.levelBookAfter[2] &* ShortCodes.size
    }

    /// Decodes the next run and level; `outcome` says whether more follow.
    @inline(__always)
    mutating func step(_ context: ACContext) -> Outcome {
        let bitsLeft = reader.sizeBits &- reader.position
        let window = reader.window()
        // At least 32 bits left: the end-of-data test cannot stop here, and
        // a short run and level (2 × ShortCodes.bits at most) end inside the data.
        if bitsLeft >= 32 {
            let shift = UInt64(64 &- ShortCodes.bits)
            let run = context.tables.shortRuns[runBook &+ Int(truncatingIfNeeded: window &>> shift)]
            let runBits = run & 31
            let level = context.tables.shortLevels[
                levelBook &+ Int(truncatingIfNeeded: (window &<< UInt64(runBits)) &>> shift)]
            if runBits != 0 && level & 31 != 0 {
                position = position &+ Int(truncatingIfNeeded: (run &>> 5) & 0x7FF)
                if position >= context.maxPosition { return finish(.failed) }
                reader.position = reader.position &+ Int(truncatingIfNeeded: runBits &+ level & 31)
                runBook = Int(truncatingIfNeeded: run &>> 16)
                levelBook = Int(truncatingIfNeeded: (level &>> 10) & 7) &<< ShortCodes.bits
                lastLevelBits = Int(truncatingIfNeeded: (level &>> 5) & 31)
                store(Int16(truncatingIfNeeded: Int32(bitPattern: level) &>> 13), context)
                return .more
            }
        } else {
            if bitsLeft <= 0 { return finish(.done) }
            let n = min(bitsLeft, 31 &- lastLevelBits)
            if n == 0 || window &>> UInt64(truncatingIfNeeded: 64 &- n) == 0 { return finish(.done) }
        }
        return longStep(window, context)
    }

    /// A step with a codeword longer than the short tables hold, or near
    /// the end of the data: the codebooks' arithmetic decoding.
    private mutating func longStep(_ window: UInt64, _ context: ACContext) -> Outcome {
        let tables = context.tables
        let (runBits, runValue) = tables.runBooks[runBook / ShortCodes.size].decode(window)
        if runBits == 0 { return finish(.failed) }
        runBook = tables.runBookAfter[min(runValue, 15)] &* ShortCodes.size
        position = position &+ runValue &+ 1
        if position >= context.maxPosition { return finish(.failed) }
        // The level and its sign usually lie in the same 64 bits: one
        // load for both codewords where no bit read is beyond the valid
        // ones and the position cannot reach the limit; otherwise the run
        // is skipped first, as FFmpeg does, and the level read after it.
        let levelBook = tables.levelBooks[self.levelBook / ShortCodes.size]
        var shifted = window &<< UInt64(truncatingIfNeeded: runBits)
        var (levelBits, levelValue) = levelBook.decode(shifted)
        var total = runBits &+ levelBits &+ 1
        if levelBits == 0 || total > reader.validBits || reader.position &+ total >= reader.limit {
            reader.skip(runBits)
            shifted = reader.window()
            (levelBits, levelValue) = levelBook.decode(shifted)
            if levelBits == 0 { return finish(.failed) }
            total = levelBits &+ 1
        }
        reader.skip(total)
        let negative = 0 &- Int(truncatingIfNeeded: (shifted &<< UInt64(truncatingIfNeeded: levelBits)) &>> 63)
        let level = levelValue &+ 1
        self.levelBook = tables.levelBookAfter[min(level, 9)] &* ShortCodes.size
        lastLevelBits = levelBits
        store(Int16(truncatingIfNeeded: (level ^ negative) &- negative), context)
        return .more
    }

    @inline(__always) private func store(_ value: Int16, _ context: ACContext) {
        let block = position & context.blockMask
        blocks[block &<< 6 | Int(context.scan[position &>> context.log2Blocks])] = value
    }

    @inline(__always) private mutating func finish(_ end: Outcome) -> Outcome {
        outcome = end
        return end
    }
}

extension EntropyDecoder {
    /// Scanned alpha (RDD 36 §7.1.2) read as FFmpeg's unpack_alpha reads
    /// it, written as samples at `depth` bits into `count` entries of `out`.
    static func decodeAlpha(
        _ reader: inout BitReader, into out: UnsafeMutablePointer<UInt16>, count: Int, streamBits: Int, depth: Int
    ) {
        let mask = (1 << streamBits) - 1
        let shortBits = streamBits == 16 ? 7 : 4
        @inline(__always) func sample(_ alpha: Int) -> UInt16 {
            let value = streamBits == 16 ? alpha >> (16 - depth) : (alpha << (depth - 8)) | (alpha >> (16 - depth))
            return UInt16(truncatingIfNeeded: value)
        }
        var alpha = mask
        var index = 0
        repeat {
            repeat {
                var value: Int
                if reader.bits(1) != 0 {
                    value = reader.bits(streamBits)
                } else {
                    value = reader.bits(shortBits)
                    let negative = value & 1 != 0
                    value = (value + 2) >> 1
                    if negative { value = -value }
                }
                alpha = (alpha + value) & mask
                out[index] = sample(alpha)
                index += 1
                if index >= count { return }
            } while reader.sizeBits - reader.position > 0 && reader.bits(1) != 0
            var run = reader.bits(4)
            if run == 0 { run = reader.bits(11) }
            run = min(run, count - index)
            let value = sample(alpha)
            for i in index..<index + run { out[i] = value }
            index += run
        } while index < count
    }
}
