/// How many frames the GPU decoder puts in a batch, from the frame's size,
/// the stream's length and the device's limits rather than a constant.
/// Measured on the H200 (`bench --batch`): a batch must
/// give every host core a frame to parse (8 frames of 4K ran at 3,530 fps
/// on 16 cores, 16 at 5,365). Past that, bigger batches pay a fixed cost
/// and win a rate: 32 frames of 4K 422 HQ decoded 7% faster in the steady
/// state (7,457 against 6,960 fps) but made a 1,200–1,920-frame file
/// ~0.1 s slower as a whole (the slots' buffers are twice as large, and
/// the first batch waits for twice the frames); even with the buffers
/// shared and allocated cheaply it is 0.02–0.06 s
/// slower for 1,920 frames (`PRORES_DECODE_BATCH=32`). So a batch grows past the
/// floor, doubling until it writes about a gigabyte (at most 32 frames),
/// only for a stream of at least `longStream` frames, where 7% of its
/// decoding time outweighs 0.1 s; 1080p, whose 16-frame batches write
/// 133 MB, grows to 32 for any stream (17,164 → 23,239 fps).
package enum DecoderBatchSize {
    /// Output a batch should reach at least (a gigabyte), when the limits allow.
    static let targetOutputBytes = 1_000_000_000
    static let maximumFrames = 32
    /// Frames from which batches may pass a quarter of a gigabyte.
    static let longStream = 10_000
    static let smallBatchBytes = 250_000_000

    /// - Parameters:
    ///   - frameOutputBytes: one decoded frame's packed surface.
    ///   - frameWorkBytes: everything one frame takes on the device per slot
    ///     (coefficients, surface, compressed input).
    ///   - largestBindingFrames: frames whose coefficients and surfaces each
    ///     fit one storage-buffer binding (`maxStorageBufferRange`).
    ///   - deviceLocalBytes: the device-local heap; all slots together take
    ///     at most a quarter of it.
    ///   - streamFrames: the stream's length when the container says it;
    ///     batches past the floor stay at most a `2 × slots`-th of it, and
    ///     pass a quarter of a gigabyte only from `longStream` frames.
    package static func frames(
        frameOutputBytes: Int, frameWorkBytes: Int, largestBindingFrames: Int, deviceLocalBytes: UInt64,
        slots: Int, hostCores: Int, streamFrames: Int? = nil
    ) -> Int {
        let floor = max(16, hostCores)
        var frames = floor
        let target = (streamFrames ?? 0) >= longStream ? targetOutputBytes : smallBatchBytes
        while frames < maximumFrames && frames * frameOutputBytes < target { frames *= 2 }
        if let streamFrames { frames = max(floor, min(frames, streamFrames / (2 * max(1, slots)))) }
        let memoryFrames = Int(min(deviceLocalBytes / 4, UInt64(Int.max))) / max(1, slots * frameWorkBytes)
        return max(1, min(frames, maximumFrames, largestBindingFrames, memoryFrames))
    }
}
