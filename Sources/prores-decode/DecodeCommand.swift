import Glibc
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline

/// `prores-decode INPUT [options]`: decode to raw frames, frame checksums and
/// timing.
enum DecodeCommand {
    static let options: [OptionSpec] = [
        .value("--format"), .value("--output", "-o"), .value("--framemd5"), .value("--timing"),
        .value("--start"), .value("--frames"), .value("--threads"), .value("--track"),
        .flag("--json"), .flag("--overwrite"), .flag("--quiet"), .flag("--verbose"),
        .flag("--vulkan"), .value("--device"), .value("--reference-white"), .value("--save"), .value("--save-format"),
        .flag("--validate"), .value("--decoder"), .flag("--require-hardware"), .flag("--no-hardware"),
    ] + PlaybackOptions.options

    /// `--decoder`, `--require-hardware`, `--no-hardware` (shared with `bench`).
    static func decoderSelection(_ parsed: ParsedArguments, validation: Bool) throws -> DecoderSelection {
        let named = try parsed.string("--decoder").map { name -> DecoderSelection.Choice in
            guard let choice = DecoderSelection.Choice(rawValue: name) else {
                throw UsageError("invalid value '\(name)' for --decoder: expected cpu, gpu or auto")
            }
            return choice
        }
        let require = parsed.flag("--require-hardware"), forbid = parsed.flag("--no-hardware")
        if require && forbid { throw UsageError("--require-hardware and --no-hardware contradict each other") }
        if require, let named, named != .gpu { throw UsageError("--require-hardware needs the GPU decoder, not --decoder \(named.rawValue)") }
        if forbid, let named, named == .gpu { throw UsageError("--no-hardware contradicts --decoder gpu") }
        return DecoderSelection(choice: forbid ? .cpu : named ?? .auto, requireHardware: require,
                                device: parsed.string("--device"), validation: validation)
    }

    static func run(_ arguments: [String]) throws -> ExitCode {
        let parsed = try ParsedArguments(arguments, accepting: options)
        let input = try parsed.single("input file")
        let output = try parsed.string("--format").map { name -> OutputSelection in
            guard let selection = OutputSelection(name: name) else {
                throw UsageError("invalid value '\(name)' for --format: expected y416, v216 or native")
            }
            return selection
        }
        let start = try parsed.integer("--start", in: 0...Int(Int32.max)) ?? 0
        let frames = try parsed.integer("--frames", in: 1...Int.max)
        let threads = try parsed.integer("--threads", in: 1...256) ?? 0
        let track = try parsed.integer("--track", in: 0...Int(Int32.max))
        let savePath = parsed.string("--save")
        let saveFormat = try parsed.string("--save-format").map { name -> FrameSaver.Format in
            guard let format = FrameSaver.Format(rawValue: name) else {
                throw UsageError("invalid value '\(name)' for --save-format: expected exr or png")
            }
            return format
        }
        if saveFormat != nil && savePath == nil { throw UsageError("--save-format needs --save DIR") }
        let referenceWhite = try parsed.string("--reference-white").map { text -> Double in
            guard let nits = Double(text), nits.isFinite, nits > 0, nits <= 10000 else {
                throw UsageError("invalid value '\(text)' for --reference-white: expected nits between 0 and 10000")
            }
            return nits
        }
        // --save reads converted frames back from the GPU, so it implies --vulkan.
        let useVulkan = parsed.flag("--vulkan") || savePath != nil
        let validation = parsed.flag("--validate") || VulkanContext.Options().validation
        let decoder = try decoderSelection(parsed, validation: validation)
        if !useVulkan {
            if parsed.string("--reference-white") != nil { throw UsageError("--reference-white needs --vulkan") }
            for option in ["--device", "--validate"] where decoder.choice == .cpu && (parsed.string(option) != nil || parsed.flag(option)) {
                throw UsageError("\(option) needs --vulkan or the GPU decoder")
            }
        }
        let effects = try PlaybackOptions.effects(parsed, vulkan: useVulkan, referenceWhite: referenceWhite ?? TransferFunction.defaultReferenceWhite)
        let rate = try PlaybackOptions.rate(parsed)
        let gpu = useVulkan ? DecodeRun.GPUOptions(
            context: .init(device: parsed.string("--device"), validation: validation),
            referenceWhite: referenceWhite ?? TransferFunction.defaultReferenceWhite, effects: effects) : nil
        let quiet = parsed.flag("--quiet")
        let overwrite = parsed.flag("--overwrite")
        let rawPath = parsed.string("--output"), md5Path = parsed.string("--framemd5"), timingPath = parsed.string("--timing")
        let stdoutUsers = [("-o", rawPath), ("--framemd5", md5Path), ("--timing", timingPath)].filter { $0.1 == "-" }.map { $0.0 }
        if stdoutUsers.count > 1 {
            throw UsageError("\(stdoutUsers.joined(separator: " and ")) cannot both write to stdout")
        }
        let named = [rawPath, md5Path, timingPath].compactMap { $0 }.filter { $0 != "-" }
        if Set(named).count < named.count { throw UsageError("two outputs name the same file") }
        if input != "-", named.contains(where: { isSameFile($0, input) }) {
            throw UsageError("an output names the input file '\(input)'")
        }
        FFmpegLog.configure(verbose: parsed.flag("--verbose"))

        let source = try openSampleSource(input, track: track)
        let format = source.format
        let realtime = try PlaybackOptions.realtime(parsed, rate: rate, format: format)
        let run: DecodeRun
        do {
            var sinks: [FrameSink] = []
            // Open every output before decoding: a bad path fails fast.
            if let rawPath { sinks.append(RawSink(file: try OutputFile(path: rawPath, overwrite: overwrite))) }
            let layoutName = (output ?? .packed(format.nativePackedLayout)) == .native ? format.nativeFormat.name : (output ?? .packed(format.nativePackedLayout)).name
            if let md5Path { sinks.append(FrameMD5Sink(file: try OutputFile(path: md5Path, overwrite: overwrite), layoutName: layoutName)) }
            let timing = try timingPath.map { try OutputFile(path: $0, overwrite: overwrite) }
            let gpuSinks: [ConvertedFrameSink] = try savePath.map { [try FrameSaver(directory: $0, format: saveFormat ?? .exr)] } ?? []
            run = try DecodeRun(source: source, options: .init(output: output, start: start, frames: frames, threads: threads, gpu: gpu,
                                                                decoder: decoder, realtime: realtime),
                                sinks: sinks, gpuSinks: gpuSinks, timingLog: timing)
        }
        if !quiet {
            if let warning = run.output.conversionWarning(for: format) { Console.warning(warning) }
            for note in format.notes { Console.warning(note) }
            for (name, tag) in [("primaries", format.colorTags.primaries), ("transfer", format.colorTags.transfer), ("matrix", format.colorTags.matrix)]
            where tag.source == .fallback {
                Console.note("\(name) untagged: assuming \(tag.value.displayName) (documented fallback)")
            }
        }
        let progress = !quiet && Console.stderrIsTerminal ? ProgressLine(total: frames ?? format.frameCount.map { $0 - start }) : nil
        run.progress = progress.map { line in { line.update($0) } }
        let trap = SignalTrap { run.cancel() }
        defer { withExtendedLifetime(trap) {} }

        let report: DecodeRun.Report
        do {
            report = try run.run()
        } catch {
            progress?.clear()
            throw error
        }
        progress?.clear()

        // After the run: `auto` may have fallen back to the CPU while starting.
        if !quiet && (parsed.flag("--verbose") || decoder.choice != .auto || run.decoderFellBack) {
            Console.note("decoder: \(run.decoderName)" + (run.decoderNote.map { " (\($0))" } ?? ""))
        }
        if let gpu = report.gpu, !quiet {
            for fallback in gpu.colorFallbacks { Console.note("colour: \(fallback)") }
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
                                       ("surfaces_allocated", "\(report.decoderPool.allocated + (report.packPool?.allocated ?? 0))"),
                                       ("gpu", report.gpu.map { gpu in
                                           JSON.object([("device", JSON.string(gpu.device.name)), ("kind", JSON.string(gpu.device.kind.rawValue)),
                                                        ("imported_surfaces", "\(gpu.importedSurfaces)"), ("copied_frames", "\(gpu.copiedFrames)"),
                                                        ("color_fallbacks", JSON.array(gpu.colorFallbacks.map(JSON.string))),
                                                        ("frames_with_color_fallback", "\(gpu.framesWithColorFallback)"),
                                                        ("validation_messages", "\(gpu.validationMessages.count)")])
                                       } ?? "null")]
                                      + report.summary.jsonFields + (report.pacing.map { [("realtime", $0.json)] } ?? []))
        if parsed.flag("--json") {
            if stdoutUsers.isEmpty { Console.standardOutput(summaryJSON + "\n") } else { Console.write(summaryJSON + "\n") }
        } else if !quiet {
            Console.write(report.summary.text + "\n" + (report.pacing.map { $0.text + "\n" } ?? ""))
        }
        return report.isClean ? .success : .damagedFrames
    }

    private static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
