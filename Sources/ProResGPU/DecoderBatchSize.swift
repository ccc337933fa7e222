/// How many frames the GPU decoder puts in a batch, from the frame's size
/// and the device's limits rather than a constant. Measured on the H200
/// (BENCHMARKS.md §7, `bench --batch`): a batch must give every host core a
/// frame to parse and stage (8 frames of 4K ran at 3,530 fps on 16 cores,
/// 16 at 5,365), and small frames want more of them, since each batch has
/// a fixed cost (1080p: 16 frames 15,400 fps, 32 frames 20,000, 64 no
/// better); past a few hundred MB of output a batch gains nothing (4K: 32
/// frames +1.5%, 64 −3%).
package enum DecoderBatchSize {
    /// Output a batch should reach at least (a quarter of a gigabyte), when the limits allow.
    static let targetOutputBytes = 250_000_000
    static let maximumFrames = 64

    /// - Parameters:
    ///   - frameOutputBytes: one decoded frame's packed surface.
    ///   - frameWorkBytes: everything one frame takes on the device per slot
    ///     (coefficients, surface, compressed input).
    ///   - largestBindingFrames: frames whose coefficients and surfaces each
    ///     fit one storage-buffer binding (`maxStorageBufferRange`).
    ///   - deviceLocalBytes: the device-local heap; all slots together take
    ///     at most a quarter of it.
    package static func frames(frameOutputBytes: Int, frameWorkBytes: Int, largestBindingFrames: Int, deviceLocalBytes: UInt64,
                               slots: Int, hostCores: Int) -> Int {
        var frames = max(16, hostCores)
        while frames < maximumFrames && frames * frameOutputBytes < targetOutputBytes { frames *= 2 }
        let memoryFrames = Int(min(deviceLocalBytes / 4, UInt64(Int.max))) / max(1, slots * frameWorkBytes)
        return max(1, min(frames, maximumFrames, largestBindingFrames, memoryFrames))
    }
}
