import HostSupport

/// Unpacks a packed y416/v216 surface of the decoder's native layout (the
/// GPU decoder's output) into FFmpeg's planar layout for the same stream:
/// the exact inverse of `FramePacker` on those layouts, so `--format native`
/// and the other layouts are byte-identical whichever decoder ran.
public enum FrameUnpacker {
    public static func unpack(_ source: PixelBuffer, into destination: PixelBuffer) {
        guard case .packed = source.layout.content, case .planar(let format) = destination.layout.content else {
            preconditionFailure("unpack() needs a packed source and a planar destination")
        }
        precondition(
            source.layout.width == destination.layout.width && source.layout.height == destination.layout.height)
        let planes = destination.layout.planes
        // Bands of rows on every core: one 4K frame is 33 MB, and a GPU
        // decoder's frames arrive faster than one core can unpack them.
        let height = source.layout.height
        let band = 16
        parallelFor((height + band - 1) / band) { b in
            for y in b * band..<min(height, (b + 1) * band) {
                for index in 0..<format.planeCount {
                    let row = (destination.baseAddress + planes[index].offset + y * planes[index].bytesPerRow)
                        .assumingMemoryBound(to: UInt16.self)
                    unpackRow(y, plane: index, of: source, as: format, into: row)
                }
            }
        }
    }

    /// Row `y` of plane `plane` (0 Y', 1 Cb, 2 Cr, 3 A) of the native planar
    /// frame, read from the packed surface `source` into `destination`
    /// (`format.planeWidth` samples): what lets a hash read the planar frame
    /// a row at a time without writing the whole frame out first.
    public static func unpackRow(
        _ y: Int, plane: Int, of source: PixelBuffer, as format: PlanarFormat,
        into destination: UnsafeMutablePointer<UInt16>
    ) {
        guard case .packed(let packed) = source.layout.content else {
            preconditionFailure("unpackRow() needs a packed source")
        }
        let width = source.layout.width
        let shift = UInt16(16 - format.bitDepth)
        let row = source.layout.planes[0]
        let src = UnsafeRawPointer(source.baseAddress + row.offset + y * row.bytesPerRow).assumingMemoryBound(
            to: UInt16.self)
        switch (packed, format.chroma) {
        case (.y416, .c444):
            // A, Y', Cb, Cr in each sample; the planes go Y', Cb, Cr, A.
            let component = plane == 3 ? 0 : plane + 1
            for x in 0..<width { destination[x] = src[4 * x + component] >> shift }
        case (.v216, .c422):
            switch plane {
            case 0:
                for x in 0..<width { destination[x] = src[2 * x + 1] >> shift }
            default:
                // Cb, Y', Cr, Y' in each pair.
                let component = plane == 1 ? 0 : 2
                for pair in 0..<(width + 1) / 2 { destination[pair] = src[4 * pair + component] >> shift }
            }
        default:
            preconditionFailure("\(packed) is not the native layout of \(format)")
        }
    }
}
