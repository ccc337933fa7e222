import Foundation
import GPUKit
import HostSupport
import ProResCore

/// Our ProRes decoder in Vulkan compute, bit-exact with FFmpeg's software
/// decoder: batches of frames go through two dispatches, entropy decoding
/// (`prores_vld.comp`, one invocation per slice and component) and
/// dequantisation + IDCT (`prores_idct.comp`, one workgroup per macroblock),
/// which writes the stream's native packed layout (v216 or y416) into
/// device-local surfaces. Several batches are in flight, each in its own
/// slot (buffers, descriptor sets, command buffer), reused without any
/// per-frame Vulkan object creation.
///
/// The CPU parses frame and picture headers (`SliceTable`) and writes the
/// slice and frame tables into the slot's mapped staging buffer. A discrete
/// GPU takes the compressed bytes by DMA, on its transfer queue where it has
/// one (so that a batch's upload runs while the previous batch is being
/// decoded): straight from the sample memory the file reader put them in,
/// whose regions are imported once (`UploadPath.fromSampleMemory`), or from
/// the staging buffer for frames in other memory, which the CPU copies
/// there. A device that shares the host's memory reads the staging buffer
/// in place. Host surfaces, when asked for, are imported into Vulkan (the
/// texture cache) and filled by DMA, never by the CPU.
package final class GPUProResDecoder {
    /// What became of one frame of a batch, once its GPU work completed.
    struct Output {
        /// Set when the frame could not be decoded at all.
        let failure: String?
        /// The decoded frame on the GPU (when asked for and decoded).
        let deviceSurface: DeviceSurface?
        /// Slices FFmpeg would not decode either, concealed as it does.
        let damagedSlices: Int
        let header: ProResFrameHeader?
        /// What the analysis passes measured (when asked for and decoded).
        let analysis: FrameAnalysis?
        /// The frame ended with its first field; the second was concealed.
        let missingSecondField: Bool
        /// Alpha promised, but some slices carry none (made opaque).
        let missingAlpha: Bool
        /// A block left the range where FFmpeg's C and x86 SIMD IDCTs agree.
        let decodersMayDiffer: Bool
    }

    /// The bits of a slice's reported word: components that failed, and
    /// `mayDifferFlag` where a block of it may differ from FFmpeg's x86
    /// SIMD IDCT (prores_idct.comp sets it).
    static let failedComponents: UInt32 = 15
    static let mayDifferFlag: UInt32 = 16

    /// GPU time of one batch, from timestamp queries (µs).
    package struct BatchTiming {
        package let frames: Int
        /// CPU wall time (µs) parsing the batch's headers, and staging its
        /// bytes and tables, on all cores.
        package let parse: Double
        package let stage: Double
        /// The DMA of the compressed bytes (on the transfer queue, when
        /// there is one, beside the compute work rather than before it).
        package let upload: Double
        /// Zeroing the per-slice status flags.
        package let zeroFill: Double
        package let entropy: Double
        package let transform: Double
        package let readback: Double
    }

    let context: VulkanContext
    let format: FormatDescription
    let layout: PackedLayout
    let surfaceLayout: SurfaceLayout
    let framesPerBatch: Int

    let entropyPass: Kernel
    let transformPass: Kernel
    /// `check`'s measurements, recorded after the transform on the batch's
    /// surfaces; a few bytes a frame come back (`Slot.results`).
    let hashPass: FrameHashPass?
    let statisticsPass: FrameStatisticsPass?
    /// Where the statistics' results start in a slot's results buffer.
    let statisticsResultsOffset: Int
    /// The uploads' copy (without a transfer queue), zeroing and entropy decoding.
    let recorder: CommandRecorder
    /// The transform and what reads its surfaces: on the context's second
    /// compute queue when it has one, else on the first, after the entropy.
    let transforms: CommandRecorder
    /// Submissions to the transfer queue (the uploads), where there is one.
    let uploads: CommandRecorder?

    /// Its queue waits behind other jobs' work go to `ledger` (`QueueOrder`):
    /// a decoder kept on the device serves one job after another.
    func chargeQueueWaits(to ledger: WaitLedger?) {
        for each in [recorder, transforms, uploads].compactMap({ $0 }) { each.chargeQueueWaits(to: ledger) }
    }
    let cache: TextureCache
    /// Per slot: start, uploaded (on this queue), zeroed, entropy decoded.
    let timestamps: TimestampQueries?
    /// Per slot, where the transforms run: start, transformed, copied back.
    let transformTimestamps: TimestampQueries?
    /// Per slot, on the transfer queue: start, uploaded.
    let uploadTimestamps: TimestampQueries?
    var slots: [Slot] = []
    /// A batch whose entropy pass is submitted and whose transform waits for
    /// the next batch's command buffer (`encode(holdTransform:)`).
    var heldTransform: TransformWork?
    /// How compressed bytes reach the GPU.
    let upload: UploadPath
    /// Sample-memory regions imported into the device (the device's,
    /// shared by its decoders, or this decoder's own).
    let regionImports: HostRegionImports
    /// Frames uploaded from imported sample memory, and staged (read once
    /// the batches are done: only the submitting thread writes them).
    package private(set) var uploadedInPlace = 0, staged = 0
    /// What the input took from host memory so far (written as `staged`).
    package private(set) var linkTraffic = LinkTraffic()
    /// Batches whose transform was held for the next batch's command buffer.
    package private(set) var heldTransforms = 0
    /// Every surface batch made so far: each slot's, and those still read
    /// by a consumer. Bounded by the frames in flight. One in all when the
    /// frames are not handed out (`deliversSurfaces`).
    var surfaceBatches: [DeviceSurfaceBatch] = []
    /// Whether `complete` hands out each frame's device-local surface
    /// (`--vulkan`). When it does not, nothing outside the decoder reads a
    /// batch's surfaces after its own submission (readback copies and
    /// analysis passes ride in it), so every slot shares one set of
    /// surfaces, each batch's transform waiting for the last one's readers
    /// (`ResourceState`).
    let deliversSurfaces: Bool
    /// The entropy pass's output, two sets used in turn by consecutive
    /// batches rather than one a slot: a batch's coefficients are read by
    /// its transform, which is recorded at the latest beside the next
    /// batch's entropy pass, so the batch after that may overwrite them
    /// (waiting for that transform, which the GPU has by then run anyway).
    /// At 4K 422 HQ a set is 530 MB; on the H200 a plain allocation of
    /// device memory costs ~39 ms a gigabyte (a dedicated one, which every
    /// large buffer gets, ~2), and the kernel's taking it back at exit
    /// grows with it.
    var coefficientSets: [VulkanBuffer?] = [nil, nil]
    /// The batches whose stages are timed: the first `alwaysTimedBatches`
    /// (a short file still gets its stage times), then one in
    /// `timedBatchInterval`. Why not every batch: a timestamp written after
    /// a stage waits for all the queue's earlier work of that stage, so each
    /// timed batch drains the GPU before the next batch's entropy pass may
    /// start beside the last one's stragglers: timing every batch costs a
    /// fast GPU 10–24% of its rate. `PRORES_DECODE_TIMESTAMPS=N`
    /// (`Tuning.timestampInterval`) times one batch in N after the first
    /// ones (1: every batch; 0: none).
    static let alwaysTimedBatches = 4
    let timedBatchInterval: Int

    func timesStages(ofBatch number: Int) -> Bool {
        guard timedBatchInterval > 0 else { return false }
        return number < Self.alwaysTimedBatches || number % timedBatchInterval == 0
    }
    /// Batches encoded so far: which coefficient set the next one takes.
    var encodedBatches = 0
    let surfaceStride: Int
    let coefficientsPerFrame: Int
    /// The most slices a frame can have (one macroblock each).
    let macroblocksPerFrame: Int

    final class Slot {
        let entropySet: BindingSet
        let transformSet: BindingSet
        var staging: VulkanBuffer?
        var deviceInput: VulkanBuffer?
        var status: VulkanBuffer?
        /// The transform's copy of `status`, host-visible.
        var statusReport: VulkanBuffer?
        /// The analysis passes' results, host-visible.
        var results: VulkanBuffer?
        var surfaces: DeviceSurfaceBatch?
        /// The submission that completes the slot's batch: its transform's.
        var completion: (recorder: CommandRecorder, value: UInt64)?
        /// Per input frame; `surface` is its place in the batch's surfaces (nil when it failed).
        var frames: [FrameEntry] = []
        var parseMicroseconds = 0.0
        /// Whether the batch in the slot has its stages timed (`timesStages`).
        var timed = false
        var stageMicroseconds = 0.0
        init(entropySet: BindingSet, transformSet: BindingSet) {
            self.entropySet = entropySet
            self.transformSet = transformSet
        }
    }

    static let alignment = 256
    /// Zero bytes after each frame: the bit reader looks up to 5 bytes past a
    /// component, as FFmpeg's does into its packet padding.
    static let framePadding = 64

    /// A frame's room in the bitstream buffer: its bytes, the padding, word-aligned.
    static func paddedSize(_ bytes: Int) -> Int { (bytes + framePadding + 3) & ~3 }

    /// Whether this decoder handles the stream; nil if it does, else why not.
    package static func unsupportedReason(_ format: FormatDescription) -> String? {
        if format.chroma == .c422 && format.hasAlpha {
            return "4:2:2 with alpha has no packed layout that keeps the alpha (v216 has none)"
        }
        return nil
    }

    /// `expectedFrameBytes`: allocate every slot's buffers now, for frames
    /// of up to that size, instead of during the first batches.
    /// `analysis`: measure every decoded frame on the device (`check`).
    /// `deliversSurfaces`: `complete` hands out each frame's device surface.
    init(
        context: VulkanContext, kernels: KernelCache, format: FormatDescription, slots slotCount: Int = 3,
        framesPerBatch requested: Int? = nil, expectedFrames: Int? = nil, expectedFrameBytes: Int? = nil,
        analysis: AnalysisRequest? = nil,
        upload requestedUpload: UploadPath? = nil, deliversSurfaces: Bool = false,
        regionImports: HostRegionImports? = nil, timedBatchInterval: Int = 16
    ) throws {
        if let reason = Self.unsupportedReason(format) {
            throw ProResDecodeError.decoderUnavailable("GPU decoder: \(reason)")
        }
        guard context.info.storage16Bit else {
            throw ProResDecodeError.decoderUnavailable(
                "GPU decoder: \(context.info.name) lacks 16-bit storage buffers (storageBuffer16BitAccess)")
        }
        self.context = context
        self.format = format
        self.deliversSurfaces = deliversSurfaces
        self.timedBatchInterval = timedBatchInterval
        layout = format.nativePackedLayout
        surfaceLayout = .packed(layout, width: format.width, height: format.height)
        surfaceStride = Self.align(surfaceLayout.byteCount)
        let mbWidth = (format.width + 15) >> 4
        let mbRows = format.fieldOrder == .progressive ? (format.height + 15) >> 4 : 2 * ((format.height + 31) >> 5)
        coefficientsPerFrame =
            mbWidth * mbRows * SliceTable.coefficientsPerMacroblock(format.chroma, alpha: format.hasAlpha)
        macroblocksPerFrame = mbWidth * mbRows
        framesPerBatch = try Self.batchFrames(
            requested: requested, format: format, context: context, coefficientsPerFrame: coefficientsPerFrame,
            surfaceStride: surfaceStride, slots: slotCount, expectedFrames: expectedFrames)

        entropyPass = try kernels.kernel(DecoderKernels.entropy(format))
        transformPass = try kernels.kernel(DecoderKernels.transform(format))
        recorder = try CommandRecorder(context: context, count: slotCount)
        transforms = try CommandRecorder(context: context, count: slotCount)
        // A transfer queue exists only on a discrete GPU, the one kind that uploads.
        uploads =
            context.transferQueue != nil
            ? try CommandRecorder(context: context, count: slotCount, queue: .transfer) : nil
        cache = TextureCache(context: context)
        upload = UploadPath(requestedUpload, sharesHostMemory: context.sharesHostMemory, canImport: cache.canImport)
        self.regionImports = regionImports ?? HostRegionImports(context: context)
        let planar = format.nativeFormat
        let packed = format.nativePackedLayout
        let batch = framesPerBatch
        let hashPass =
            analysis?.hash == true
            ? try FrameHashPass(
                kernels: kernels, format: planar, layout: packed, width: format.width, height: format.height,
                slots: slotCount,
                message: analysis?.hashedLayout)
            : nil
        let statisticsPass = try analysis?.statistics.map {
            try FrameStatisticsPass(
                kernels: kernels, format: planar, layout: packed, width: format.width, height: format.height,
                range: $0.range, light: $0.light, gamut: $0.gamut, slots: slotCount)
        }
        self.hashPass = hashPass
        self.statisticsPass = statisticsPass
        statisticsResultsOffset = Self.align(batch * (hashPass?.resultBytesPerFrame ?? 0))
        let resultsBytes = statisticsResultsOffset + batch * (statisticsPass?.resultBytesPerFrame ?? 0)
        let entropySets = try entropyPass.makeBindingSets(slotCount)
        let transformSets = try transformPass.makeBindingSets(slotCount)
        slots = (0..<slotCount).map { Slot(entropySet: entropySets[$0], transformSet: transformSets[$0]) }
        if analysis != nil {
            for slot in slots {
                slot.results = try VulkanBuffer(
                    context, size: max(16, resultsBytes), usage: .storage, memory: .hostReadback)
            }
        }
        timestamps = try TimestampQueries.make(context, slots: slotCount, perSlot: 4)
        transformTimestamps = try TimestampQueries.make(context, slots: slotCount, perSlot: 3)
        uploadTimestamps =
            uploads == nil ? nil : try TimestampQueries.make(context, slots: slotCount, perSlot: 2, queue: .transfer)
        if let expectedFrameBytes { for slot in slots { try reserve(slot, frameBytes: expectedFrameBytes) } }
    }

    /// Frames a batch holds: `requested`, else `DecoderBatchSize`'s choice,
    /// within one storage-buffer binding and the slice table's frame field.
    private static func batchFrames(
        requested: Int?, format: FormatDescription, context: VulkanContext, coefficientsPerFrame: Int,
        surfaceStride: Int, slots: Int, expectedFrames: Int?
    ) throws -> Int {
        // A batch's coefficients and surfaces must each fit one storage-buffer binding.
        let range = Int(min(context.info.maxStorageBufferRange, 1 << 31))
        let fitting = min(range / (coefficientsPerFrame * 2), range / surfaceStride)
        guard fitting >= 1 else {
            throw ProResDecodeError.decoderUnavailable(
                "GPU decoder: a \(format.width)x\(format.height) frame needs more than the "
                    + "\(range >> 20) MiB storage buffers \(context.info.name) allows")
        }
        // The slice table numbers a batch's frames in its `frame` field.
        let chosen =
            requested
            ?? DecoderBatchSize.frames(
                frameOutputBytes: surfaceStride, frameWorkBytes: coefficientsPerFrame * 2 + 2 * surfaceStride,
                largestBindingFrames: fitting, deviceLocalBytes: context.info.deviceLocalBytes, slots: slots,
                hostCores: ProcessInfo.processInfo.activeProcessorCount,
                streamFrames: expectedFrames ?? format.frameCount)
        return max(1, min(chosen, fitting, Int(DecoderKernels.Slice.frame.mask) + 1))
    }

    deinit {
        // Every submission, not only each slot's completion: a batch whose
        // transform was held has its entropy pass submitted and no
        // completion yet, and a session that failed never releases it.
        // Freeing its slot under it crashed lavapipe (CI, a full disk).
        for recorder in [recorder, transforms] + (uploads.map { [$0] } ?? []) where recorder.submittedValue > 0 {
            try? recorder.wait(for: recorder.submittedValue)
        }
        slots.removeAll()
    }

    /// What became of one input frame once parsed; `surface` is its place
    /// in the batch's surfaces (nil when it failed).
    typealias FrameEntry = (
        failure: String?, invalidSlices: Int, slices: Range<Int>, header: ProResFrameHeader?, surface: Int?,
        missingSecondField: Bool, missingAlpha: Bool
    )

    /// A batch parsed and laid out but not yet staged. Preparing needs no
    /// slot, so the session parses the next batch on its own thread while
    /// this one is staged: parsing is compute and staging memory bandwidth,
    /// and on the H200 host each took about as long as the GPU's work.
    struct PreparedBatch {
        /// Each frame's compressed bytes.
        let compressed: [UnsafeRawBufferPointer]
        let parsed: [Result<SliceTable, Error>]
        let frames: [FrameEntry]
        let offsets: [Int], firstSlices: [Int], firstCoefficients: [Int]
        let bitstreamBytes: Int, sliceCount: Int, coefficientCount: Int
        let decodedFrames: Int, maxSlices: Int, maxLog2: Int
        /// Per input: where its decoded frame starts in the batch's surfaces (nil when it failed).
        let surfaceOffsets: [Int?]
        let parseMicroseconds: Double
    }

    /// Parses the `compressed` frames (at most `framesPerBatch`) on all cores and lays the batch out.
    func prepare(_ compressed: [UnsafeRawBufferPointer]) -> PreparedBatch {
        precondition(compressed.count <= framesPerBatch)
        let geometry = SliceTable.Geometry(width: format.width, height: format.height, chroma: format.chroma)

        // Frames parse independently: on all cores.
        let parseStart = monotonicNanoseconds()
        var parsed = [Result<SliceTable, Error>?](repeating: nil, count: compressed.count)
        parsed.withUnsafeMutableBufferPointer { results in
            parallelFor(compressed.count) { i in
                results[i] = Result { try SliceTable(frame: compressed[i], geometry: geometry) }
            }
        }
        let parseMicroseconds = Double(monotonicNanoseconds() - parseStart) / 1000
        // Layout: the bitstream (each frame padded), then slice and frame tables.
        var offsets: [Int] = []
        var firstSlices: [Int] = []
        var firstCoefficients: [Int] = []
        var entries: [FrameEntry] = []
        var bitstreamBytes = 0
        var sliceCount = 0
        var coefficientCount = 0
        var frames = 0
        var maxSlices = 0
        var maxLog2 = 0
        var surfaceOffsets: [Int?] = []
        for (i, bytes) in compressed.enumerated() {
            offsets.append(bitstreamBytes)
            bitstreamBytes += Self.paddedSize(bytes.count)
            firstSlices.append(sliceCount)
            firstCoefficients.append(coefficientCount)
            switch parsed[i]! {
            case .success(let table):
                entries.append(
                    (
                        nil, table.invalidSlices, sliceCount..<sliceCount + table.sliceCount, table.header, frames,
                        table.missingSecondField, table.missingAlpha
                    ))
                surfaceOffsets.append(frames * surfaceStride)
                frames += 1
                sliceCount += table.sliceCount
                coefficientCount += table.coefficientCount
                maxSlices = max(maxSlices, table.sliceCount)
                maxLog2 = max(maxLog2, table.maxLog2SliceWidth)
            case .failure(let error):
                entries.append(("\(error)", 0, sliceCount..<sliceCount, nil, nil, false, false))
                surfaceOffsets.append(nil)
            }
        }
        return PreparedBatch(
            compressed: compressed, parsed: parsed.map { $0! }, frames: entries, offsets: offsets,
            firstSlices: firstSlices,
            firstCoefficients: firstCoefficients, bitstreamBytes: bitstreamBytes, sliceCount: sliceCount,
            coefficientCount: coefficientCount, decodedFrames: frames, maxSlices: maxSlices, maxLog2: maxLog2,
            surfaceOffsets: surfaceOffsets, parseMicroseconds: parseMicroseconds)
    }

    /// Copies a prepared batch into slot `index`'s staging memory and
    /// submits its decoding; `hostSurfaces` (one per input, or none) receive
    /// the decoded frames. The slot must be free (`complete` was called for
    /// its previous batch).
    /// `holdTransform`: leave this batch's transform to be recorded beside
    /// the next batch's entropy pass (the next `encode`, or
    /// `releaseHeldTransform`); this submission completes the batch held
    /// before, if any.
    func encode(slot index: Int, _ batch: PreparedBatch, hostSurfaces: [PixelBuffer?] = [], holdTransform: Bool = false)
        throws
    {
        let slot = slots[index]
        let targets = zip(hostSurfaces, batch.surfaceOffsets).compactMap { surface, offset in
            surface.flatMap { surface in offset.map { (surface: surface, offset: $0) } }
        }
        slot.frames = batch.frames
        slot.parseMicroseconds = batch.parseMicroseconds
        let timed = timesStages(ofBatch: encodedBatches)
        slot.timed = timed
        if !targets.isEmpty && !cache.canImport {
            throw ProResDecodeError.decoderUnavailable(
                "GPU decoder: \(context.info.name) cannot import host memory (VK_EXT_external_memory_host)")
        }
        let input = try stage(batch, into: slot)
        let statusBytes = max(4, batch.sliceCount * 4)
        try ensureWorkBuffers(slot, input: input.inputBytes, status: statusBytes)
        let coefficientBytes = max(4, batch.coefficientCount * 2)  // 16-bit; regions are multiples of 64
        let coefficients = try coefficientSet(encodedBatches % coefficientSets.count, bytes: coefficientBytes)
        encodedBatches += 1
        let inputBuffer = slot.deviceInput ?? slot.staging!
        let regions = uploadRegions(batch, input)
        func recordUpload(_ cb: CommandBuffer, to device: VulkanBuffer) {
            cb.copy(slot.staging!, to: device, regions: regions.staged)
            for (buffer, regions) in regions.imported.values { cb.copy(buffer, to: device, regions: regions) }
        }

        // The upload: on the transfer queue, whose copy the compute work
        // waits for only where it first reads the bytes (derived from the
        // buffer's last write); else first in the compute command buffer.
        let uploadStamps = timed ? uploadTimestamps : nil
        if let device = slot.deviceInput, let uploads {
            let upload = try uploads.begin(index)
            uploadStamps?.start(upload, slot: index)
            recordUpload(upload, to: device)
            uploadStamps?.mark(upload, slot: index, 1, after: .transfer)
            try uploads.submit(upload)
        }
        let entropy = try recorder.begin(index)
        (timed ? timestamps : nil)?.start(entropy, slot: index)
        if let device = slot.deviceInput, uploads == nil { recordUpload(entropy, to: device) }
        let work = TransformWork(
            slot: index, input: inputBuffer, coefficients: coefficients, surfaces: slot.surfaces!.buffer,
            targets: try targets.map { (try cache.buffer(for: $0.surface), $0.offset) }, frames: batch.decodedFrames,
            maxSlices: batch.maxSlices, maxLog2: batch.maxLog2, tablesOffset: input.tablesOffset,
            slicesBytes: input.slicesBytes, framesOffset: input.framesOffset, framesBytes: input.framesBytes,
            coefficientBytes: coefficientBytes, statusBytes: statusBytes,
            surfaceBytes: max(8, batch.decodedFrames * surfaceStride), timed: timed)
        let released = recordEntropy(work, into: entropy, bitstreamBytes: batch.bitstreamBytes)
        let entropyValue = try recorder.submit(entropy)
        if let released { slots[released.slot].completion = (recorder, entropyValue) }
        slot.completion = nil
        if holdTransform {
            heldTransform = work
            heldTransforms += 1
        } else {
            try submitAlone(work)
        }
    }

    /// Where a batch's input lies: the bitstream, then the slice and frame
    /// tables (`tablesOffset`, `framesOffset`), `inputBytes` in all; and
    /// where each sample and the tables sit in the staging memory.
    struct StagedInput {
        let tablesOffset, slicesBytes, framesBytes, framesOffset, inputBytes: Int
        /// Where the tables start in the staging memory.
        let stagedTables: Int
        /// Each sample's place in the staging memory; nil for one uploaded from its imported memory.
        let stagedOffsets: [Int?]
        let sources: [(buffer: VulkanBuffer, offset: Int)?]
    }

    /// Copies the samples that are not uploaded in place and writes the
    /// slice and frame tables into `slot`'s staging memory.
    private func stage(_ batch: PreparedBatch, into slot: Slot) throws -> StagedInput {
        let compressed = batch.compressed
        let offsets = batch.offsets
        let stageStart = monotonicNanoseconds()
        let tablesOffset = Self.align(batch.bitstreamBytes)
        let slicesBytes = max(4, batch.sliceCount * SliceTable.sliceWords * 4)
        let framesBytes = max(4, batch.decodedFrames * SliceTable.frameWords * 4)
        let framesOffset = tablesOffset + Self.align(slicesBytes)
        let inputBytes = framesOffset + Self.align(framesBytes)
        // Frames read into imported sample memory are uploaded from where
        // they lie; the others are staged.
        let sources = try compressed.map { upload == .fromSampleMemory ? try importedSource($0) : nil }
        uploadedInPlace += sources.filter { $0 != nil }.count
        staged += sources.filter { $0 == nil }.count
        // The staging memory: where the shaders read it in place, the
        // input's own layout; else the tables first, then the staged frames
        // (so that uploading in place needs only a little pinned memory).
        let inPlace = upload == .direct
        let stagedTables = inPlace ? tablesOffset : 0
        var stagedOffsets = [Int?](repeating: nil, count: compressed.count)
        var stagingBytes = inPlace ? inputBytes : inputBytes - tablesOffset
        for i in compressed.indices where sources[i] == nil {
            if inPlace {
                stagedOffsets[i] = offsets[i]
            } else {
                stagedOffsets[i] = stagingBytes
                stagingBytes += Self.paddedSize(compressed[i].count)
            }
        }
        if (slot.staging?.size ?? 0) < stagingBytes { try makeStaging(slot, bytes: stagingBytes * 5 / 4) }
        let mapped = slot.staging!.mapped!
        let sliceWords = (mapped + stagedTables).assumingMemoryBound(to: UInt32.self)
        let frameWords = (mapped + stagedTables + (framesOffset - tablesOffset)).assumingMemoryBound(to: UInt32.self)
        let surfaceStride = self.surfaceStride
        let parsed = batch.parsed
        let firstSlices = batch.firstSlices
        let firstCoefficients = batch.firstCoefficients
        // At most one copy of the compressed bytes, on all cores; each frame
        // writes only its own span of the staging memory and its table entries.
        parallelFor(compressed.count) { i in
            let bytes = compressed[i]
            if let stagedOffset = stagedOffsets[i] {
                let destination = mapped + stagedOffset
                destination.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                (destination + bytes.count).initializeMemory(
                    as: UInt8.self, repeating: 0, count: Self.paddedSize(bytes.count) - bytes.count)
            }
            if case .success(let table) = parsed[i], let frame = slot.frames[i].surface {
                table.write(
                    slices: sliceWords + firstSlices[i] * SliceTable.sliceWords,
                    frame: frameWords + frame * SliceTable.frameWords,
                    frameIndex: frame, firstSlice: firstSlices[i], bitstreamOffset: offsets[i],
                    firstCoefficient: firstCoefficients[i], surfaceOffset: frame * surfaceStride / 8)
            }
        }
        slot.stageMicroseconds = Double(monotonicNanoseconds() - stageStart) / 1000
        return StagedInput(
            tablesOffset: tablesOffset, slicesBytes: slicesBytes, framesBytes: framesBytes, framesOffset: framesOffset,
            inputBytes: inputBytes, stagedTables: stagedTables, stagedOffsets: stagedOffsets, sources: sources)
    }

    typealias CopyRegion = (source: Int, destination: Int, bytes: Int)

    /// What the upload copies: the tables and staged frames from the
    /// staging memory, the other frames with their zero padding (which
    /// every sample carries) from their imported memory.
    private func uploadRegions(_ batch: PreparedBatch, _ input: StagedInput) -> (
        staged: [CopyRegion], imported: [ObjectIdentifier: (buffer: VulkanBuffer, regions: [CopyRegion])]
    ) {
        let compressed = batch.compressed
        let offsets = batch.offsets
        var staged: [CopyRegion] = [(input.stagedTables, input.tablesOffset, input.inputBytes - input.tablesOffset)]
        var imported: [ObjectIdentifier: (buffer: VulkanBuffer, regions: [CopyRegion])] = [:]
        for (i, source) in input.sources.enumerated() {
            if let source {
                imported[ObjectIdentifier(source.buffer), default: (source.buffer, [])].regions
                    .append((source.offset, offsets[i], compressed[i].count + CompressedSample.padding))
            } else if let stagedOffset = input.stagedOffsets[i] {
                staged.append((stagedOffset, offsets[i], Self.paddedSize(compressed[i].count)))
            }
        }
        count(
            tableBytes: input.inputBytes - input.tablesOffset, samples: compressed.map(\.count),
            regions: input.sources.indices.map {
                input.sources[$0] != nil
                    ? compressed[$0].count + CompressedSample.padding : Self.paddedSize(compressed[$0].count)
            })
        return (staged, imported)
    }

    /// Entropy decoding into `entropy`, after the upload recorded there (if
    /// any), and beside it the held batch's transform, which it returns.
    /// The transform and what reads its surfaces go in a submission of its
    /// own, which waits for the coefficients alone (on a second compute
    /// queue when asked for, where the next batch's entropy pass may run
    /// beside this batch's transform).
    private func recordEntropy(
        _ work: TransformWork, into entropy: CommandBuffer, bitstreamBytes: Int
    ) -> TransformWork? {
        let index = work.slot
        let slot = slots[index]
        let stamps = work.timed ? timestamps : nil
        stamps?.mark(entropy, slot: index, 1, after: .transfer)
        // The coefficients need no zeroing: the entropy pass writes every
        // coefficient the transform reads.
        entropy.fill(slot.status!, bytes: work.statusBytes)
        // The transform ORs its words in (a slice's macroblocks each may
        // set the may-differ bit), so they start at zero.
        entropy.fill(slot.statusReport!, bytes: work.statusBytes)
        stamps?.mark(entropy, slot: index, 2, after: .transfer)
        if work.frames > 0 {
            entropy.dispatch(
                entropyPass, set: slot.entropySet,
                buffers: [
                    BufferRange(work.input, bytes: max(4, bitstreamBytes)),
                    BufferRange(work.input, offset: work.tablesOffset, bytes: work.slicesBytes),
                    BufferRange(work.input, offset: work.framesOffset, bytes: work.framesBytes),
                    BufferRange(work.coefficients, bytes: work.coefficientBytes),
                    BufferRange(slot.status!, bytes: work.statusBytes),
                ],
                groups: (entropyPass.interface.groups(covering: work.maxSlices), work.frames, format.hasAlpha ? 4 : 3))
        }
        // A held batch's transform goes here, beside this entropy pass: they
        // touch different slots' buffers, so nothing orders one after the
        // other, and the GPU may run them together (the end marks below come
        // after both, since a timestamp after a stage waits for that stage).
        let released = heldTransform
        if let released {
            transformStamps(released)?.start(entropy, slot: released.slot)
            recordTransform(released, into: entropy)
        }
        heldTransform = nil
        stamps?.mark(entropy, slot: index, 3, after: .compute)
        if let released { markTransform(released, in: entropy) }
        return released
    }

    /// Waits for slot `index`'s batch and says what became of each frame
    /// (with its device-local surface when the decoder `deliversSurfaces`).
    func complete(slot index: Int) throws -> (outputs: [Output], timing: BatchTiming?) {
        let slot = slots[index]
        if let (recorder, value) = slot.completion { try recorder.wait(for: value) }
        let status = slot.statusReport?.mapped?.assumingMemoryBound(to: UInt32.self)
        let outputs = slot.frames.map { frame -> Output in
            var damaged = frame.invalidSlices
            var mayDiffer = false
            if let status {
                damaged += frame.slices.filter { status[$0] & Self.failedComponents != 0 }.count
                mayDiffer = frame.slices.contains { status[$0] & Self.mayDifferFlag != 0 }
            }
            var surface: DeviceSurface?
            if deliversSurfaces, let place = frame.surface, let batch = slot.surfaces {
                surface = DeviceSurface(batch: batch, offset: place * surfaceStride, layout: surfaceLayout)
            }
            var analysis: FrameAnalysis?
            if let place = frame.surface, let results = slot.results?.mapped {
                analysis = FrameAnalysis(
                    digest: hashPass.map { $0.digest(results: results + place * $0.resultBytesPerFrame) },
                    sums: statisticsPass.map {
                        $0.sums(results: results + statisticsResultsOffset + place * $0.resultBytesPerFrame)
                    },
                    stillGrid: statisticsPass.map {
                        $0.stillGrid(results: results + statisticsResultsOffset + place * $0.resultBytesPerFrame)
                    })
            }
            return Output(
                failure: frame.failure, deviceSurface: surface, damagedSlices: damaged, header: frame.header,
                analysis: analysis, missingSecondField: frame.missingSecondField, missingAlpha: frame.missingAlpha,
                decodersMayDiffer: mayDiffer)
        }
        // The batch is complete: what reading its marks waits for is others' work.
        let timing = try transforms.offTheClock { try batchTiming(slot: index) }
        return (outputs, timing)
    }

    private func batchTiming(slot index: Int) throws -> BatchTiming? {
        let slot = slots[index]
        return try (slot.timed ? timestamps : nil).map { queries -> BatchTiming in
            let spans = try queries.spans(slot: index)
            let later = try transformTimestamps?.spans(slot: index) ?? [0, 0]
            let upload = try uploadTimestamps.map { try $0.spans(slot: index)[0] } ?? spans[0]
            return BatchTiming(
                frames: slot.frames.count, parse: slot.parseMicroseconds, stage: slot.stageMicroseconds,
                upload: upload, zeroFill: spans[1], entropy: spans[2], transform: later[0], readback: later[1])
        }
    }

    static func align(_ bytes: Int) -> Int { (bytes + alignment - 1) / alignment * alignment }

    /// Adds a batch to `linkTraffic`: its tables, and each frame's region
    /// (the sample and the zero bytes after it). A frame read in place
    /// (`direct`) counts its region of the staging memory, as if copied.
    private func count(tableBytes: Int, samples: [Int], regions: [Int]) {
        linkTraffic.frames += samples.count
        linkTraffic.sampleBytes += samples.reduce(0, +)
        linkTraffic.paddingBytes += zip(regions, samples).reduce(0) { $0 + $1.0 - $1.1 }
        linkTraffic.bytes += tableBytes + regions.reduce(0, +)
    }
}
