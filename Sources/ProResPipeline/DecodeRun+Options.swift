import GPUKit
import HostSupport
import ProResCore
import ProResGPU

extension DecodeRun {
    public struct Options: Sendable {
        public var output: OutputSelection?
        public var start: Int
        public var frames: Int?
        public var threads: Int
        /// Convert every frame on the GPU (`--vulkan`).
        public var gpu: GPUOptions?
        public var decoder: DecoderSelection
        /// Present finished frames on a steady clock at this rate (`--realtime`, `FramePacer`).
        public var realtime: FrameRate?
        /// Measure every frame for the run's `FrameAnalysisSink` (`check`):
        /// on the device with the GPU decoder, else from the native planar
        /// bytes on every core.
        public var analysis: AnalysisRequest?
        /// With `realtime`: called at each tick with the frame presented
        /// then, on the pacer's thread (`play` shows it).
        public var present: (@Sendable (Int) -> Void)?
        /// With `realtime`: the clock the pacer ticks on; nil, the monotonic
        /// clock. `play` paces by the sound it plays this way.
        public var pacingClock: (any PacingClock & Sendable)?
        /// With `realtime`: a frame whose tick already passed when it would
        /// be decoded is skipped instead (a player that cannot keep up);
        /// off, every frame reaches every sink (`--realtime` outputs).
        public var skipLateFrames = false
        /// The GPU decoder's device while it is being made: the CPU decoder decodes
        /// the first frames on the CPU until it is ready, then the GPU
        /// decoder takes over (`HandoverSession`), so the first frame does
        /// not wait for the driver's start-up. `decoder` then decides, once
        /// the device is there, as it would have with it `shared`. Not with
        /// `gpu` (its stage needs the device first) or `realtime`.
        package var deviceStarting: Deferred<GPUDevice?>?
        /// The decoder's plan, made before the stream opened (the command
        /// line's, with its device already starting); nil: one made from
        /// `decoder` and `deviceStarting`.
        public var plan: DecoderPlan?
        /// Called once the run queues no more samples: after its last one,
        /// or once its decoder stopped after a failure. `check` lets the next
        /// file start feeding the shared decode session then
        /// (`DecoderSelection.lanes`).
        public var inputEnded: (@Sendable () -> Void)?

        /// `output` nil picks the profile's native packed layout, or, for
        /// the CPU decoder when nothing reads the frames (no sink, GPU stage
        /// or analysis), the decoder's own planar frames (`native`).
        public init(
            output: OutputSelection? = nil, start: Int = 0, frames: Int? = nil, threads: Int = 0,
            gpu: GPUOptions? = nil,
            decoder: DecoderSelection = .init(choice: .cpu), realtime: FrameRate? = nil,
            analysis: AnalysisRequest? = nil
        ) {
            self.analysis = analysis
            self.output = output
            self.start = start
            self.frames = frames
            self.threads = threads
            self.gpu = gpu
            self.decoder = decoder
            self.realtime = realtime
        }
    }

    public struct GPUOptions: Sendable {
        public var context: VulkanContext.Options
        /// Nits that map to 1.0 for PQ and HLG (BT.2408: 203).
        public var referenceWhite: Double
        public var framesInFlight: Int
        /// Read converted frames back to the host even without GPU sinks
        /// (which always get them).
        public var readback: Bool
        /// `--effect` passes on every converted frame, in order.
        public var effects: [Effect]
        /// The device to convert on when the decoder brings none: `play`'s,
        /// made for presenting, so frames reach its window where they are.
        public var device: GPUDevice?

        public init(
            context: VulkanContext.Options = .init(), referenceWhite: Double = TransferFunction.defaultReferenceWhite,
            framesInFlight: Int = 3, readback: Bool = false, effects: [Effect] = [], device: GPUDevice? = nil
        ) {
            self.device = device
            self.context = context
            self.referenceWhite = referenceWhite
            self.framesInFlight = framesInFlight
            self.readback = readback
            self.effects = effects
        }
    }
}
