import CZlib
import HostSupport
import ProResCore

/// 16-bit PNGs compressed on every core. The rows are cut into bands of
/// about a MiB; each band is deflated on its own (zlib level 1, primed with
/// the 32 KiB of rows before it, so a band compresses almost as well as in
/// one stream) and ended with a sync flush, which leaves it on a byte
/// boundary without marking it the last block. Joined behind one zlib
/// header and followed by the Adler-32 of all the rows (combined from the
/// bands'), the pieces are one valid zlib stream: a PNG any reader decodes
/// as a whole (the technique of pigz). Rows use filter type 0 (none), as
/// libavcodec's encoder did.
///
/// Why: libavcodec's PNG encoder deflates on one core; a 4K 16-bit frame
/// (50 MB of samples) took it over a second at level 3, most of the time
/// `check --previews` spent on a file.
enum PNGEncoder {
    /// About this many bytes of rows a band.
    static let bandBytes = 1 << 20
    static let level: Int32 = 1
    /// Bytes of earlier rows a band's stream is primed with: deflate's window.
    static let window = 32768

    /// A PNG of `samples`: `channels` (3 RGB, 4 RGBA) 16-bit samples a pixel,
    /// rows top to bottom, no padding. Errors name `errorPath`.
    static func encode16(_ samples: [UInt16], width: Int, height: Int, channels: Int, errorPath: String) throws
        -> [UInt8]
    {
        precondition(
            (channels == 3 || channels == 4) && width > 0 && height > 0 && samples.count == width * height * channels)
        let rowBytes = 1 + width * channels * 2
        let raw = filteredRows(samples, width: width, height: height, channels: channels)
        let rowsPerBand = max(1, bandBytes / rowBytes)
        let bands = (height + rowsPerBand - 1) / rowsPerBand
        var pieces = [Result<Piece, ProResDecodeError>?](repeating: nil, count: bands)
        raw.withUnsafeBufferPointer { raw in
            pieces.withUnsafeMutableBufferPointer { pieces in
                // Each band writes only its own element.
                let results = UncheckedSendable(pieces)
                parallelFor(bands) { band in
                    let start = band * rowsPerBand * rowBytes
                    let end = min(height, (band + 1) * rowsPerBand) * rowBytes
                    results.value[band] = deflateBand(
                        raw, start: start, end: end, last: band == bands - 1, errorPath: errorPath)
                }
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        // bit depth, colour type RGB / RGBA, deflate, filter set 0, no interlace
        header += [16, channels == 3 ? 2 : 6, 0, 0, 0]
        appendChunk("IHDR", header, to: &png)
        // One IDAT: the zlib header, the bands, the Adler-32 of all rows. Its
        // CRC-32 is combined from the bands' (computed on their cores), and
        // the bytes are copied once, into the file.
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01: "fastest" and the check bits.
        let zlibHeader: [UInt8] = [0x78, 0x01]
        var adler = adler32(0, nil, 0)
        var crc = crc32(crc32(0, Array("IDAT".utf8), 4), zlibHeader, 2)
        var length = zlibHeader.count + 4
        let finished = try pieces.enumerated().map { band, piece in
            let piece = try piece!.get()
            let bandLength = min(height, (band + 1) * rowsPerBand) * rowBytes - band * rowsPerBand * rowBytes
            adler = adler32_combine(adler, piece.adler, off_t(bandLength))
            crc = crc32_combine(crc, piece.crc, off_t(piece.bytes.count))
            length += piece.bytes.count
            return piece.bytes
        }
        var trailer: [UInt8] = []
        appendBigEndian(UInt32(adler), to: &trailer)
        crc = crc32(crc, trailer, 4)
        png.reserveCapacity(png.count + 12 + length + 12)
        appendBigEndian(UInt32(length), to: &png)
        png += Array("IDAT".utf8) + zlibHeader
        for bytes in finished { png += bytes }
        png += trailer
        appendBigEndian(UInt32(crc), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// One band's deflate stream, the CRC-32 of those bytes and the Adler-32 of its rows.
    private struct Piece {
        let bytes: [UInt8]
        let crc: UInt
        let adler: UInt
    }

    /// Every row as PNG stores it with filter type 0: a 0 byte, then the samples big-endian.
    private static func filteredRows(_ samples: [UInt16], width: Int, height: Int, channels: Int) -> [UInt8] {
        let rowSamples = width * channels
        let rowBytes = 1 + rowSamples * 2
        return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, initialised in
            let target = UncheckedSendable(out)
            samples.withUnsafeBufferPointer { source in
                // Each row writes only its own span.
                parallelFor(height) { y in
                    let row = target.value.baseAddress! + y * rowBytes
                    row[0] = 0
                    for i in 0..<rowSamples {
                        let code = source[y * rowSamples + i]
                        row[1 + 2 * i] = UInt8(code >> 8)
                        row[2 + 2 * i] = UInt8(truncatingIfNeeded: code)
                    }
                }
            }
            initialised = rowBytes * height
        }
    }

    /// Raw deflate of `raw[start..<end]`, primed with the window before
    /// `start`; ended with a sync flush, or as the stream's last block.
    private static func deflateBand(
        _ raw: UnsafeBufferPointer<UInt8>, start: Int, end: Int, last: Bool,
        errorPath: String
    ) -> Result<Piece, ProResDecodeError> {
        func failure(_ what: String, _ status: Int32) -> Result<Piece, ProResDecodeError> {
            .failure(.output(path: errorPath, reason: "PNG compression failed: \(what) returned \(status)"))
        }
        var stream = z_stream()
        var status = pd_deflate_init_raw(&stream, level)
        guard status == Z_OK else { return failure("deflateInit2", status) }
        defer { deflateEnd(&stream) }
        let base = UnsafeMutablePointer(mutating: raw.baseAddress!)
        let primer = min(start, window)
        if primer > 0 {
            status = deflateSetDictionary(&stream, base + start - primer, uInt(primer))
            guard status == Z_OK else { return failure("deflateSetDictionary", status) }
        }
        let length = end - start
        // deflateBound covers the finished stream; a sync flush adds an empty stored block (5 bytes).
        let capacity = Int(deflateBound(&stream, uLong(length))) + 16
        var bytes = [UInt8](repeating: 0, count: capacity)
        let produced = bytes.withUnsafeMutableBufferPointer { out -> Int32 in
            stream.next_in = base + start
            stream.avail_in = uInt(length)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(capacity)
            return deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH)
        }
        guard produced == (last ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else {
            return failure("deflate", produced)
        }
        bytes.removeLast(Int(stream.avail_out))
        let crc = bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return .success(Piece(bytes: bytes, crc: crc, adler: adler32(1, base + start, uInt(length))))
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    /// `length type data CRC-32(type data)`.
    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &png)
        let typeBytes = Array(type.utf8)
        png += typeBytes
        png += data
        var crc = crc32(0, typeBytes, uInt(typeBytes.count))
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        appendBigEndian(UInt32(crc), to: &png)
    }
}
