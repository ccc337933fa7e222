import Foundation

/// Packs a decoder's planar surface into Apple's y416 or v216 layout.
///
/// Y'CbCr samples are MSB-aligned (`v << (16 - depth)`, so 10-bit black 64
/// becomes 4096). Alpha is widened by bit replication, so the largest code
/// becomes 65535; a source without alpha packs as opaque 65535.
/// 4:2:2 → y416 repeats each chroma sample for both of its columns; 4:4:4 →
/// v216 keeps the even column's chroma and drops alpha. An odd width's last
/// v216 pair repeats Y'0 as Y'1.
public enum FramePacker {
    /// Packs on all cores in bands of rows: one frame's packing must not
    /// hold up the output thread while the decoder's threads wait on it.
    public static func pack(_ source: PixelBuffer, into destination: PixelBuffer) {
        let height = source.layout.height
        let bands = max(1, min(ProcessInfo.processInfo.activeProcessorCount, height / 64))
        if bands == 1 { return pack(source, into: destination, rows: 0..<height) }
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            pack(source, into: destination, rows: band * height / bands..<(band + 1) * height / bands)
        }
    }

    static func pack(_ source: PixelBuffer, into destination: PixelBuffer, rows: Range<Int>) {
        guard case .planar(let format) = source.layout.content,
            case .packed(let packed) = destination.layout.content
        else {
            preconditionFailure("pack() needs a planar source and a packed destination")
        }
        precondition(
            source.layout.width == destination.layout.width && source.layout.height == destination.layout.height)
        let width = source.layout.width
        let planes = source.layout.planes
        let out = destination.layout.planes[0]
        for row in rows {
            func rowPointer(_ plane: Int) -> UnsafePointer<UInt16> {
                UnsafeRawPointer(source.baseAddress + planes[plane].offset + row * planes[plane].bytesPerRow)
                    .assumingMemoryBound(to: UInt16.self)
            }
            let dst = (destination.baseAddress + out.offset + row * out.bytesPerRow).assumingMemoryBound(
                to: UInt16.self)
            packRow(
                packed, format, into: dst, y: rowPointer(0), cb: rowPointer(1), cr: rowPointer(2),
                alpha: format.hasAlpha ? rowPointer(3) : nil, width: width)
        }
    }

    /// Packs `width` pixels of one row from planar rows (`cb`, `cr` at the
    /// format's chroma resolution, `alpha` nil without alpha) into `dst`,
    /// the row's first pixel (y416) or pair (v216). A decoder that writes
    /// packed surfaces itself packs each slice's piece of a row with it.
    @inline(__always)
    public static func packRow(
        _ packed: PackedLayout, _ format: PlanarFormat, into dst: UnsafeMutablePointer<UInt16>,
        y: UnsafePointer<UInt16>, cb: UnsafePointer<UInt16>, cr: UnsafePointer<UInt16>,
        alpha a: UnsafePointer<UInt16>?, width: Int
    ) {
        let shift = UInt16(16 - format.bitDepth)
        let alphaShift = UInt16(2 * format.bitDepth - 16)
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

    // Each output pixel (y416) or pair (v216) is four 16-bit words = one
    // little-endian UInt64, built in registers and stored once.
    @inline(__always)
    private static func word(_ w0: UInt16, _ w1: UInt16, _ w2: UInt16, _ w3: UInt16) -> UInt64 {
        UInt64(w0) | UInt64(w1) << 16 | UInt64(w2) << 32 | UInt64(w3) << 48
    }

    @inline(__always)
    private static func widenAlpha(_ a: UnsafePointer<UInt16>?, _ x: Int, _ shift: UInt16, _ alphaShift: UInt16)
        -> UInt16
    {
        guard let a else { return 0xFFFF }
        let v = a[x]
        return v &<< shift | v &>> alphaShift
    }

    private static func packY416From444(
        _ dst: UnsafeMutablePointer<UInt16>, _ y: UnsafePointer<UInt16>,
        _ cb: UnsafePointer<UInt16>, _ cr: UnsafePointer<UInt16>,
        _ a: UnsafePointer<UInt16>?, _ width: Int,
        _ shift: UInt16, _ alphaShift: UInt16
    ) {
        let out = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt64.self)
        if let a {
            for x in 0..<width {
                out[x] = word(a[x] &<< shift | a[x] &>> alphaShift, y[x] &<< shift, cb[x] &<< shift, cr[x] &<< shift)
            }
        } else {
            for x in 0..<width {
                out[x] = word(0xFFFF, y[x] &<< shift, cb[x] &<< shift, cr[x] &<< shift)
            }
        }
    }

    private static func packY416From422(
        _ dst: UnsafeMutablePointer<UInt16>, _ y: UnsafePointer<UInt16>,
        _ cb: UnsafePointer<UInt16>, _ cr: UnsafePointer<UInt16>,
        _ a: UnsafePointer<UInt16>?, _ width: Int,
        _ shift: UInt16, _ alphaShift: UInt16
    ) {
        let out = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt64.self)
        let pairs = width / 2
        // One chroma sample serves both columns of a pair.
        if let a {
            for k in 0..<pairs {
                let chroma = word(0, 0, cb[k] &<< shift, cr[k] &<< shift)
                let a0 = a[2 * k]
                let a1 = a[2 * k + 1]
                out[2 * k] = chroma | word(a0 &<< shift | a0 &>> alphaShift, y[2 * k] &<< shift, 0, 0)
                out[2 * k + 1] = chroma | word(a1 &<< shift | a1 &>> alphaShift, y[2 * k + 1] &<< shift, 0, 0)
            }
        } else {
            for k in 0..<pairs {
                let chroma = word(0xFFFF, 0, cb[k] &<< shift, cr[k] &<< shift)
                out[2 * k] = chroma | UInt64(y[2 * k] &<< shift) << 16
                out[2 * k + 1] = chroma | UInt64(y[2 * k + 1] &<< shift) << 16
            }
        }
        if width & 1 == 1 {
            let x = width - 1
            out[x] = word(widenAlpha(a, x, shift, alphaShift), y[x] &<< shift, cb[pairs] &<< shift, cr[pairs] &<< shift)
        }
    }

    private static func packV216(
        _ dst: UnsafeMutablePointer<UInt16>, _ y: UnsafePointer<UInt16>,
        _ cb: UnsafePointer<UInt16>, _ cr: UnsafePointer<UInt16>,
        _ width: Int, _ shift: UInt16, chromaStep: Int
    ) {
        let out = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt64.self)
        let pairs = width / 2
        for k in 0..<pairs {
            out[k] = word(
                cb[k * chromaStep] &<< shift, y[2 * k] &<< shift, cr[k * chromaStep] &<< shift, y[2 * k + 1] &<< shift)
        }
        if width & 1 == 1 {
            let y0 = y[2 * pairs] &<< shift
            out[pairs] = word(cb[pairs * chromaStep] &<< shift, y0, cr[pairs * chromaStep] &<< shift, y0)
        }
    }
}
