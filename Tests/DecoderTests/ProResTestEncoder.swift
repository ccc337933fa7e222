@testable import TestSupport

// A ProRes entropy encoder and frame writer for the kernel tests: pure
// Swift, written from SMPTE RDD 36 §7.1 (and the codebook tables of
// FFmpeg's proresdec2.c / proresenc_kostya.c), so that the entropy pass can
// be fed random coefficients and checked against them. Nothing here comes
// from the code under test.

/// MSB-first bit writer.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var pending = 0

    var bitCount: Int { bytes.count * 8 + pending }

    /// The low `count` bits of `value` (count <= 32).
    mutating func write(_ value: UInt64, bits count: Int) {
        precondition(count >= 0 && count <= 32)
        guard count > 0 else { return }
        accumulator = accumulator << UInt64(count) | (value & ((1 << UInt64(count)) - 1))
        pending += count
        while pending >= 8 {
            pending -= 8
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(pending)))
        }
        accumulator &= (1 << UInt64(pending)) - 1
    }

    mutating func zeros(_ count: Int) {
        var left = count
        while left > 0 {
            let n = min(left, 32)
            write(0, bits: n)
            left -= n
        }
    }

    /// The bytes, the last one padded with zero bits.
    func finished() -> [UInt8] {
        pending == 0 ? bytes : bytes + [UInt8(truncatingIfNeeded: accumulator << UInt64(8 - pending))]
    }
}

enum ProResEntropyEncoder {
    struct CodewordTooLong: Error, CustomStringConvertible {
        let value: Int
        let codebook: UInt8
        let bits: Int
        /// The coefficient (coded order) it was for, when known.
        var position = -1
        var description: String {
            "value \(value) in codebook 0x\(String(codebook, radix: 16)) needs \(bits) bits (the decoder takes at most 31)"
                + (position >= 0 ? " at coefficient \(position)" : "")
        }
    }

    /// RDD 36's adaptive codebooks (rice order << 5 | exp-Golomb order << 2 |
    /// switch bits), indexed by the previous DC code, run and level.
    static let firstDCCodebook: UInt8 = 0xB8
    static let dcCodebooks: [UInt8] = [0x04, 0x28, 0x28, 0x4D, 0x4D, 0x70, 0x70]
    static let runCodebooks: [UInt8] = [
        0x06, 0x06, 0x05, 0x05, 0x04, 0x29, 0x29, 0x29, 0x29, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x4C,
    ]
    static let levelCodebooks: [UInt8] = [0x04, 0x0A, 0x05, 0x06, 0x04, 0x28, 0x28, 0x28, 0x28, 0x4C]

    /// The codeword of `value` (>= 0): a Rice code with `switch + 1` prefix
    /// values, else an exp-Golomb code of the remainder. Codes the decoder
    /// refuses (over 31 bits) throw.
    static func codeword(_ value: Int, codebook: UInt8) throws -> (bits: UInt64, length: Int) {
        precondition(value >= 0)
        let switchBits = Int(codebook & 3)
        let rice = Int(codebook >> 5)
        let exp = Int((codebook >> 2) & 7)
        let riceLimit = (switchBits + 1) << rice
        if value < riceLimit {
            let q = value >> rice
            // q zeros, a one, then the low `rice` bits.
            let length = q + 1 + rice
            return (UInt64(1) << UInt64(rice) | UInt64(value & ((1 << rice) - 1)), length)
        }
        let v = value - riceLimit + (1 << exp)
        let e = Int.bitWidth - 1 - v.leadingZeroBitCount  // floor(log2 v) >= exp
        let q = e + 1 - exp + switchBits  // the prefix zeros, > switchBits
        let length = q + e + 1
        guard length <= 31 else { throw CodewordTooLong(value: value, codebook: codebook, bits: length) }
        return (UInt64(v), length)
    }

    static func write(_ writer: inout BitWriter, _ value: Int, codebook: UInt8) throws {
        let (bits, length) = try codeword(value, codebook: codebook)
        writer.write(bits, bits: length)  // leading zeros included: `bits` < 2^(length - q)
    }

    /// The DC coefficients of a component's blocks: the first sign-folded,
    /// the others as differences whose sign is coded relative to the
    /// previous difference's (an odd code flips it, zero resets it).
    static func writeDCs(_ w: inout BitWriter, _ dcs: [Int16]) throws {
        let first = Int(dcs[0])
        try write(&w, first >= 0 ? 2 * first : -2 * first - 1, codebook: firstDCCodebook)
        var previousCode = 5
        var sign = 0
        var previous = first
        for (index, value) in dcs.map(Int.init).enumerated().dropFirst() {
            // The decoder adds in int and stores int16: any difference modulo 2^16 will do.
            let difference = Int(Int16(truncatingIfNeeded: value - previous))
            let code: Int
            if difference == 0 {
                code = 0
                sign = 0
            } else {
                let newSign = difference < 0 ? -1 : 0
                code = 2 * abs(difference) - (newSign != sign ? 1 : 0)
                sign = newSign
            }
            do { try write(&w, code, codebook: dcCodebooks[min(previousCode, 6)]) } catch var error as CodewordTooLong {
                error.position = index
                throw error
            }
            previousCode = code
            previous = value
        }
    }

    /// FFmpeg's decoder (and the entropy pass, which follows it) stops a
    /// component early when fewer than 32 bits are left and the bits its
    /// 32-bit cache still holds after the last level's sign (31 minus that
    /// level's codeword length) are all zero: the coefficients after that
    /// point are lost, although RDD 36 would read them. A stream the
    /// generator means to decode exactly must avoid it.
    struct EndsEarlyInFFmpeg: Error, CustomStringConvertible {
        /// The coefficient whose long level codeword leaves too few bits in the cache.
        let position: Int
        /// The first coefficient FFmpeg does not read.
        let lostFrom: Int
        var description: String {
            "FFmpeg would stop reading after coefficient \(position), losing those from \(lostFrom)"
        }
    }

    /// One component (Y', Cb or Cr) of a slice: `coded` holds its
    /// coefficients in coded order, 64 << log2Blocks of them. DCs first
    /// (the first sign-folded, the others as differences whose sign is
    /// coded relative to the previous difference's), then run/level pairs
    /// with a sign bit each; zero bits pad the last byte. With
    /// `endOfDataCheck`, a stream FFmpeg would stop reading early throws
    /// `EndsEarlyInFFmpeg`.
    static func encodeCoefficients(_ coded: [Int16], log2Blocks: Int, endOfDataCheck: Bool = true) throws -> [UInt8] {
        let blocks = 1 << log2Blocks
        precondition(coded.count == 64 << log2Blocks)
        var w = BitWriter()
        try writeDCs(&w, Array(coded[0..<blocks]))
        var position = blocks - 1
        var previousRun = 4
        var previousLevel = 2
        // Per run codeword after the first: where it starts, the length of the level codeword before it, and the positions.
        var checks: [(runStart: Int, levelBits: Int, levelPosition: Int, position: Int)] = []
        var lastLevelBits: Int?
        for p in blocks..<coded.count where coded[p] != 0 {
            let run = p - position - 1
            if let lastLevelBits { checks.append((w.bitCount, lastLevelBits, position, p)) }
            try write(&w, run, codebook: runCodebooks[min(previousRun, 15)])
            let value = Int(coded[p])
            let level = abs(value)  // -32768 is level 32768, negative
            let codebook = levelCodebooks[min(previousLevel, 9)]
            do { try write(&w, level - 1, codebook: codebook) } catch var error as CodewordTooLong {
                error.position = p
                throw error
            }
            lastLevelBits = try codeword(level - 1, codebook: codebook).length
            w.write(value < 0 ? 1 : 0, bits: 1)
            previousRun = run
            previousLevel = level
            position = p
        }
        let bytes = w.finished()
        if endOfDataCheck {
            let total = bytes.count * 8
            func bit(_ i: Int) -> Int { Int(bytes[i >> 3] >> (7 - UInt8(i & 7))) & 1 }
            for check in checks where total - check.runStart < 32 {
                let valid = min(total - check.runStart, 31 - check.levelBits)
                if valid <= 0 || (0..<valid).allSatisfy({ bit(check.runStart + $0) == 0 }) {
                    throw EndsEarlyInFFmpeg(position: check.levelPosition, lostFrom: check.position)
                }
            }
        }
        return bytes
    }

    /// Encodes `coded`, first changing the few values whose codewords would
    /// be too long for the decoder (a level of 32768 right after a level of
    /// 1, a DC difference near 2^15 after a zero one) or that FFmpeg would
    /// not read (`EndsEarlyInFFmpeg`): such an AC value is halved, such a DC
    /// made equal to the previous one.
    static func encodeCoefficients(repairing coded: inout [Int16], log2Blocks: Int) -> [UInt8] {
        while true {
            do { return try encodeCoefficients(coded, log2Blocks: log2Blocks) } catch let error as CodewordTooLong {
                let p = error.position
                precondition(p > 0, "\(error)")
                coded[p] = p < 1 << log2Blocks ? coded[p - 1] : coded[p] / 2
            } catch let error as EndsEarlyInFFmpeg {
                coded[error.position] /= 2
            } catch {
                preconditionFailure("\(error)")
            }
        }
    }

    /// Alpha (RDD 36 §7.1.2): each value is the difference from the previous
    /// one (starting from all ones), coded raw (a 1, then `bits` bits) or,
    /// when small and non-zero, compactly (a 0, then 4 or 7 bits: magnitude
    /// - 1 and the sign in the low bit); after a value, 1 means another
    /// value follows, 0 a run of repeats (4 bits, or 0000 and 11 bits).
    static func encodeAlpha(_ samples: [UInt16], bits: Int) -> [UInt8] {
        precondition(bits == 8 || bits == 16)
        let mask = (1 << bits) - 1
        let compactBits = bits == 16 ? 7 : 4
        let compactLimit = 1 << (compactBits - 1)
        var w = BitWriter()
        var previous = mask
        var index = 0
        while index < samples.count {
            let value = Int(samples[index])
            var difference = (value - previous) & mask
            if difference > mask / 2 { difference -= mask + 1 }
            if difference != 0 && abs(difference) <= compactLimit {
                w.write(0, bits: 1)
                w.write(UInt64(2 * (abs(difference) - 1) + (difference < 0 ? 1 : 0)), bits: compactBits)
            } else {
                w.write(1, bits: 1)
                w.write(UInt64((value - previous) & mask), bits: bits)
            }
            previous = value
            index += 1
            if index == samples.count { break }
            var run = 0
            while index + run < samples.count && Int(samples[index + run]) == value && run < 2047 { run += 1 }
            if run == 0 {
                w.write(1, bits: 1)
                continue
            }
            w.write(0, bits: 1)
            if run < 16 {
                w.write(UInt64(run), bits: 4)
            } else {
                w.write(0, bits: 4)
                w.write(UInt64(run), bits: 11)
            }
            index += run
        }
        return w.finished()
    }
}

/// Writes a synthetic frame as a ProRes frame (RDD 36 §5): frame header with
/// its quantisation matrices, then per picture a picture header, the slice
/// index and the slices (header, then Y', Cb, Cr and alpha data).
enum ProResFrameWriter {
    struct EncodedSlice {
        var headerSize = 8
        var luma: [UInt8]
        var cb: [UInt8]
        var cr: [UInt8]
        var alpha: [UInt8]
    }

    static func frame(_ frame: SyntheticFrame, slices: [EncodedSlice], creator: String = "ktst") -> [UInt8] {
        precondition(slices.count == frame.slices.count)
        var header: [UInt8] = []
        func u16(_ v: Int, into bytes: inout [UInt8]) { bytes += [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int, into bytes: inout [UInt8]) {
            bytes += [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        u16(20 + 128, into: &header)  // frame header size: both matrices follow
        u16(0, into: &header)  // bitstream version
        header += Array(creator.utf8.prefix(4))
        u16(frame.width, into: &header)
        u16(frame.height, into: &header)
        let interlace = frame.fieldOrder == .progressive ? 0 : frame.fieldOrder == .topFieldFirst ? 1 : 2
        header.append(UInt8((frame.chroma444 ? 3 : 2) << 6 | interlace << 2))
        header.append(0)  // aspect ratio, frame rate
        header += [1, 1, 1]  // primaries, transfer, matrix: BT.709
        header.append(UInt8(frame.alpha.rawValue))
        header.append(0)  // reserved
        header.append(3)  // luma and chroma matrices present
        header += frame.lumaMatrix + frame.chromaMatrix

        var pictures: [UInt8] = []
        for picture in 0..<frame.pictures {
            let indices = frame.slices.indices.filter { frame.slices[$0].picture == picture }
            var index: [UInt8] = []
            var data: [UInt8] = []
            for i in indices {
                let s = slices[i]
                let q = frame.slices[i].qscaleCode
                var slice: [UInt8] = [UInt8(s.headerSize << 3), UInt8(q)]
                u16(s.luma.count, into: &slice)
                u16(s.cb.count, into: &slice)
                if s.headerSize > 7 { u16(s.cr.count, into: &slice) }
                slice += [UInt8](repeating: 0, count: max(0, s.headerSize - slice.count))
                slice += s.luma + s.cb + s.cr + s.alpha
                precondition(slice.count <= 0xFFFF, "slice of \(slice.count) bytes")
                u16(slice.count, into: &index)
                data += slice
            }
            var pictureHeader: [UInt8] = [8 << 3]
            u32(8 + index.count + data.count, into: &pictureHeader)
            u16(indices.count, into: &pictureHeader)
            pictureHeader.append(UInt8(frame.log2SliceWidths[picture] << 4))
            pictures += pictureHeader + index + data
        }
        var bytes: [UInt8] = []
        u32(8 + header.count + pictures.count, into: &bytes)
        bytes += Array("icpf".utf8)
        return bytes + header + pictures
    }
}
