import Foundation
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline
import ProResOptions

/// `prores-decode INPUT [options]`: decode to raw frames, frame checksums and
/// timing.
enum DecodeCommand: Command {
    static func run(_ arguments: DecodeArguments) throws -> ExitCode {
        let referenceWhite = arguments.referenceWhite ?? TransferFunction.defaultReferenceWhite
        let effects = try arguments.playback.effects(referenceWhite: referenceWhite)
        let gpu = arguments.useVulkan ? DecodeRun.GPUOptions(
            context: .init(device: arguments.device, validation: arguments.validation),
            referenceWhite: referenceWhite, effects: effects) : nil
        var decoder = arguments.decoder
        let input = arguments.input, start = arguments.start, frames = arguments.frames
        let rawPath = arguments.rawPath, md5Path = arguments.md5Path, hashPath = arguments.hashPath, timingPath = arguments.timingPath
        let quiet = arguments.quiet, overwrite = arguments.overwrite, stdoutUsers = arguments.stdoutUsers
        FFmpegLog.configure(verbose: arguments.verbose)
        // In place before any output exists: a signal during set-up cancels
        // the run as soon as there is one (DecodeRun stops before decoding).
        let pending = PendingCancellation()
        let trap = SignalTrap { pending.cancel() }
        defer { withExtendedLifetime(trap) {} }

        // The GPU decoder's device is made while the container opens: on a
        // discrete GPU, instance and device creation are most of start-up.
        let selection = decoder
        let deviceReady = DeviceReadyTime()
        let earlyDevice = decoder.choice.isCPU ? nil : Deferred("prores-decode.device-setup") { () throws -> GPUDevice? in
            let device = selection.choice == .auto ? selection.automaticDevices(limit: 1).devices.first : try selection.makeDevices(limit: 1).first
            device.map(KeptUntilExit.keep)
            deviceReady.mark()
            return device
        }
        // However the run ends, no thread is left making a device at exit.
        defer { _ = try? earlyDevice?.get() }
        let source = try Trace.span("source opened") { try openSampleSource(input, track: arguments.track) }
        let opened = monotonicNanoseconds()
        let format = source.format
        // A start past a counted end is refused before any note or output:
        // the source's own seek says so, in its words.
        if start > 0, let count = format.frameCount, start >= count { try source.seek(toFrame: start) }
        let realtime = try arguments.playback.pacingRate(for: format)
        // `auto` (the best decoder that works, frame by frame) decodes with
        // our CPU decoder while the device starts, unless the run needs the device
        // before its first frame, or the GPU decoder cannot decode this
        // stream anyway (the run then says why, as before). `--decoder gpu`
        // asked for the GPU decoder on every frame.
        var deviceStarting: Deferred<GPUDevice?>?
        if let earlyDevice {
            source.readAhead(samples: SampleSourcePrefetch.readsAheadOfOneFile)
            // The first batches' samples are read while the device is made
            // (~150 ms on the H200), so the first batch is whole at once.
            if arguments.start == 0 {
                source.prefetch(frames: min(SampleSourcePrefetch.framesBeforeTheDecoder, arguments.frames ?? .max))
            }
            if decoder.choice == .auto, !arguments.noCPUStart, gpu == nil, realtime == nil, GPUProResDecoder.unsupportedReason(format) == nil,
               !earlyDevice.isReady(waitingUpTo: 0) {
                deviceStarting = earlyDevice
            } else {
                // `auto` without a device resolves again, to say why.
                decoder.shared = try Trace.span("wait for device") { try earlyDevice.get() }
            }
        }
        // A container holds only what FFmpeg can read back; decided before any output exists.
        let container = arguments.container
        let output = arguments.output ?? (container == .raw ? nil : container.defaultOutput(for: format))
        if let refusal = container.refusal(holding: output ?? container.defaultOutput(for: format), of: format) {
            throw UsageError("-o \(arguments.rawPath ?? "-"): \(refusal)")
        }
        let run: DecodeRun
        do {
            var sinks: [FrameSink] = []
            // Open every output before decoding: a bad path fails fast.
            if let rawPath { sinks.append(try makeFrameSink(path: rawPath, container: container, format: format, overwrite: overwrite)) }
            if let md5Path { sinks.append(FrameHashSink(file: try OutputFile(path: md5Path, overwrite: overwrite), format: format, algorithm: .md5)) }
            // The native frame's BLAKE3 is the analysis hash: computed where
            // the frame lives (on the GPU decoder's device), never read back.
            var analysis: (request: AnalysisRequest, sink: FrameAnalysisSink)?
            if let hashPath {
                let sink = FrameHashSink(file: try OutputFile(path: hashPath, overwrite: overwrite), format: format, algorithm: .blake3)
                if output == .native {
                    sink.frameBytes = format.nativeFormat.tightByteCount(width: format.width, height: format.height)
                    analysis = (AnalysisRequest(hash: true, statistics: nil), sink)
                } else {
                    sinks.append(sink)
                }
            }
            let timing = try timingPath.map { try OutputFile(path: $0, overwrite: overwrite) }
            // --frames may be as large as Int.max: clamp rather than overflow.
            let saved = start..<(frames.map { $0 > Int.max - start ? Int.max : start + $0 } ?? Int.max)
            let gpuSinks: [ConvertedFrameSink] = try arguments.savePath.map {
                [try FrameSaver(directory: $0, format: arguments.saveFormat ?? .exr, tags: ImageFileTags(format: format, referenceWhite: referenceWhite),
                                overwrite: overwrite, frames: saved)]
            } ?? []
            var options = DecodeRun.Options(output: output, start: start, frames: frames, threads: arguments.threads, gpu: gpu,
                                            decoder: decoder, realtime: realtime, analysis: analysis?.request)
            options.deviceStarting = deviceStarting
            run = try DecodeRun(source: source, options: options, sinks: sinks, gpuSinks: gpuSinks, analysisSink: analysis?.sink,
                                timingLog: timing)
        }
        if !quiet {
            if let warning = run.output.conversionWarning(for: format) { Console.warning(warning) }
            for note in format.notes { Console.warning(note) }
            for note in ColourFallbackNotes.stream(format.colorTags) { Console.note(note) }
        }
        let progress = ProgressLine.onTerminal(total: frames ?? format.frameCount.map { $0 - start },
                                               mediaFrameRate: format.framesPerSecond, quiet: quiet)
        run.progress = progress.map { line in { line.update($0) } }
        pending.attach(run)

        let report: DecodeRun.Report
        do {
            report = try Trace.span("decode run") { try run.run() }
        } catch {
            progress?.clear()
            throw error
        }
        progress?.clear()

        // After the run: `auto` may have fallen back to the CPU while starting.
        if !quiet && (arguments.verbose || decoder.choice != .auto || run.decoderFellBack) {
            // Counted only where the GPU decoder took over.
            let handover = report.framesBeforeHandover > 0
                ? "; the CPU decoded the first \(report.framesBeforeHandover) while its device started" : ""
            Console.note("decoder: \(run.decoderName)" + (run.decoderNote.map { " (\($0))" } ?? "") + handover)
        }
        if let gpu = report.gpu, !quiet {
            for note in ColourFallbackNotes.conversion(gpu.colorFallbacks, stream: format.colorTags) { Console.note(note) }
            Console.note("GPU: \(gpu.device.name) (\(gpu.device.kind.rawValue)); \(gpu.importedSurfaces) surfaces imported without a copy"
                + (gpu.copiedFrames > 0 ? ", \(gpu.copiedFrames) frames copied (the driver cannot import host memory)" : ""))
        }
        for (index, reason) in report.damaged { Console.warning("frame \(index) damaged: \(reason)") }
        for (index, reason) in report.failed { Console.error("frame \(index) not decoded: \(reason)") }
        if let shortfall = report.shortfall { Console.error(shortfall) }
        let summaryJSON = JSON.object([("input", JSON.string(input)), ("format", JSON.string(report.output.name)),
                                       ("decoder", JSON.string(report.decoder)),
                                       ("frames_read", "\(report.framesRead)"), ("frames_written", "\(report.framesWritten)"),
                                       ("damaged", JSON.array(report.damaged.map { "\($0.index)" })),
                                       ("failed", JSON.array(report.failed.map { "\($0.index)" })),
                                       ("truncated", report.shortfall == nil ? "false" : "true"),
                                       // Start-up, from process start: the container open, the GPU
                                       // device made (in parallel with opening), the first frame out.
                                       ("startup_ms", JSON.object([
                                           ("source_open", JSON.number(ProcessClock.milliseconds(to: opened), digits: 1)),
                                           ("device_ready", deviceReady.at.map { JSON.number(ProcessClock.milliseconds(to: $0), digits: 1) } ?? "null"),
                                       ])),
                                       ("frames_before_handover", "\(report.framesBeforeHandover)"),
                                       ("first_frame_ms", report.firstFrameAt.map { JSON.number(ProcessClock.milliseconds(to: $0), digits: 1) } ?? "null"),
                                       ("surfaces_allocated", "\(report.decoderPool.allocated + (report.packPool?.allocated ?? 0))"),
                                       // What the device's buffers held at most (MemoryLedger).
                                       ("gpu_memory_peak_mb", (decoder.shared ?? (try? earlyDevice?.get()) ?? nil).map { device in
                                           let peak = device.context.memory.peak
                                           return JSON.object([("device", JSON.number(Double(peak.device) / 1e6, digits: 1)),
                                                               ("host", JSON.number(Double(peak.host) / 1e6, digits: 1))])
                                       } ?? "null"),
                                       ("gpu", report.gpu.map { gpu in
                                           JSON.object([("device", JSON.string(gpu.device.name)), ("kind", JSON.string(gpu.device.kind.rawValue)),
                                                        ("imported_surfaces", "\(gpu.importedSurfaces)"), ("copied_frames", "\(gpu.copiedFrames)"),
                                                        ("conversion_submissions", "\(gpu.conversionSubmissions)"),
                                                        ("color_fallbacks", JSON.array(gpu.colorFallbacks.map(JSON.string))),
                                                        ("frames_with_color_fallback", "\(gpu.framesWithColorFallback)"),
                                                        ("validation_messages", "\(gpu.validationMessages.count)")])
                                       } ?? "null")]
                                      + report.summary.jsonFields + (report.pacing.map { [("realtime", $0.json)] } ?? []))
        if arguments.json {
            if stdoutUsers.isEmpty { Console.standardOutput(summaryJSON + "\n") } else { Console.write(summaryJSON + "\n") }
        } else if !quiet {
            Console.write(report.summary.text + "\n" + (report.pacing.map { $0.text + "\n" } ?? ""))
        }
        return report.isClean ? .success : .damagedFrames
    }
}

/// What a signal cancels: the run, once it exists; until then a note that
/// it must be cancelled as soon as it is attached.
final class PendingCancellation: @unchecked Sendable {
    // @unchecked: both fields are touched only under `lock`.
    private let lock = NSLock()
    private var run: DecodeRun?
    private var cancelled = false

    func cancel() {
        lock.lock()
        cancelled = true
        let run = self.run
        lock.unlock()
        run?.cancel()
    }

    func attach(_ run: DecodeRun) {
        lock.lock()
        self.run = run
        let cancelled = self.cancelled
        lock.unlock()
        if cancelled { run.cancel() }
    }
}

/// `-o`'s sink: raw frames, or the frames in the container `container` names.
private func makeFrameSink(path: String, container: OutputContainer, format: FormatDescription, overwrite: Bool) throws -> FrameSink {
    let file = try OutputFile(path: path, overwrite: overwrite)
    switch container {
    case .raw: return RawSink(file: file)
    case .y4m: return Y4MSink(file: file, format: format)
    case .nut, .mov: return try MuxedRawSink(file: file, format: format, container: container)
    }
}

/// When the GPU decoder's device was ready (the JSON summary's `device_ready`),
/// marked on the thread that made it.
final class DeviceReadyTime: @unchecked Sendable {
    // @unchecked: `time` is touched only under `lock`.
    private let lock = NSLock()
    private var time: UInt64?

    func mark() { lock.withLock { time = monotonicNanoseconds() } }

    var at: UInt64? { lock.withLock { time } }
}
