/// How many frames the GPU decoder puts in a batch, from the frame's size,
/// the stream's length and the device's limits rather than a constant.
/// Measured on the H200 (BENCHMARKS.md §7, `bench --batch`): a batch must
/// give every host core a frame to parse (8 frames of 4K ran at 3,530 fps
/// on 16 cores, 16 at 5,365), and each batch has a fixed cost (fills,
/// barriers, timestamps, a submission), so frames go on doubling until a
/// batch writes about a gigabyte: 1080p 16 frames 17,164 fps, 32 frames
/// 23,239; 4K 422 HQ 16 frames 6,972, 32 frames 7,341 (once the staging
/// copy had gone; before it, 32 gained only 1.5%). 64 frames of 1080p were
/// no better than 32. A short stream keeps batches small enough to fill
/// the slots' pipeline: a 48-frame file in one or two big batches would
/// leave the engines waiting on each other, and pay for bigger buffers.
package enum DecoderBatchSize {
    /// Output a batch should reach at least (a gigabyte), when the limits allow.
    static let targetOutputBytes = 1_000_000_000
    static let maximumFrames = 32

    /// - Parameters:
    ///   - frameOutputBytes: one decoded frame's packed surface.
    ///   - frameWorkBytes: everything one frame takes on the device per slot
    ///     (coefficients, surface, compressed input).
    ///   - largestBindingFrames: frames whose coefficients and surfaces each
    ///     fit one storage-buffer binding (`maxStorageBufferRange`).
    ///   - deviceLocalBytes: the device-local heap; all slots together take
    ///     at most a quarter of it.
    ///   - streamFrames: the stream's length when the container says it;
    ///     batches past the floor stay at most a `2 × slots`-th of it.
    package static func frames(frameOutputBytes: Int, frameWorkBytes: Int, largestBindingFrames: Int, deviceLocalBytes: UInt64,
                               slots: Int, hostCores: Int, streamFrames: Int? = nil) -> Int {
        let floor = max(16, hostCores)
        var frames = floor
        while frames < maximumFrames && frames * frameOutputBytes < targetOutputBytes { frames *= 2 }
        if let streamFrames { frames = max(floor, min(frames, streamFrames / (2 * max(1, slots)))) }
        let memoryFrames = Int(min(deviceLocalBytes / 4, UInt64(Int.max))) / max(1, slots * frameWorkBytes)
        return max(1, min(frames, maximumFrames, largestBindingFrames, memoryFrames))
    }
}
