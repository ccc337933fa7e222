/// Packs a decoder's planar surface into Apple's y416 or v216 layout.
///
/// Y'CbCr samples are MSB-aligned (`v << (16 - depth)`, so 10-bit black 64
/// becomes 4096). Alpha is widened by bit replication, so the largest code
/// becomes 65535; a source without alpha packs as opaque 65535.
/// 4:2:2 → y416 repeats each chroma sample for both of its columns; 4:4:4 →
/// v216 keeps the even column's chroma and drops alpha. An odd width's last
/// v216 pair repeats Y'0 as Y'1.
public enum FramePacker {
    public static func pack(_ source: PixelBuffer, into destination: PixelBuffer) {
        guard case let .planar(format) = source.layout.content,
              case let .packed(packed) = destination.layout.content else {
            preconditionFailure("pack() needs a planar source and a packed destination")
        }
        precondition(source.layout.width == destination.layout.width && source.layout.height == destination.layout.height)
        let width = source.layout.width
        let shift = UInt16(16 - format.bitDepth)
        let alphaShift = UInt16(2 * format.bitDepth - 16)
        let planes = source.layout.planes
        let out = destination.layout.planes[0]
        for row in 0..<source.layout.height {
            func rowPointer(_ plane: Int) -> UnsafePointer<UInt16> {
                UnsafeRawPointer(source.baseAddress + planes[plane].offset + row * planes[plane].bytesPerRow)
                    .assumingMemoryBound(to: UInt16.self)
            }
            let dst = (destination.baseAddress + out.offset + row * out.bytesPerRow).assumingMemoryBound(to: UInt16.self)
            let y = rowPointer(0), cb = rowPointer(1), cr = rowPointer(2)
            let a = format.hasAlpha ? rowPointer(3) : nil
            switch (packed, format.chroma) {
            case (.y416, .c444):
                packY416From444(dst, y, cb, cr, a, width, shift, alphaShift)
            case (.y416, .c422):
                packY416From422(dst, y, cb, cr, a, width, shift, alphaShift)
            case (.v216, .c422):
                packV216(dst, y, cb, cr, width, shift, chromaStep: 1)
            case (.v216, .c444):
                packV216(dst, y, cb, cr, width, shift, chromaStep: 2)
            }
        }
    }

    @inline(__always)
    private static func widenAlpha(_ a: UnsafePointer<UInt16>?, _ x: Int, _ shift: UInt16, _ alphaShift: UInt16) -> UInt16 {
        guard let a else { return 0xFFFF }
        let v = a[x]
        return v &<< shift | v &>> alphaShift
    }

    private static func packY416From444(_ dst: UnsafeMutablePointer<UInt16>, _ y: UnsafePointer<UInt16>,
                                        _ cb: UnsafePointer<UInt16>, _ cr: UnsafePointer<UInt16>,
                                        _ a: UnsafePointer<UInt16>?, _ width: Int,
                                        _ shift: UInt16, _ alphaShift: UInt16) {
        for x in 0..<width {
            dst[4 * x] = widenAlpha(a, x, shift, alphaShift)
            dst[4 * x + 1] = y[x] &<< shift
            dst[4 * x + 2] = cb[x] &<< shift
            dst[4 * x + 3] = cr[x] &<< shift
        }
    }

    private static func packY416From422(_ dst: UnsafeMutablePointer<UInt16>, _ y: UnsafePointer<UInt16>,
                                        _ cb: UnsafePointer<UInt16>, _ cr: UnsafePointer<UInt16>,
                                        _ a: UnsafePointer<UInt16>?, _ width: Int,
                                        _ shift: UInt16, _ alphaShift: UInt16) {
        for x in 0..<width {
            dst[4 * x] = widenAlpha(a, x, shift, alphaShift)
            dst[4 * x + 1] = y[x] &<< shift
            dst[4 * x + 2] = cb[x >> 1] &<< shift
            dst[4 * x + 3] = cr[x >> 1] &<< shift
        }
    }

    private static func packV216(_ dst: UnsafeMutablePointer<UInt16>, _ y: UnsafePointer<UInt16>,
                                 _ cb: UnsafePointer<UInt16>, _ cr: UnsafePointer<UInt16>,
                                 _ width: Int, _ shift: UInt16, chromaStep: Int) {
        let pairs = width / 2
        for k in 0..<pairs {
            dst[4 * k] = cb[k * chromaStep] &<< shift
            dst[4 * k + 1] = y[2 * k] &<< shift
            dst[4 * k + 2] = cr[k * chromaStep] &<< shift
            dst[4 * k + 3] = y[2 * k + 1] &<< shift
        }
        if width & 1 == 1 {
            let k = pairs
            let y0 = y[2 * k] &<< shift
            dst[4 * k] = cb[k * chromaStep] &<< shift
            dst[4 * k + 1] = y0
            dst[4 * k + 2] = cr[k * chromaStep] &<< shift
            dst[4 * k + 3] = y0
        }
    }
}
