/// The six ProRes profiles, keyed by their QuickTime sample-description FourCC.
public enum ProResProfile: String, CaseIterable, Sendable {
    case proxy = "apco"
    case lt = "apcs"
    case standard = "apcn"
    case hq = "apch"
    case p4444 = "ap4h"
    case xq = "ap4x"

    public var fourCC: String { rawValue }

    public var name: String {
        switch self {
        case .proxy: return "ProRes 422 Proxy"
        case .lt: return "ProRes 422 LT"
        case .standard: return "ProRes 422"
        case .hq: return "ProRes 422 HQ"
        case .p4444: return "ProRes 4444"
        case .xq: return "ProRes 4444 XQ"
        }
    }

    /// Short names accepted on the command line (`--expect profile=hq`).
    public var shortName: String {
        switch self {
        case .proxy: return "proxy"
        case .lt: return "lt"
        case .standard: return "422"
        case .hq: return "hq"
        case .p4444: return "4444"
        case .xq: return "4444xq"
        }
    }

    /// FFmpeg's software decoder picks its output precision from the FourCC:
    /// 12 bits for the 4444 profiles, 10 bits for the 422 family.
    public var decodedBitDepth: Int { isFourFourFourFamily ? 12 : 10 }

    public var isFourFourFourFamily: Bool { self == .p4444 || self == .xq }

    public var codecTag: UInt32 {
        // FFmpeg's MKTAG: the first character in the lowest byte.
        Array(rawValue.utf8).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    public init?(codecTag: UInt32) {
        self.init(rawValue: String(decoding: fourCCBytes(codecTag), as: UTF8.self))
    }
}

/// The four bytes of a little-endian FourCC tag, in reading order.
package func fourCCBytes(_ tag: UInt32) -> [UInt8] {
    (0..<4).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: tag >> UInt32(8 * i)) }
}

/// Four bytes as text, anything unprintable shown as '?'.
package func printableFourCC(_ bytes: [UInt8]) -> String {
    let printable: [UInt8] = bytes.map { (0x20..<0x7f).contains($0) ? $0 : 0x3f }
    return String(decoding: printable, as: UTF8.self)
}
