import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// How `check --previews` pictures look: 16-bit RGB, Display P3 primaries
/// with the sRGB curve, opaque.
///
/// Each pixel: colour channels below 0 clipped to 0 (out-of-gamut), then
/// FrameSaver's highlight roll-off (`FrameSaver.toneMapped`: the largest
/// channel m above 0.75 becomes 0.75 + 0.25·(1 − e^(−(m − 0.75)/0.25)), all
/// three scaled alike so hue is kept), then composited over a checkerboard in
/// linear light, `out = t·a + k·(1 − a)` (a = alpha clamped to [0, 1], k = the
/// checker square's linear value), then sRGB-encoded and rounded to 16 bits.
/// An opaque pixel is therefore exactly what `--save-format png` writes.
///
/// Checkerboard: squares of `checkerSize` = 8 pixels, the light one at each
/// picture's top-left, so square (x/8 + y/8) even is light. Light is sRGB
/// 0.8 (code 0xCCCC = 52428), dark sRGB 0.6 (0x9999 = 39321), both neutral
/// grey; where alpha is 0 the PNG holds exactly these codes.
///
/// Contact sheet: thumbnails left to right, top to bottom, `columns` a row,
/// each in a cell as large as the largest thumbnail (top-left aligned),
/// cells `gap` = 8 pixels apart, no outer margin; the gaps and empty cells
/// are opaque grey 0x2020 (sRGB 0.125).
///
/// A damaged frame (concealed pixels) is shown marked, so no one mistakes it
/// for a clean one: over its thumbnail, a `markBorder` = 4-pixel border and
/// diagonal bands (thumbnail pixels with (x + y) mod 16 < 3) in opaque pure
/// red, codes (65535, 0, 0); the concealed picture shows between the bands.
enum PreviewRenderer {
    static let checkerSize = 8
    static let checkerLightCode: UInt16 = 0xCCCC
    static let checkerDarkCode: UInt16 = 0x9999
    static let gap = 8
    static let backgroundCode: UInt16 = 0x2020
    static let markBorder = 4
    static let markBandPeriod = 16
    static let markBandWidth = 3
    static let markCode: [UInt16] = [0xFFFF, 0, 0]

    /// An RGB picture ready for the PNG encoder: 3 samples a pixel.
    struct Canvas {
        let width: Int
        let height: Int
        var samples: [UInt16]
    }

    private static let checkerLight = srgbDecode(Double(checkerLightCode) / 65535)
    private static let checkerDark = srgbDecode(Double(checkerDarkCode) / 65535)

    /// The inverse of `FrameSaver.srgbEncode` (IEC 61966-2-1).
    static func srgbDecode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// The checker square's linear value at (x, y) of a picture.
    static func checker(x: Int, y: Int) -> Double {
        (x / checkerSize + y / checkerSize) % 2 == 0 ? checkerLight : checkerDark
    }

    /// One pixel as 16-bit codes (see the type's comment). Non-finite input
    /// (never produced by the conversion) is treated as 0 rather than trapping.
    static func shade(r: Double, g: Double, b: Double, a: Double, checker k: Double) -> (UInt16, UInt16, UInt16) {
        func clean(_ v: Double) -> Double { v.isNaN ? 0 : min(max(v, 0), 65504) }
        let alpha = a.isNaN ? 1 : min(max(a, 0), 1)
        let (r, g, b) = (clean(r), clean(g), clean(b))
        // The curve is the identity up to 0.75: call it only above (no array to build).
        var mapped = (r, g, b)
        if max(r, g, b) > 0.75 {
            let t = FrameSaver.toneMapped([r, g, b])
            mapped = (t[0], t[1], t[2])
        }
        func code(_ t: Double) -> UInt16 {
            let encoded = FrameSaver.srgbEncode(t * alpha + k * (1 - alpha))
            return UInt16((min(max(encoded.isNaN ? 0 : encoded, 0), 1) * 65535).rounded())
        }
        return (code(mapped.0), code(mapped.1), code(mapped.2))
    }

    /// `image` at full size.
    static func frame(_ image: PreviewImage) -> Canvas {
        var canvas = Canvas(
            width: image.width, height: image.height,
            samples: [UInt16](repeating: 0, count: image.width * image.height * 3))
        draw(image, into: &canvas, left: 0, top: 0)
        return canvas
    }

    /// The contact sheet of `thumbnails` (at least one); those at positions
    /// in `marked` (damaged frames) get the mark.
    static func sheet(_ thumbnails: [PreviewImage], columns: Int, marked: Set<Int> = []) -> Canvas {
        precondition(!thumbnails.isEmpty && columns >= 1)
        let across = min(columns, thumbnails.count)
        let down = (thumbnails.count + across - 1) / across
        let cellWidth = thumbnails.map(\.width).max()!
        let cellHeight = thumbnails.map(\.height).max()!
        let width = across * cellWidth + (across - 1) * gap
        let height = down * cellHeight + (down - 1) * gap
        var canvas = Canvas(
            width: width, height: height, samples: [UInt16](repeating: backgroundCode, count: width * height * 3))
        for (n, thumbnail) in thumbnails.enumerated() {
            let origin = cellOrigin(
                n, count: thumbnails.count, columns: columns, cellWidth: cellWidth, cellHeight: cellHeight)
            draw(thumbnail, into: &canvas, left: origin.x, top: origin.y)
            if marked.contains(n) {
                mark(width: thumbnail.width, height: thumbnail.height, into: &canvas, left: origin.x, top: origin.y)
            }
        }
        return canvas
    }

    /// Whether a thumbnail's pixel (x, y) is painted by the damage mark.
    static func isMarked(x: Int, y: Int, width: Int, height: Int) -> Bool {
        min(x, y, width - 1 - x, height - 1 - y) < markBorder || (x + y) % markBandPeriod < markBandWidth
    }

    private static func mark(width: Int, height: Int, into canvas: inout Canvas, left: Int, top: Int) {
        for y in 0..<height {
            for x in 0..<width where isMarked(x: x, y: y, width: width, height: height) {
                let o = ((top + y) * canvas.width + left + x) * 3
                canvas.samples.replaceSubrange(o..<o + 3, with: markCode)
            }
        }
    }

    /// Where a thumbnail's top-left corner lies on a sheet made by `sheet`.
    static func cellOrigin(_ n: Int, count: Int, columns: Int, cellWidth: Int, cellHeight: Int) -> (x: Int, y: Int) {
        let across = min(columns, count)
        return ((n % across) * (cellWidth + gap), (n / across) * (cellHeight + gap))
    }

    /// The codes of an opaque channel by its half float's bit pattern, from
    /// `shade` itself: valid where all three channels are at most 0.75 (below
    /// the roll-off, each channel's code depends on its own value only, and
    /// with alpha 1 the checker weighs exactly 0).
    private static let opaqueCodes: [UInt16] = PreviewImage.halfValues.map {
        shade(r: Double($0), g: 0, b: 0, a: 1, checker: 0).0
    }

    /// Rows on every core: a 4K frame is 8 million pixels, each with its
    /// sRGB curve (a `pow`), which took seconds a preview on one core. Opaque
    /// pixels below the roll-off, most of a picture, take their codes from
    /// `opaqueCodes`, the same numbers without the `pow`s.
    private static func draw(_ image: PreviewImage, into canvas: inout Canvas, left: Int, top: Int) {
        let canvasWidth = canvas.width
        let width = image.width
        let opaque = Float16(1).bitPattern
        canvas.samples.withUnsafeMutableBufferPointer { out in
            image.samples.withUnsafeBufferPointer { samples in
                PreviewImage.halfValues.withUnsafeBufferPointer { half in
                    opaqueCodes.withUnsafeBufferPointer { codes in
                        // Each row writes only its own span of the canvas.
                        let target = UncheckedSendable((out, samples, half, codes))
                        parallelFor(image.height) { y in
                            let (out, samples, half, codes) = target.value
                            for x in 0..<width {
                                let p = (y * width + x) * 4
                                let (r, g, b) = (Int(samples[p]), Int(samples[p + 1]), Int(samples[p + 2]))
                                let o = ((top + y) * canvasWidth + left + x) * 3
                                // NaN fails the comparisons and takes `shade`, like any other case.
                                if samples[p + 3] == opaque, half[r] <= 0.75, half[g] <= 0.75, half[b] <= 0.75 {
                                    out[o] = codes[r]
                                    out[o + 1] = codes[g]
                                    out[o + 2] = codes[b]
                                } else {
                                    (out[o], out[o + 1], out[o + 2]) = shade(
                                        r: Double(half[r]), g: Double(half[g]), b: Double(half[b]),
                                        a: Double(half[Int(samples[p + 3])]), checker: checker(x: x, y: y))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
