/// Which Y′ codes count as dark, and how many dark pixels make a frame
/// black: the measure of FFmpeg's `blackdetect` at its defaults (pix_th
/// 0.10, pic_th 0.98). A pixel is dark when its Y′ is at or below black +
/// 10% of the black..white span: video range 16 + 0.10 · 219 in 8-bit
/// terms, scaled by 2^(depth − 8) (151.6 at 10 bits), full range 0.10 ·
/// (2^depth − 1) (102.3 at 10 bits), worked in Double and truncated to a
/// code (151, 102) as `blackdetect` does. A frame is black when at least
/// 98% of its pixels are dark.
///
/// Why a count of pixels rather than the mean: a black frame with a small
/// logo, or with noise, has a mean above black and is still black to the
/// eye and to `blackdetect`; the count is one comparison a pixel in the pass
/// that already reads every Y′ sample.
public enum DarkPixels {
    /// The share of the black..white span below which a pixel is dark.
    public static let pixelShare = 0.10
    /// The share of dark pixels that makes a frame black.
    public static let pictureShare = 0.98

    /// The largest dark Y′ code at `bitDepth` (8 to 16 bits).
    public static func threshold(range: ColorRange, bitDepth: Int) -> Int {
        let factor = Double(1 << (bitDepth - 8))
        let level =
            range == .full
            ? pixelShare * Double((1 << bitDepth) - 1)
            : 16 * factor + pixelShare * 219 * factor
        return Int(level)
    }

    /// Whether `dark` dark pixels of `pixels` make a black frame.
    public static func isBlack(dark: UInt64, of pixels: UInt64) -> Bool {
        pixels > 0 && Double(dark) / Double(pixels) >= pictureShare
    }
}
