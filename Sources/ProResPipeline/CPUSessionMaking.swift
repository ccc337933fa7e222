import ProResCPU
import ProResCore
import ProResFFmpeg
import ProResGPU

extension DecoderSelection {
    /// The session that decodes on the CPU for this selection: FFmpeg's
    /// decoder for `--decoder ffmpeg`, ours otherwise. `slicesOnly`: every
    /// thread on one frame at a time (the first frames of a handover);
    /// ours always works that way.
    /// `packing`: our decoder's frames in that packed layout (FFmpeg's stay planar).
    func makeCPUSession(
        format: FormatDescription, threads: Int, slicesOnly: Bool = false, packing: PackedLayout? = nil,
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws -> FrameDecoding {
        if usesFFmpeg {
            return try DecodeSession(
                format: format, configuration: .init(threads: threads, slicesOnly: slicesOnly),
                outputHandler: outputHandler,
                outputIdleHandler: outputIdleHandler)
        }
        return CPUDecodeSession(
            format: format, threads: threads, packing: packing, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// The name a run's report gives the CPU decoder it used.
    package var cpuDecoderName: String { usesFFmpeg ? "ffmpeg" : "cpu" }
}
