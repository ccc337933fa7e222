/// Unpacks a packed y416/v216 surface of the decoder's native layout (the
/// GPU decoder's output) into FFmpeg's planar layout for the same stream:
/// the exact inverse of `FramePacker` on those layouts, so `--format native`
/// and the other layouts are byte-identical whichever decoder ran.
public enum FrameUnpacker {
    public static func unpack(_ source: PixelBuffer, into destination: PixelBuffer) {
        guard case let .packed(packed) = source.layout.content, case let .planar(format) = destination.layout.content else {
            preconditionFailure("unpack() needs a packed source and a planar destination")
        }
        precondition(source.layout.width == destination.layout.width && source.layout.height == destination.layout.height)
        let width = source.layout.width
        let shift = UInt16(16 - format.bitDepth)
        let planes = destination.layout.planes
        let row = source.layout.planes[0]
        // Bands of rows on every core: one 4K frame is 33 MB, and a GPU
        // decoder's frames arrive faster than one core can unpack them.
        let height = source.layout.height, band = 16
        parallelFor((height + band - 1) / band) { b in
            for y in b * band..<min(height, (b + 1) * band) {
                let src = UnsafeRawPointer(source.baseAddress + row.offset + y * row.bytesPerRow).assumingMemoryBound(to: UInt16.self)
                func plane(_ index: Int) -> UnsafeMutablePointer<UInt16> {
                    (destination.baseAddress + planes[index].offset + y * planes[index].bytesPerRow).assumingMemoryBound(to: UInt16.self)
                }
                let luma = plane(0), cb = plane(1), cr = plane(2)
                switch (packed, format.chroma) {
                case (.y416, .c444):
                    let alpha = format.hasAlpha ? plane(3) : nil
                    for x in 0..<width {
                        alpha?[x] = src[4 * x] >> shift
                        luma[x] = src[4 * x + 1] >> shift
                        cb[x] = src[4 * x + 2] >> shift
                        cr[x] = src[4 * x + 3] >> shift
                    }
                case (.v216, .c422):
                    for pair in 0..<(width + 1) / 2 {
                        cb[pair] = src[4 * pair] >> shift
                        luma[2 * pair] = src[4 * pair + 1] >> shift
                        cr[pair] = src[4 * pair + 2] >> shift
                        if 2 * pair + 1 < width { luma[2 * pair + 1] = src[4 * pair + 3] >> shift }
                    }
                default:
                    preconditionFailure("\(packed) is not the native layout of \(format)")
                }
            }
        }
    }
}
