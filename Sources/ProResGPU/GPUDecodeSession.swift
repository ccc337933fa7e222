import Foundation
import GPUKit
import HostSupport
import ProResCore

/// The hardware decode session: the same contract as `FFmpegDecodeSession`
/// (samples in, frames out in order with a status, bounded memory), decoded
/// by `GPUProResDecoder`: a `GPUDecodeLane` (the decoder's pipeline and
/// threads) that carries this one stream and ends with it.
public final class GPUDecodeSession: FrameDecoding, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Frames per dispatch; nil lets the decoder choose
        /// (`DecoderBatchSize`: from the frame size, the stream's length and
        /// the device's limits).
        public var framesPerBatch: Int?
        /// Frames the session will decode, when the caller knows better than
        /// the container (a benchmark loops a clip); nil: the container's count.
        public var expectedFrames: Int?
        /// Batches in flight.
        public var slots: Int
        /// Copy each frame into a host surface (for sinks); false leaves the
        /// frames on the GPU (benchmarks) and delivers them without a surface.
        public var readback: Bool
        /// Deliver each frame's device-local surface too (for `--vulkan`).
        public var deviceSurfaces: Bool
        /// Allocate every batch's buffers up front, for compressed frames of
        /// up to this many bytes, so that the first batches do not pay for
        /// it (pinning host memory takes milliseconds); nil allocates them
        /// as the first batches arrive.
        public var expectedFrameBytes: Int?
        /// Measure every frame on the device (`check`): `DecodedFrame.analysis`.
        public var analysis: AnalysisRequest?
        /// The CPUs the session's own threads (parse, submit, completion,
        /// output) run on; nil leaves them to the scheduler. A session on a
        /// `GPUDevice` takes the device's `placement` when this is nil.
        public var cpus: [Int]?
        /// How compressed bytes reach the device; nil: the fastest the device has.
        public var upload: UploadPath?
        /// While another batch is parsed and waiting, hold each batch's
        /// transform and record it beside the next batch's entropy pass, in
        /// one command buffer, so that the GPU may run the two together.
        /// On by default: it saves a submission per batch; off (the tests'
        /// reference) the transform goes in a submission of its own.
        public var overlapTransforms: Bool

        /// Batches in flight: one being staged by the host, one uploading,
        /// one entropy decoding and one being transformed, each on its own
        /// engine. `PRORES_DECODE_SLOTS` overrides it, for measurements.
        public static let defaultSlots = 4
        /// GPU stage timestamps on the first batches and one in this many
        /// after them (`GPUProResDecoder.timesStages(ofBatch:)`; 0: none).
        public var timestampInterval = 16

        public init(
            framesPerBatch: Int? = nil, slots: Int = Configuration.defaultSlots,
            readback: Bool = true, deviceSurfaces: Bool = false,
            expectedFrames: Int? = nil, expectedFrameBytes: Int? = nil, analysis: AnalysisRequest? = nil,
            cpus: [Int]? = nil,
            upload: UploadPath? = nil, overlapTransforms: Bool = true
        ) {
            self.upload = upload
            self.overlapTransforms = overlapTransforms
            self.analysis = analysis
            self.cpus = cpus
            self.framesPerBatch = framesPerBatch
            self.expectedFrames = expectedFrames
            self.slots = slots
            self.readback = readback
            self.deviceSurfaces = deviceSurfaces
            self.expectedFrameBytes = expectedFrameBytes
        }
    }

    /// The pipeline, carrying this session's one stream.
    private let lane: GPUDecodeLane
    private let stream: GPUDecodeStream
    public var format: FormatDescription { lane.format }

    public convenience init(
        format: FormatDescription, context: VulkanContext, kernels: KernelCache,
        configuration: Configuration = .init(), outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler? = nil
    ) throws {
        let decoder = try GPUProResDecoder(
            context: context, kernels: kernels, format: format, configuration: configuration)
        try self.init(
            lane: GPUDecodeLane(format: format, decoder: decoder, configuration: configuration, reuse: nil),
            readback: configuration.readback, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
    }

    /// On a shared device: the decoder (and its buffers) of an earlier
    /// session of the same geometry is taken when there is one, and given
    /// back when this session ends cleanly.
    public convenience init(
        format: FormatDescription, device: GPUDevice, configuration: Configuration = .init(),
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws {
        try self.init(
            lane: GPUDecodeLane(format: format, device: device, configuration: configuration),
            readback: configuration.readback, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
    }

    private init(
        lane: GPUDecodeLane, readback: Bool, outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler?
    ) throws {
        self.lane = lane
        stream = try lane.openStream(
            readback: readback, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
    }

    deinit {
        // Nothing once finished; else the threads stop and the decoder is not kept.
        lane.cancel()
        lane.close()
    }

    public var framesPerBatch: Int { lane.framesPerBatch }
    /// The decoder's upload path, and this session's frames so far uploaded in place and staged.
    package var uploads: (path: UploadPath, inPlace: Int, staged: Int) { lane.uploads }
    /// What this session's input took from host memory: each sample, its
    /// padding and the tables (read once the session finished).
    package var linkTraffic: LinkTraffic { lane.linkTraffic }
    /// Batches whose transform went beside the next batch's entropy pass (`overlapTransforms`).
    package var heldTransforms: Int { lane.heldTransforms }

    public func decode(_ sample: CompressedSample) throws {
        do { try stream.decode(sample) } catch let failure as GPULaneFailure { throw failure.underlying }
    }

    /// Ends the input and waits until every frame went through the handler.
    public func finish() throws {
        // No stream follows: the last partial batch need not wait for one.
        lane.close()
        do { try stream.finish() } catch let failure as GPULaneFailure { throw failure.underlying }
    }

    public func cancel() { lane.cancel() }

    public var poolStatistics: PixelBufferPool.Statistics { stream.poolStatistics }

    /// GPU time of the batches timed so far (`GPUDecodeLane.batchTimings`), in order.
    package var batchTimings: [GPUProResDecoder.BatchTiming] { lane.batchTimings }
    /// Batches completed so far, timed or not.
    package var completedBatches: Int { lane.completedBatches }

    /// What a decoder's buffers and passes depend on: geometry, layout,
    /// batching and the analysis (whose light pass depends on the colour tags).
    static func reuseKey(_ format: FormatDescription, _ configuration: Configuration) -> String {
        let tags = format.colorTags
        let analysis = configuration.analysis.map {
            "hash \($0.hash) stats \($0.statistics.map { "\($0.range) \($0.light != nil)" } ?? "-")"
        }
        return "\(format.width)x\(format.height) \(format.chroma) alpha \(format.hasAlpha) \(format.fieldOrder) "
            + "\(tags.primaries.value.code)/\(tags.transfer.value.code)/\(tags.matrix.value.code) "
            + "slots \(configuration.slots) batch \(configuration.framesPerBatch ?? 0) \(analysis ?? "no analysis") "
            + "upload \(configuration.upload?.rawValue ?? "auto") overlap \(configuration.overlapTransforms) "
            + "surfaces \(configuration.deviceSurfaces ? "delivered" : "kept") "
            + "timestamps \(configuration.timestampInterval)"
    }
}
