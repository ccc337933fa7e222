import GPUKit
import ProResCPU
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The one maker of decode sessions (VTDecompressionSessionCreate): each
/// session of a run, of `check`'s files and of `bench`'s timed loops is made
/// here, for the decoder its `DecoderSelection` chose, so that no caller
/// picks a decoder past the plan (`SessionFactoryTests` holds every other
/// file to it).
package enum DecodeSessionFactory {
    /// The session that decodes on the CPU for `selection`: FFmpeg's
    /// decoder for `--decoder ffmpeg`, ours otherwise. `slicesOnly`: every
    /// thread on one frame at a time (the first frames of a handover);
    /// ours always works that way.
    /// `packing`: our decoder's frames in that packed layout (FFmpeg's stay planar).
    package static func cpu(
        for selection: DecoderSelection, format: FormatDescription, threads: Int, slicesOnly: Bool = false,
        packing: PackedLayout? = nil, outputHandler: @escaping FrameOutputHandler,
        outputIdleHandler: OutputIdleHandler? = nil
    ) throws -> FrameDecoding {
        if selection.usesFFmpeg {
            return try ffmpeg(
                format: format, configuration: .init(threads: threads, slicesOnly: slicesOnly),
                outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
        }
        return ours(
            format: format, threads: threads, packing: packing, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// FFmpeg's libavcodec on the CPU (`--decoder ffmpeg`, and `bench`'s reference).
    package static func ffmpeg(
        format: FormatDescription, configuration: FFmpegDecodeSession.Configuration = .init(),
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws -> FFmpegDecodeSession {
        try FFmpegDecodeSession(
            format: format, configuration: configuration, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// Our decoder on the CPU (`--decoder cpu`).
    package static func ours(
        format: FormatDescription, threads: Int, packing: PackedLayout? = nil,
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) -> CPUDecodeSession {
        CPUDecodeSession(
            format: format, threads: threads, packing: packing, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// The GPU decoder on `device`: a stream of `lanes` when they are that
    /// device's (consecutive files share one pipeline), else a session of its own.
    package static func gpu(
        format: FormatDescription, device: GPUDevice, configuration: GPUDecodeSession.Configuration,
        lanes: GPUDecodeLanes?, outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler?
    ) throws -> FrameDecoding {
        if let lanes, lanes.device == device {
            return try lanes.stream(
                format: format, configuration: configuration, outputHandler: outputHandler,
                outputIdleHandler: outputIdleHandler)
        }
        return try gpuSession(
            format: format, device: device, configuration: configuration, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// The GPU decoder's own session on `device` (`bench` reads its batches and uploads).
    package static func gpuSession(
        format: FormatDescription, device: GPUDevice, configuration: GPUDecodeSession.Configuration,
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws -> GPUDecodeSession {
        try GPUDecodeSession(
            format: format, device: device, configuration: configuration, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// The CPU decoder's session first and the successor's once it has one
    /// (`auto` while the device starts).
    package static func handover(
        first: HandoverSession.Maker, successor: @escaping () throws -> HandoverSession.Maker?,
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler?
    ) throws -> HandoverSession {
        try HandoverSession(
            first: first, successor: successor, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
    }
}
