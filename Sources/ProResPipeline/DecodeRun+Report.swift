import GPUKit
import ProResCore

extension DecodeRun {
    /// What the GPU stage did.
    public struct GPUReport: Sendable {
        public let device: VulkanDeviceInfo
        public let importedSurfaces: Int
        /// Frames copied by the CPU because the driver could not import host memory.
        public let copiedFrames: Int
        /// Substituted colour tags, each described once.
        public let colorFallbacks: [String]
        public let framesWithColorFallback: Int
        /// Command buffers the conversions went to the GPU in (several
        /// frames each where several are ready together).
        public let conversionSubmissions: Int
        public let validationMessages: [String]
    }

    public struct Report: Sendable {
        public let output: OutputSelection
        public let framesRead: Int
        /// Frames written to the sinks (ok + damaged).
        public let framesWritten: Int
        public let damaged: [(index: Int, reason: String)]
        public let failed: [(index: Int, reason: String)]
        /// Every frame that came out of the decoder, in output order.
        public let frames: [(index: Int, status: FrameStatus)]
        /// Set when the input ended before the frames it announced.
        public let shortfall: String?
        public let summary: TimingSummary
        public let decoderPool: PixelBufferPool.Statistics
        public let packPool: PixelBufferPool.Statistics?
        public let gpu: GPUReport?
        /// "cpu" or "gpu (device)", and why `auto` chose the CPU.
        public let decoder: String
        public let decoderNote: String?
        /// What `--realtime` presented, dropped and how late it was.
        public let pacing: PacingReport?
        /// When the first frame came out of the decoder (monotonic ns; `ProcessClock`).
        public let firstFrameAt: UInt64?
        /// Frames skipped before decoding because their tick had passed (`skipLateFrames`).
        public var skippedLate: [Int] = []
        /// Frames the CPU decoded while the GPU decoder's device started (`Options.deviceStarting`).
        public var framesBeforeHandover = 0
        /// Frames whose coefficients leave the range where FFmpeg's C and
        /// x86 SIMD IDCTs agree (`DecodedFrame.decodersMayDiffer`): decoded
        /// and written as FFmpeg's C code decodes them, but FFmpeg's x86
        /// decoder may give other samples there.
        public var decodersMayDiffer: [Int] = []

        public var isClean: Bool { damaged.isEmpty && failed.isEmpty && shortfall == nil }
    }
}
