import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// A picture as the GPU conversion delivers it: RGBA half floats per pixel,
/// extended linear Display P3, straight (not premultiplied) alpha.
///
/// Why half floats: a copy of a `ConvertedFrame` is a plain memcpy, and a
/// full 4K frame kept for the `.frame.png` costs 8 bytes a pixel, not 16.
/// They are kept as bit patterns and read through a table: x86-64 has no
/// half-float arithmetic, and the table is several times faster than
/// converting each sample in software.
struct PreviewImage {
    let width: Int
    let height: Int
    /// R, G, B, A per pixel as IEEE half-float bits, rows top to bottom, no padding.
    private(set) var samples: [UInt16]

    init(width: Int, height: Int, samples: [UInt16]) {
        precondition(samples.count == width * height * 4)
        self.width = width
        self.height = height
        self.samples = samples
    }

    init(width: Int, height: Int, values: [Float16]) {
        self.init(width: width, height: height, samples: values.map(\.bitPattern))
    }

    /// Every half float's value, by bit pattern.
    static let halfValues: [Float] = (0...0xFFFF).map { Float(Float16(bitPattern: UInt16($0))) }

    /// A copy of `bytes`: width × height RGBA16F pixels as the GPU wrote them.
    init(width: Int, height: Int, copying bytes: UnsafeRawBufferPointer) {
        let count = width * height * 4
        precondition(
            bytes.count == count * 2, "a \(width)x\(height) RGBA16F picture is \(count * 2) bytes, not \(bytes.count)")
        self.width = width
        self.height = height
        // The GPU wrote little-endian IEEE halves; so does every host we build for.
        samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialised in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
            initialised = count
        }
    }

    /// Channel `c` (0 R, 1 G, 2 B, 3 A) of pixel (x, y).
    func value(x: Int, y: Int, channel c: Int) -> Double {
        Double(Self.halfValues[Int(samples[(y * width + x) * 4 + c])])
    }

    /// Thumbnail height for `targetWidth`: the picture's aspect (of its
    /// stored pixels), rounded, at least 1.
    static func scaledHeight(width: Int, height: Int, forWidth targetWidth: Int) -> Int {
        max(1, Int((Double(height) * Double(targetWidth) / Double(width)).rounded()))
    }

    /// The size of the thumbnail `downscaled(toWidth: targetWidth)` makes.
    static func thumbnailSize(width: Int, height: Int, forWidth targetWidth: Int) -> (width: Int, height: Int) {
        (targetWidth, min(height, scaledHeight(width: width, height: height, forWidth: targetWidth)))
    }

    /// A box filter to `targetWidth` (≤ width) and the height that keeps the
    /// aspect: each output pixel is the area-weighted mean of the source
    /// pixels its footprint covers (fractional edges weigh by the fraction
    /// covered), on linear values in Double. Colour is averaged premultiplied
    /// by alpha (a transparent pixel's colour does not bleed into its
    /// neighbours), then divided by the mean alpha again. The same size
    /// returns the picture unchanged. The reference for the device's
    /// `PreviewThumbnailPass`, which previews use.
    func downscaled(toWidth targetWidth: Int) -> PreviewImage {
        precondition(targetWidth >= 1 && targetWidth <= width, "thumbnails are never enlarged")
        let targetHeight = Self.thumbnailSize(width: width, height: height, forWidth: targetWidth).height
        if targetWidth == width && targetHeight == height { return self }
        let columns = Self.boxWeights(source: width, target: targetWidth)
        let rows = Self.boxWeights(source: height, target: targetHeight)
        var out = [UInt16](repeating: 0, count: targetWidth * targetHeight * 4)
        var horizontal = [Double](repeating: 0, count: targetWidth * 4)
        var accumulated = [Double](repeating: 0, count: targetWidth * 4)
        let half = Self.halfValues
        half.withUnsafeBufferPointer { half in
            samples.withUnsafeBufferPointer { source in
                func value(_ i: Int) -> Double { Double(half[Int(source[i])]) }
                for (oy, rowWeights) in rows.enumerated() {
                    for i in accumulated.indices { accumulated[i] = 0 }
                    for (sy, wy) in rowWeights {
                        for (ox, columnWeights) in columns.enumerated() {
                            var r = 0.0
                            var g = 0.0
                            var b = 0.0
                            var a = 0.0
                            for (sx, wx) in columnWeights {
                                let p = (sy * width + sx) * 4
                                let alpha = min(max(value(p + 3), 0), 1) * wx
                                r += value(p) * alpha
                                g += value(p + 1) * alpha
                                b += value(p + 2) * alpha
                                a += alpha
                            }
                            horizontal[ox * 4] = r
                            horizontal[ox * 4 + 1] = g
                            horizontal[ox * 4 + 2] = b
                            horizontal[ox * 4 + 3] = a
                        }
                        for i in accumulated.indices { accumulated[i] += horizontal[i] * wy }
                    }
                    for ox in 0..<targetWidth {
                        let a = accumulated[ox * 4 + 3]
                        let o = (oy * targetWidth + ox) * 4
                        for c in 0..<3 { out[o + c] = Float16(a > 0 ? accumulated[ox * 4 + c] / a : 0).bitPattern }
                        out[o + 3] = Float16(a).bitPattern
                    }
                }
            }
        }
        return PreviewImage(width: targetWidth, height: targetHeight, samples: out)
    }

    /// For each of `target` output cells over `source` cells: the source
    /// cells its footprint [o·s, (o+1)·s) covers (s = source/target) and the
    /// fraction of the footprint each covers (they sum to 1).
    static func boxWeights(source: Int, target: Int) -> [[(index: Int, weight: Double)]] {
        let scale = Double(source) / Double(target)
        return (0..<target).map { o in
            let start = Double(o) * scale
            let end = Double(o + 1) * scale
            var weights: [(index: Int, weight: Double)] = []
            var i = Int(start.rounded(.down))
            while Double(i) < end && i < source {
                let covered = min(Double(i + 1), end) - max(Double(i), start)
                if covered > 1e-12 { weights.append((i, covered / scale)) }
                i += 1
            }
            return weights
        }
    }
}
