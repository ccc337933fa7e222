import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode INPUT [options]`: decode to raw frames, frame checksums and
/// timing.
enum DecodeCommand: Command {
    /// The steps: the decoder's device started, the stream opened, the run
    /// made with every output open, the frames decoded, what happened said.
    static func run(_ arguments: DecodeArguments) throws -> ExitCode {
        // Before anything is timed: the phases are kept from here, and the file is opened now (a bad path fails first).
        if let path = arguments.phasesPath {
            PhasesAtExit.start(try OutputFile(path: path, overwrite: arguments.overwrite))
        }
        let referenceWhite = arguments.referenceWhite ?? TransferFunction.defaultReferenceWhite
        let effects = try arguments.playback.effects(referenceWhite: referenceWhite)
        let gpu =
            arguments.useVulkan
            ? DecodeRun.GPUOptions(
                context: .init(
                    device: arguments.device, validation: arguments.validation, tuning: ProcessSettings.tuning),
                referenceWhite: referenceWhite, effects: effects) : nil
        FFmpegLog.configure(verbose: arguments.verbose)
        // In place before any output exists: a signal during set-up cancels
        // the run as soon as there is one (DecodeRun stops before decoding).
        let pending = PendingCancellation()
        let trap = SignalTrap { pending.cancel() }
        defer { withExtendedLifetime(trap) {} }

        // The GPU decoder's device is made while the container opens.
        let plan = DecoderPlan(startingDeviceFor: arguments.decoder) { KeptUntilExit.keep($0) }
        // A job that ends before the device is there exits without it.
        defer { if plan.endDeviceStart() { PhasesAtExit.leftRunning("vulkan device start") } }
        let (source, opened, range) = try openSource(arguments, readingAheadFor: plan)
        let format = source.format
        plan.prepareKernels(for: format, converting: gpu != nil)
        let realtime = try arguments.playback.pacingRate(for: format)
        // FFmpeg may decode first only where nothing needs the device before the first frame.
        try plan.settle(for: format, allowsHandover: !arguments.noCPUStart && gpu == nil && realtime == nil)
        let run = try makeRun(
            arguments, source: source, range: range, plan: plan, gpu: gpu, realtime: realtime,
            referenceWhite: referenceWhite)
        if !arguments.quiet { sayStreamNotes(run, format) }
        pending.attach(run)
        let report = try decode(run, arguments, range: range, format: format)
        try Trace.span("summary written") {
            sayOutcome(report, run: run, plan: plan, arguments, format: format)
            let summaryJSON = summary(report, input: arguments.input, plan: plan, opened: opened)
            if arguments.json {
                if arguments.stdoutUsers.isEmpty {
                    try Console.standardOutput(summaryJSON + "\n")
                } else {
                    Console.write(summaryJSON + "\n")
                }
            } else if !arguments.quiet {
                Console.write(report.summary.text + "\n" + (report.pacing.map { $0.text + "\n" } ?? ""))
            }
        }
        PhasesAtExit.tearingDown()
        return report.isClean ? .success : .damagedFrames
    }

    /// The frames asked for, in frames of the input (`--start`/`--frames`
    /// may be seconds or time code).
    struct FrameRange {
        let start: Int
        let frames: Int?
    }

    /// The input opened (and when) with the user's colour assumptions, the
    /// range asked for in frames, a start past its end refused, and, with a
    /// device starting, its first samples read meanwhile.
    private static func openSource(_ arguments: DecodeArguments, readingAheadFor plan: DecoderPlan)
        throws -> (SampleSource, UInt64, FrameRange)
    {
        let file = try Trace.span("source opened") { try openSampleSource(arguments.input, track: arguments.track) }
        let readAhead = ProcessSettings.tuning.readAhead
        if let readAhead { file.readAhead(samples: readAhead) }
        let assumed = arguments.assumed
        let source: SampleSource =
            assumed == (nil, nil, nil)
            ? file
            : AssumedColourSource(
                file, primaries: assumed.primaries, transfer: assumed.transfer, matrix: assumed.matrix)
        let opened = monotonicNanoseconds()
        // Seconds and time codes are frames at the input's rate and first time code.
        let range = FrameRange(
            start: try arguments.start(for: source.format), frames: try arguments.frames(for: source.format))
        // A start past a counted end is refused before any note or output:
        // the source's own seek says so, in its words.
        if range.start > 0, let count = source.format.frameCount, range.start >= count {
            try source.seek(toFrame: range.start)
        }
        if plan.startsDevice {
            source.readAhead(samples: readAhead ?? SampleSourcePrefetch.readsAheadOfOneFile)
            // The first batches' samples are read while the device is made,
            // so the first batch is whole at once.
            if range.start == 0 {
                source.prefetch(frames: min(SampleSourcePrefetch.framesBeforeTheDecoder, range.frames ?? .max))
            }
        }
        return (source, opened, range)
    }

    /// The run, with every output opened first: a bad path fails before decoding.
    private static func makeRun(
        _ arguments: DecodeArguments, source: SampleSource, range: FrameRange, plan: DecoderPlan,
        gpu: DecodeRun.GPUOptions?, realtime: FrameRate?, referenceWhite: Double
    ) throws -> DecodeRun {
        let format = source.format
        let overwrite = arguments.overwrite
        let start = range.start
        let frames = range.frames
        // A container holds only what FFmpeg can read back; decided before any output exists.
        let container = arguments.container
        // Hashes alone (no -o, no --vulkan) make the native planar frame they hash.
        let hashesAlone =
            arguments.rawPath == nil && !arguments.useVulkan && (arguments.md5Path != nil || arguments.hashPath != nil)
        let output =
            arguments.output ?? (hashesAlone ? .native : container == .raw ? nil : container.defaultOutput(for: format))
        if let refusal = container.refusal(holding: output ?? container.defaultOutput(for: format), of: format) {
            throw UsageError("-o \(arguments.rawPath ?? "-"): \(refusal)")
        }
        var sinks: [FrameSink] = []
        var nativeSinks: [FrameSink] = []
        if let rawPath = arguments.rawPath {
            sinks.append(
                try makeFrameSink(
                    path: rawPath, container: container, format: format, firstFrame: start, overwrite: overwrite,
                    audio: arguments.dropsAudio
                        ? nil : try audioCopy(arguments, container: container, format: format, range: range)))
        }
        // Hashes are of the native planar frame (`ffmpeg -f framemd5`'s
        // bytes) unless --format names a packed layout.
        let hashedLayout: PackedLayout? = if case .packed(let layout)? = arguments.output { layout } else { nil }
        if let md5Path = arguments.md5Path {
            let sink = FrameHashSink(
                file: try OutputFile(path: md5Path, overwrite: overwrite), format: format, algorithm: .md5,
                layout: hashedLayout)
            if hashedLayout == nil && output != .native { nativeSinks.append(sink) } else { sinks.append(sink) }
        }
        // BLAKE3 is the analysis hash: computed where the frame lives
        // (on the GPU decoder's device, in any layout), never read back.
        var analysis: (request: AnalysisRequest, sink: FrameAnalysisSink)?
        if let hashPath = arguments.hashPath {
            let sink = FrameHashSink(
                file: try OutputFile(path: hashPath, overwrite: overwrite), format: format, algorithm: .blake3,
                layout: hashedLayout)
            if let hashedLayout {
                sink.frameBytes = hashedLayout.bytesPerRow(width: format.width) * format.height
                analysis = (AnalysisRequest(hash: true, statistics: nil, hashedLayout: hashedLayout), sink)
            } else {
                sink.frameBytes = format.nativeFormat.tightByteCount(width: format.width, height: format.height)
                analysis = (AnalysisRequest(hash: true, statistics: nil), sink)
            }
        }
        let timing = try arguments.timingPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        // --frames may be as large as Int.max: clamp rather than overflow.
        let saved = start..<(frames.map { $0 > Int.max - start ? Int.max : start + $0 } ?? Int.max)
        let gpuSinks: [ConvertedFrameSink] =
            try arguments.savePath.map {
                [
                    try FrameSaver(
                        directory: $0, format: arguments.saveFormat ?? .exr,
                        tags: ImageFileTags(format: format, referenceWhite: referenceWhite),
                        overwrite: overwrite, frames: saved)
                ]
            } ?? []
        var options = DecodeRun.Options(
            output: output, start: start, frames: frames, threads: arguments.threads, gpu: gpu,
            decoder: plan.selection, realtime: realtime, analysis: analysis?.request)
        options.plan = plan
        return try DecodeRun(
            source: source, options: options, sinks: sinks, nativeSinks: nativeSinks, gpuSinks: gpuSinks,
            analysisSink: analysis?.sink, timingLog: timing)
    }

    /// What the stream itself makes worth saying before decoding.
    private static func sayStreamNotes(_ run: DecodeRun, _ format: FormatDescription) {
        if let warning = run.output.conversionWarning(for: format) { Console.warning(warning) }
        for note in format.notes { Console.warning(note) }
        for note in ColourFallbackNotes.stream(format.colorTags) { Console.note(note) }
    }

    /// The run, with a progress line on a terminal.
    private static func decode(
        _ run: DecodeRun, _ arguments: DecodeArguments, range: FrameRange, format: FormatDescription
    )
        throws -> DecodeRun.Report
    {
        let progress = ProgressLine.onTerminal(
            total: range.frames ?? format.frameCount.map { $0 - range.start },
            mediaFrameRate: format.framesPerSecond, quiet: arguments.quiet)
        run.progress = progress.map { line in { line.update($0) } }
        defer { progress?.clear() }
        return try Trace.span("decode run") { try run.run() }
    }

    /// After the run: the decoder (`auto` may have fallen back to the CPU
    /// while starting), the GPU's notes, and every damaged or failed frame.
    private static func sayOutcome(
        _ report: DecodeRun.Report, run: DecodeRun, plan: DecoderPlan, _ arguments: DecodeArguments,
        format: FormatDescription
    ) {
        let quiet = arguments.quiet
        if !quiet && (arguments.verbose || plan.selection.choice != .auto || run.decoderFellBack) {
            // Counted only where the GPU decoder took over.
            let handover =
                report.framesBeforeHandover > 0
                ? "; the CPU decoded the first \(report.framesBeforeHandover) while its device started" : ""
            Console.note("decoder: \(run.decoderName)" + (run.decoderNote.map { " (\($0))" } ?? "") + handover)
        }
        if let gpu = report.gpu, !quiet {
            for note in ColourFallbackNotes.conversion(gpu.colorFallbacks, stream: format.colorTags) {
                Console.note(note)
            }
            Console.note(
                "GPU: \(gpu.device.name) (\(gpu.device.kind.rawValue)); \(gpu.importedSurfaces) surfaces imported without a copy"
                    + (gpu.copiedFrames > 0
                        ? ", \(gpu.copiedFrames) frames copied (the driver cannot import host memory)" : ""))
        }
        for (index, reason) in report.damaged { Console.warning("frame \(index) damaged: \(reason)") }
        for index in report.decodersMayDiffer { Console.warning("frame \(index): \(DecodedFrame.mayDifferNote)") }
        for (index, reason) in report.failed { Console.error("frame \(index) not decoded: \(reason)") }
        if let shortfall = report.shortfall { Console.error(shortfall) }
    }

    /// The `--json` summary.
    private static func summary(_ report: DecodeRun.Report, input: String, plan: DecoderPlan, opened: UInt64) -> String
    {
        JSON.object(
            [
                ("input", JSON.string(URLCredentials.shown(input))), ("format", JSON.string(report.output.name)),
                ("decoder", JSON.string(report.decoder)),
                ("frames_read", "\(report.framesRead)"), ("frames_written", "\(report.framesWritten)"),
                ("damaged", JSON.array(report.damaged.map { "\($0.index)" })),
                ("failed", JSON.array(report.failed.map { "\($0.index)" })),
                ("decoders_may_differ", JSON.array(report.decodersMayDiffer.map { "\($0)" })),
                ("truncated", report.shortfall == nil ? "false" : "true"),
                // Start-up, from process start: the container open, the GPU
                // device made (in parallel with opening), the first frame out.
                (
                    "startup_ms",
                    JSON.object([
                        ("source_open", JSON.number(ProcessClock.milliseconds(to: opened), digits: 1)),
                        (
                            "device_ready",
                            plan.deviceReadyAt.map { JSON.number(ProcessClock.milliseconds(to: $0), digits: 1) }
                                ?? "null"
                        ),
                    ])
                ),
                ("frames_before_handover", "\(report.framesBeforeHandover)"),
                (
                    "first_frame_ms",
                    report.firstFrameAt.map { JSON.number(ProcessClock.milliseconds(to: $0), digits: 1) } ?? "null"
                ),
                ("surfaces_allocated", "\(report.decoderPool.allocated + (report.packPool?.allocated ?? 0))"),
                // What the device's buffers held at most (MemoryLedger).
                (
                    "gpu_memory_peak_mb",
                    plan.device.map { device in
                        let peak = device.context.memory.peak
                        return JSON.object([
                            ("device", JSON.number(Double(peak.device) / 1e6, digits: 1)),
                            ("host", JSON.number(Double(peak.host) / 1e6, digits: 1)),
                        ])
                    } ?? "null"
                ),
                (
                    "gpu",
                    report.gpu.map { gpu in
                        JSON.object([
                            ("device", JSON.string(gpu.device.name)), ("kind", JSON.string(gpu.device.kind.rawValue)),
                            ("imported_surfaces", "\(gpu.importedSurfaces)"), ("copied_frames", "\(gpu.copiedFrames)"),
                            ("conversion_submissions", "\(gpu.conversionSubmissions)"),
                            ("color_fallbacks", JSON.array(gpu.colorFallbacks.map(JSON.string))),
                            ("frames_with_color_fallback", "\(gpu.framesWithColorFallback)"),
                            ("validation_messages", "\(gpu.validationMessages.count)"),
                        ])
                    } ?? "null"
                ),
            ]
                + report.summary.jsonFields + (report.pacing.map { [("realtime", $0.json)] } ?? []))
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
private func makeFrameSink(
    path: String, container: OutputContainer, format: FormatDescription, firstFrame: Int,
    overwrite: Bool, audio: AudioCopy?
) throws -> FrameSink {
    let file = try OutputFile(path: path, overwrite: overwrite)
    switch container {
    case .raw: return RawSink(file: file)
    case .y4m: return Y4MSink(file: file, format: format)
    case .nut, .mov:
        return try MuxedRawSink(file: file, format: format, container: container, firstFrame: firstFrame, audio: audio)
    }
}

/// The input's sound tracks `-o` carries, each one it cannot named on
/// stderr: a container without sound (raw, y4m), a codec other than PCM,
/// an input that cannot be read twice (stdin, a pipe).
private func audioCopy(
    _ arguments: DecodeArguments, container: OutputContainer, format: FormatDescription,
    range: DecodeCommand.FrameRange
) throws -> AudioCopy? {
    let tracks = format.audioTracks
    guard !tracks.isEmpty else { return nil }
    func notCarried(_ track: AudioTrack, _ why: String) {
        Console.warning(
            "audio track \(track.index) (\(track.codec), \(track.channels) channel\(track.channels == 1 ? "" : "s")) "
                + "is not carried: \(why); --audio none drops it without this line")
    }
    if container == .raw || container == .y4m {
        let holder = container == .raw ? "raw frames hold" : "y4m holds"
        for track in tracks { notCarried(track, "\(holder) no sound (write .mov or .nut)") }
        return nil
    }
    if arguments.input == "-" || !isRegularOrRemote(arguments.input) {
        for track in tracks { notCarried(track, "the input is read once (a pipe), and its sound would be read again") }
        return nil
    }
    for track in tracks where !track.isPCM || (track.bitDepth ?? 0) % 8 != 0 {
        notCarried(track, "only PCM is copied, and this is \(track.codec)")
    }
    let carried = tracks.filter { $0.isPCM && ($0.bitDepth ?? 0) % 8 == 0 && ($0.bitDepth ?? 0) > 0 }
    guard !carried.isEmpty else { return nil }
    let copy = try AudioCopy(
        input: arguments.input, tracks: carried, cutsToVideo: range.start > 0 || range.frames != nil)
    for track in carried where !copy.trackIndices.contains(track.index) {
        notCarried(track, "its samples are not whole bytes")
    }
    return copy
}

/// A regular file, or a URL: an input libavformat can open a second time.
private func isRegularOrRemote(_ input: String) -> Bool {
    if FileURL.localPath(input) == nil, FileURL.isRemote(input) { return true }
    var info = stat()
    let path = FileURL.localPath(input) ?? input
    return PathBytes.withCString(path) { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG
}
