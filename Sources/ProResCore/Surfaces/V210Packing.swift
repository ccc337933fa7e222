/// Native 4:2:2 10-bit planar frames (`yuv422p10le`, rows tight) as v210,
/// the uncompressed QuickTime layout FFmpeg 5.1 both writes and reads back
/// in `.mov` (Apple's `kCVPixelFormatType_422YpCbCr10`). Lossless: v210
/// holds exactly the 10-bit samples.
///
/// Six pixels in four little-endian 32-bit words, three 10-bit samples a
/// word (bits 0–9, 10–19, 20–29):
/// `Cb0 Y0 Cr0 | Y1 Cb1 Y2 | Cr1 Y3 Cb2 | Y4 Cr2 Y5`. Each row is padded
/// to a multiple of 48 pixels (128 bytes), as FFmpeg's v210 reader expects;
/// a last group past the width is filled with zeros. Widths must be even
/// (FFmpeg 5.1's v210 codec refuses odd ones).
public enum V210Packing {
    public static func bytesPerRow(width: Int) -> Int { (width + 47) / 48 * 128 }

    /// `planar`: the Y', Cb, Cr planes of a `width` × `height` frame,
    /// concatenated (what the native sinks receive).
    public static func pack(_ planar: [UInt8], width: Int, height: Int) -> [UInt8] {
        precondition(width % 2 == 0 && planar.count == width * height * 4, "v210 needs an even-width yuv422p10le frame")
        let rowBytes = bytesPerRow(width: width)
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        let chromaWidth = width / 2
        planar.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: UInt16.self)
            out.withUnsafeMutableBytes { destination in
                for row in 0..<height {
                    let luma = row * width
                    let cb = width * height + row * chromaWidth
                    let cr = cb + chromaWidth * height
                    func y(_ x: Int) -> UInt32 {
                        x < width ? UInt32(UInt16(littleEndian: samples[luma + x]) & 0x3FF) : 0
                    }
                    func c(_ base: Int, _ x: Int) -> UInt32 {
                        x < chromaWidth ? UInt32(UInt16(littleEndian: samples[base + x]) & 0x3FF) : 0
                    }
                    var at = row * rowBytes
                    for group in stride(from: 0, to: width, by: 6) {
                        let h = group / 2
                        func store(_ word: UInt32) {
                            destination.storeBytes(of: word.littleEndian, toByteOffset: at, as: UInt32.self)
                            at += 4
                        }
                        store(c(cb, h) | y(group) << 10 | c(cr, h) << 20)
                        store(y(group + 1) | c(cb, h + 1) << 10 | y(group + 2) << 20)
                        store(c(cr, h + 1) | y(group + 3) << 10 | c(cb, h + 2) << 20)
                        store(y(group + 4) | c(cr, h + 2) << 10 | y(group + 5) << 20)
                    }
                }
            }
        }
        return out
    }
}
