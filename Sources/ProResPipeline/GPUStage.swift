import Foundation
import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The `--vulkan` stage of a decode run: the Vulkan context, the texture
/// cache and converter, and each frame's colour resolved from its own tags.
final class GPUStage {
    let context: VulkanContext
    private let converter: GPUFrameConverter
    private let resolver: FrameColorResolver
    private let sinks: [ConvertedFrameSink]
    /// Called in frame order once a frame's GPU work and GPU sinks are done.
    var onConverted: ((ConvertedFrameInfo) throws -> Void)?

    struct ConvertedFrameInfo {
        let index: Int
        let readStart: UInt64
        let uploadMicroseconds: Double?
        let convertMicroseconds: Double?
        let effectMicroseconds: [Double]
    }

    /// `device`: the GPU decoder's, shared so that decoded surfaces and
    /// their conversion live on one device (and kernels are built once).
    init(
        options: DecodeRun.GPUOptions, format: FormatDescription, sinks: [ConvertedFrameSink], device: GPUDevice? = nil
    ) throws {
        let device = try device ?? GPUDevice(context: VulkanContext(options: options.context))
        context = device.context
        resolver = FrameColorResolver(
            stream: format.colorTags, height: format.height, referenceWhite: options.referenceWhite)
        self.sinks = sinks
        var deliver: ((ConvertedFrame) throws -> Void)?
        converter = try GPUFrameConverter(
            context: context, kernels: device.kernels, framesInFlight: options.framesInFlight,
            readback: options.readback || sinks.contains { $0.readsPixels }, effects: options.effects
        ) { try deliver?($0) }
        // Weak: a run that ends early releases the stage while the
        // converter's completion thread may still be handing over a frame
        // (an unowned reference trapped there: exit 134, temporaries left).
        deliver = { [weak self] frame in
            guard let self else { return }
            for sink in self.sinks { try sink.consume(frame) }
            try self.onConverted?(
                ConvertedFrameInfo(
                    index: frame.index, readStart: frame.reference,
                    uploadMicroseconds: frame.uploadMicroseconds,
                    convertMicroseconds: frame.convertMicroseconds,
                    effectMicroseconds: frame.effectMicroseconds))
        }
    }

    /// Converts `input`: the frame's host surface, or the GPU decoder's
    /// device-local one. The conversion waits for `flush`, to share its
    /// submission with the frames queued behind it (or until the group is full).
    func submit(_ input: ConverterInput, frame: DecodedFrame) throws {
        let (spec, parameters) = resolver.resolve(frameCodes: frame.colorCodes)
        try converter.record(
            input, parameters: parameters, index: frame.index, pts: frame.pts, reference: frame.readStart, spec: spec)
    }

    /// Submits the conversions waiting: the decoder has no frame queued.
    func flush() throws { try converter.flush() }

    /// Finishes every frame in flight.
    func drain() throws { try converter.finish() }

    /// Stops delivering frames; returns once none is in flight.
    func cancel() { converter.cancel() }

    var report: DecodeRun.GPUReport {
        DecodeRun.GPUReport(
            device: context.info, importedSurfaces: converter.importedSurfaces,
            copiedFrames: converter.copiedFrames, colorFallbacks: resolver.fallbacks,
            framesWithColorFallback: resolver.framesWithFallback, conversionSubmissions: converter.submissions,
            validationMessages: context.validation?.messages ?? [])
    }
}
