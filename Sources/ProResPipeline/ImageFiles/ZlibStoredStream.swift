import ProResCore

/// A zlib stream (RFC 1950) whose deflate data (RFC 1951) is all *stored*
/// blocks: valid for every inflater, just not smaller than its input.
///
/// Why: PNG's iCCP chunk must hold a zlib stream, and the libraries that
/// compress are C dependencies this module does not take. The profile it
/// carries is under a kilobyte, so not compressing it costs nothing.
enum ZlibStoredStream {
    /// The largest stored block deflate allows (its LEN field is 16 bits).
    static let maximumBlock = 65535

    public static func wrap(_ data: [UInt8]) -> [UInt8] {
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01 makes
        // (CMF·256 + FLG) a multiple of 31, no preset dictionary, level "fastest".
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(maximumBlock, data.count - start)
            let isLast = start + count == data.count
            out.append(isLast ? 1 : 0)  // BFINAL, BTYPE 00 (stored); the rest of the byte pads to a boundary
            out.appendLittleEndian(UInt16(count))
            out.appendLittleEndian(~UInt16(count))
            out.append(contentsOf: data[start..<start + count])
            start += count
        } while start < data.count
        out.appendBigEndian(adler32(data))
        return out
    }

    /// RFC 1950's Adler-32 of `data`.
    public static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
