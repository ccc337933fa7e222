/// A BLAKE3-256 digest (the default 32-byte output).
public struct BLAKE3Digest: Hashable, Sendable, CustomStringConvertible {
    /// The digest as eight words; its bytes are these words little-endian.
    public let words: SIMD8<UInt32>

    public init(words: SIMD8<UInt32>) { self.words = words }

    public var bytes: [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: words[$0 / 4] >> UInt32(8 * ($0 % 4))) } }

    /// Lowercase, 64 digits: what `b3sum` prints.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// 64 hex digits (either case); nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var words = SIMD8<UInt32>()
        for (i, digit) in digits.enumerated() {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            // Digit i is nibble i of the byte string; high nibble first within a byte.
            let byte = i / 2
            let shift = UInt32(8 * (byte % 4) + (i % 2 == 0 ? 4 : 0))
            words[byte / 4] |= UInt32(value) << shift
        }
        self.words = words
    }

    public var description: String { hex }

    init(_ cv: ChainingValue) { words = cv.simd }
}
