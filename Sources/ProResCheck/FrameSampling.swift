import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// `--sample N`: which frames of a clip to check when not all of them.
///
/// Why evenly spaced and always including the first and last frame: a
/// truncated or badly ended file shows at its end, a broken head at its start.
enum FrameSampling {
    /// round(i·(count−1)/(n−1)) for i = 0..<n (halves round up), distinct and
    /// ascending; every frame when n ≥ count; frame 0 alone when n = 1.
    public static func indices(count: Int, samples n: Int) -> [Int] {
        precondition(n >= 1, "at least one sample")
        guard count > 0 else { return [] }
        guard n < count else { return Array(0..<count) }
        guard n > 1 else { return [0] }
        // Integer arithmetic: exact for any count, no floating-point ties.
        return (0..<n).map { i in (2 * i * (count - 1) + (n - 1)) / (2 * (n - 1)) }
    }
}
