import GPUKit
import ProResCore

/// Recording a batch's transform: in its own submission, or held and put
/// into the next batch's command buffer beside its entropy pass
/// (`encode(holdTransform:)`).
extension GPUProResDecoder {
    /// Submits the held batch's transform on its own (the session has no
    /// next batch to put it beside), if one is held.
    func releaseHeldTransform() throws {
        guard let work = heldTransform else { return }
        heldTransform = nil
        try submitAlone(work)
    }

    /// `work`'s transform in a submission of its own, which completes its slot.
    func submitAlone(_ work: TransformWork) throws {
        let cb = try transforms.begin(work.slot)
        transformStamps(work)?.start(cb, slot: work.slot)
        recordTransform(work, into: cb)
        markTransform(work, in: cb)
        slots[work.slot].completion = (transforms, try transforms.submit(cb))
    }

    /// What a batch's transform needs once its entropy pass is recorded.
    struct TransformWork {
        let slot: Int
        let input: VulkanBuffer
        /// The coefficient set its entropy pass wrote, and the surfaces it writes.
        let coefficients: VulkanBuffer
        let surfaces: VulkanBuffer
        /// Host surfaces (imported) and where each frame starts in the batch's surfaces.
        let targets: [(buffer: VulkanBuffer, offset: Int)]
        let frames: Int, maxSlices: Int, maxLog2: Int
        let tablesOffset: Int, slicesBytes: Int, framesOffset: Int, framesBytes: Int
        let coefficientBytes: Int, statusBytes: Int, surfaceBytes: Int
        /// Whether its batch has its stages timed (`GPUProResDecoder.timesStages(ofBatch:)`).
        let timed: Bool
    }

    /// The transform's timestamps, where its batch is timed.
    func transformStamps(_ work: TransformWork) -> TimestampQueries? {
        work.timed ? transformTimestamps : nil
    }

    /// The transform, the passes that read its surfaces and the copies into host surfaces.
    func recordTransform(_ work: TransformWork, into cb: CommandBuffer) {
        let slot = slots[work.slot]
        let index = work.slot
        if work.frames > 0 {
            let rows =
                (work.maxSlices + DecoderKernels.transformSlicesPerRow - 1) / DecoderKernels.transformSlicesPerRow
            cb.dispatch(
                transformPass, set: slot.transformSet,
                buffers: [
                    BufferRange(work.input, offset: work.tablesOffset, bytes: work.slicesBytes),
                    BufferRange(work.input, offset: work.framesOffset, bytes: work.framesBytes),
                    BufferRange(work.coefficients, bytes: work.coefficientBytes),
                    BufferRange(slot.status!, bytes: work.statusBytes),
                    BufferRange(work.surfaces, bytes: work.surfaceBytes),
                    BufferRange(slot.statusReport!, bytes: work.statusBytes),
                ],
                push: [
                    .uint(format.width), .uint(format.height), .uint(surfaceLayout.planes[0].bytesPerRow / 8),
                    .uint(work.maxLog2),
                ],
                groups: (DecoderKernels.transformSlicesPerRow << work.maxLog2, rows, work.frames))
            let surfaces = BufferRange(work.surfaces, bytes: work.surfaceBytes)
            if let hashPass, let results = slot.results {
                hashPass.record(
                    cb, slot: index, surfaces: surfaces, surfaceStride: surfaceStride, frames: work.frames,
                    results: BufferRange(results, bytes: work.frames * hashPass.resultBytesPerFrame))
            }
            if let statisticsPass, let results = slot.results {
                statisticsPass.record(
                    cb, slot: index, surfaces: surfaces, surfaceStride: surfaceStride, frames: work.frames,
                    results: BufferRange(
                        results, offset: statisticsResultsOffset,
                        bytes: work.frames * statisticsPass.resultBytesPerFrame))
            }
        }
    }

    /// The transform's marks and its copies into host surfaces (after the
    /// mark that closes the transform's span, which they would otherwise join).
    func markTransform(_ work: TransformWork, in cb: CommandBuffer) {
        transformStamps(work)?.mark(cb, slot: work.slot, 1, after: .compute)
        for target in work.targets {
            cb.copy(work.surfaces, offset: target.offset, to: target.buffer, bytes: surfaceLayout.byteCount)
        }
        transformStamps(work)?.mark(cb, slot: work.slot, 2, after: .transfer)
    }
}
