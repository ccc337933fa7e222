/// What became of one compressed frame.
public enum FrameStatus: Equatable, Sendable {
    /// Decoded cleanly.
    case ok
    /// A picture came out, but part of it could not be decoded (FFmpeg
    /// conceals broken slices) or the sample was damaged.
    case damaged(String)
    /// No picture could be made from the sample.
    case failed(String)

    public var isOK: Bool { self == .ok }

    public var reason: String? {
        switch self {
        case .ok: return nil
        case .damaged(let why), .failed(let why): return why
        }
    }
}

/// A decoded frame that lives in a GPU's memory (the GPU decoder's
/// `DeviceSurface`): opaque here, read in place by GPU consumers. Holding it
/// keeps the memory from being written again.
public protocol DeviceFrame: AnyObject, Sendable {
    var layout: SurfaceLayout { get }
}

/// One decoded frame, delivered in order (the image buffer a
/// VTDecompressionOutputHandler receives). Holding it holds one use of its
/// surface; the surface returns to its pool when the frame is released.
// @unchecked: immutable once made; the surface use it holds is counted under the surface's lock.
public final class DecodedFrame: @unchecked Sendable {
    public let index: Int
    public let pts: Int64?
    public let status: FrameStatus
    /// The decoded host surface: the CPU decoder's planar one, the GPU
    /// decoder's packed one (when it copies frames back); nil when the frame
    /// failed or stays on the GPU.
    public let pixelBuffer: PixelBuffer?
    /// The GPU decoder's device-local surface, for GPU consumers (`--vulkan`).
    public let deviceSurface: (any DeviceFrame)?
    /// What the GPU decoder measured on the frame where it lives, when asked
    /// (`AnalysisRequest`); nil from the CPU decoder.
    public let analysis: FrameAnalysis?
    /// This frame's own colour codes (H.273) from its frame header: tags can
    /// change mid-stream in edited material.
    public let colorCodes: (primaries: Int, transfer: Int, matrix: Int)?
    /// When the sample's read began (monotonic ns).
    public let readStart: UInt64
    public let demuxNanoseconds: UInt64
    /// From handing the sample to the decoder to receiving its picture; with
    /// frame threads this includes waiting for a worker.
    public let decodeNanoseconds: UInt64
    /// Our decoders (which follow FFmpeg's C IDCT) found coefficients
    /// outside the range where FFmpeg's C and x86 SIMD IDCTs agree: FFmpeg's
    /// x86 decoder (`--decoder ffmpeg`) may give this frame other samples.
    /// Always false from the FFmpeg decoder, which does not say.
    public let decodersMayDiffer: Bool

    public init(
        index: Int, pts: Int64?, status: FrameStatus, pixelBuffer: PixelBuffer?,
        deviceSurface: (any DeviceFrame)? = nil,
        analysis: FrameAnalysis? = nil, colorCodes: (primaries: Int, transfer: Int, matrix: Int)?,
        readStart: UInt64, demuxNanoseconds: UInt64, decodeNanoseconds: UInt64, decodersMayDiffer: Bool = false
    ) {
        self.decodersMayDiffer = decodersMayDiffer
        self.deviceSurface = deviceSurface
        self.analysis = analysis
        self.index = index
        self.pts = pts
        self.status = status
        self.pixelBuffer = pixelBuffer
        self.colorCodes = colorCodes
        self.readStart = readStart
        self.demuxNanoseconds = demuxNanoseconds
        self.decodeNanoseconds = decodeNanoseconds
    }

    deinit { pixelBuffer?.releaseUse() }

    /// How the reports word a `decodersMayDiffer` frame, after "frame N: ".
    public static let mayDifferNote =
        "decoders may differ here: its coefficients leave the range where FFmpeg's C and x86 SIMD "
        + "IDCTs agree (ours decode as the C code does; --decoder ffmpeg on x86 may not)"

}
