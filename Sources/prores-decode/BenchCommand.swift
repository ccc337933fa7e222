import GPUKit
import HostSupport
import ProResBench
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode bench INPUT...`: each decoder on the same frames in one
/// process, fps, per-stage percentiles and ratios.
enum BenchCommand: Command {
    static let spec = CommandSpec(
        name: "bench", operands: "INPUT...", summary: "FFmpeg's, our CPU and our GPU decoder on the same frames",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [
                    OptionSpec(
                        "--decoders", value: "ffmpeg,cpu,gpu,gpu-host,gpu-check",
                        help:
                            "the decoders to time, in this order (default cpu,gpu): ffmpeg: FFmpeg's; cpu: ours on the CPU; "
                            + "gpu: our Vulkan decoder "
                            + "into device-resident surfaces, no readback; gpu-host: the same with the DMA into host surfaces; "
                            + "gpu-check: gpu plus check's measurements of every frame on the device (BLAKE3 hash, statistics)"
                    ),
                    OptionSpec(
                        "--frames", value: "N", range: .integer(1...1_000_000),
                        help: "frames each decoder decodes, the clip looped (default 240)"),
                    OptionSpec(
                        "--threads", value: "N", range: .integer(1...256),
                        help: "threads for ffmpeg and cpu (default: one per core)"),
                    OptionSpec(
                        "--batch", value: "N", range: .integer(1...256),
                        help: "frames per GPU batch (default: from the frame size and the device's limits)"),
                    OptionSpec(
                        "--device", value: "N|NAME|all|N,N...",
                        help:
                            "Vulkan device(s) for the gpu decoders: its index in the devices list, or part of its name; all: "
                            + "every hardware GPU at once, batches spread over them; a comma list: those devices (default: a "
                            + "discrete GPU, else an integrated one, else Mesa lavapipe)"),
                    .verbose("also say where each GPU's session threads run (pinned to its NUMA node, or why not)"),
                    OptionSpec("--json", help: "print one JSON array, an object per input, instead of text"),
                    OptionSpec(
                        "--html", value: "FILE",
                        help: "also write a page: per input the decoders' fps and per-stage p50/p95/p99, "
                            + "then charts of fps, stages and each frame's decode latency (one offline file, inline SVG)"
                    ),
                    OptionSpec("--svg", value: "FILE", help: "also write those charts as one SVG document"),
                    .overwrite, .noOverwrite,
                    OptionSpec("--validate", help: "enable the Khronos validation layer on the GPU decoders"),
                ]),
            OptionSection(
                heading: "WHOLE PROCESS",
                options: [
                    OptionSpec(
                        "--whole-process",
                        help: "time whole processes instead: the operands after -- are one command line of this "
                            + "prores-decode (a decode, e.g. -- clip.mov --decoder gpu, or -- check DIR), run with its output discarded, "
                            + "once untimed and then --rounds times, interleaved with --compare's command; prints each "
                            + "side's min/median/max wall seconds and the ratio of the medians (--json, --html as above)"
                    ),
                    OptionSpec(
                        "--rounds", value: "N", range: .integer(1...1000),
                        help: "timed rounds of --whole-process (default 5)"),
                    OptionSpec(
                        "--phases",
                        help: "--whole-process: the decode command line also writes its phase report (--phases) each "
                            + "round, and bench prints each phase's median milliseconds and share of the round, with the time before "
                            + "main() and after the report measured from outside, so that the rows add up to the wall time"
                    ),
                    OptionSpec(
                        "--compare", value: "COMMAND",
                        help:
                            "--whole-process: a second command line, timed in the same rounds (A B, A B, ...); its words are "
                            + "split at spaces, '...' and \"...\" quote, the program is looked up in PATH (e.g. "
                            + "\"ffmpeg -hwaccel vulkan -i clip.mov -f null -\"). A command that fails ends the bench, exit 7"
                    ),
                ]),
        ],
        about:
            "Reads up to --frames samples of each INPUT into memory, then decodes --frames frames with each decoder in "
            + "turn after a warm-up, and prints fps, per-stage p50/p95/p99 and the ratios to the first of ffmpeg or cpu on stdout; "
            + "for the GPU decoders also the bytes a frame takes to the device, the host-to-device bandwidth measured with the "
            + "device's own copy, the fps ceiling they make and the share of it reached. "
            + "With --whole-process, times decode command lines as whole processes instead (start-up to exit).")

    struct Arguments: CommandArguments {
        let inputs: [String]
        let decoders: [DecoderBenchmark.Path]
        let options: DecoderBenchmark.Options
        let json: Bool
        let htmlPath: String?
        let svgPath: String?
        let overwrite: Bool
        let noOverwrite: Bool
        let verbose: Bool
        /// `--whole-process`: the rounds and the command lines, else nil.
        let wholeProcess: WholeProcessArguments?

        init(_ parsed: ParsedArguments) throws {
            wholeProcess = try WholeProcessArguments(parsed)
            guard !parsed.positionals.isEmpty else {
                throw UsageError(
                    wholeProcess == nil
                        ? "bench needs at least one input file"
                        : "bench --whole-process needs a decode command line after --")
            }
            // After --whole-process's `--`, the words are a command line, not files.
            inputs = wholeProcess == nil ? try parsed.operands("input file") : parsed.positionals
            // Each input is read once per decoder from memory, but stdin itself only once.
            if wholeProcess == nil, inputs.filter({ $0 == "-" }).count > 1 {
                throw UsageError("'-' given twice: stdin can be read only once")
            }
            decoders = try (parsed.string("--decoders") ?? "cpu,gpu").split(
                separator: ",", omittingEmptySubsequences: false
            ).map { name in
                guard let path = DecoderBenchmark.Path(rawValue: String(name)) else {
                    throw UsageError(
                        "invalid decoder '\(name)' in --decoders: expected ffmpeg, cpu, gpu, gpu-host or gpu-check")
                }
                return path
            }
            guard Set(decoders).count == decoders.count else { throw UsageError("--decoders names a decoder twice") }
            options = DecoderBenchmark.Options(
                paths: decoders, frames: try parsed.integer("--frames") ?? 240,
                threads: try parsed.integer("--threads") ?? 0,
                device: parsed.string("--device"),
                framesPerBatch: try parsed.integer("--batch"),
                validation: parsed.flag("--validate"), tuning: ProcessSettings.tuning)
            json = parsed.flag("--json")
            htmlPath = parsed.string("--html")
            svgPath = parsed.string("--svg")
            overwrite = parsed.flag("--overwrite")
            noOverwrite = parsed.flag("--no-overwrite")
            verbose = parsed.flag("--verbose")
        }

        func validate() throws {
            try SharedOptions.checkDeviceList(options.device)
            if overwrite && noOverwrite {
                throw UsageError("-y/--overwrite and -n/--no-overwrite contradict each other")
            }
            for (option, path) in [("--html", htmlPath), ("--svg", svgPath)] where path?.isEmpty == true {
                throw UsageError("\(option) needs a file name")
            }
        }

        /// With --whole-process, the timed command lines are not parsed
        /// here: each of their words that names an existing file (a clip, a
        /// list, a golden file) counts as an input, so a page never replaces it.
        func files() -> CommandFiles {
            var files = CommandFiles()
            if let wholeProcess {
                let words = inputs + (wholeProcess.compare ?? [])
                for word in words where !word.hasPrefix("-") {
                    if case .inode = FileIdentity(word) { files.input("a file the timed command lines name", word) }
                }
            } else {
                for input in inputs { files.input("the input", input) }
            }
            files.output("--html", htmlPath)
            files.output("--svg", svgPath)
            return files
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        if let wholeProcess = arguments.wholeProcess { return try runWholeProcess(wholeProcess, arguments) }
        let options = arguments.options
        let paths = arguments.decoders
        FFmpegLog.configure(verbose: false)
        // Opened first, so a path that cannot be written fails before the benchmark runs.
        let html = try arguments.htmlPath.map { try OutputFile(path: $0, overwrite: arguments.overwrite) }
        let svg = try arguments.svgPath.map { try OutputFile(path: $0, overwrite: arguments.overwrite) }
        var reports: [String] = []
        var runs: [BenchRun] = []
        for input in arguments.inputs {
            var bench = try DecoderBenchmark(input: input, options: options)
            var results: [DecoderBenchmark.Result] = []
            if !arguments.json {
                Console.write(
                    "\(input): \(bench.format.profileName) \(bench.format.width)x\(bench.format.height) \(bench.format.chroma.rawValue), "
                        + "\(bench.clipFrames) distinct frames of \(bench.averageFrameBytes / 1000) kB looped to \(options.frames)\n"
                )
            }
            for path in paths {
                // One line per decoder, cleared before its result is printed.
                let progress = ProgressLine.onTerminal(unit: "\(path.rawValue): frame", total: options.frames)
                bench.progress = progress.map { line in { done, _ in line.update(done) } }
                let result: DecoderBenchmark.Result
                do { result = try bench.run(path) } catch {
                    progress?.clear()
                    throw error
                }
                progress?.clear()
                results.append(result)
                if !arguments.json { try Console.standardOutput(result.text) }
                if arguments.verbose {
                    for (index, device) in result.devices.enumerated() {
                        Console.note(
                            "bench: \(path.rawValue) device \(index) (\(device.name)): \(device.placement.summary)")
                    }
                }
            }
            runs.append(
                BenchRun(input: input, format: bench.format, frameBytes: bench.averageFrameBytes, results: results))
            // Ratios to FFmpeg's decoder when it ran, else to ours on the CPU.
            let base = results.first { $0.path == .ffmpeg } ?? results.first { $0.path == .cpu }
            let ratios = results.filter { $0.path != base?.path }.compactMap { result -> (String, Double)? in
                base.map {
                    ("\(result.path.rawValue)/\($0.path.rawValue)", result.framesPerSecond / $0.framesPerSecond)
                }
            }
            if arguments.json {
                reports.append(
                    JSON.object([
                        ("input", JSON.string(URLCredentials.shown(input))),
                        ("profile", JSON.string(bench.format.profileName)),
                        ("width", "\(bench.format.width)"), ("height", "\(bench.format.height)"),
                        ("format", StreamDescription(bench.format).json),
                        ("frame_bytes", "\(bench.averageFrameBytes)"),
                        ("results", JSON.array(results.map(\.json))),
                        ("ratios", JSON.object(ratios.map { ($0.0, JSON.number($0.1, digits: 2)) })),
                    ]))
            } else {
                for (name, ratio) in ratios {
                    try Console.standardOutput("ratio \(name): \(JSON.number(ratio, digits: 2))x\n")
                }
            }
        }
        if arguments.json { try Console.standardOutput(JSON.array(reports) + "\n") }
        if let html {
            try html.write(BenchPage.html(runs))
            try html.commit()
        }
        if let svg {
            try svg.write(BenchCharts.svgDocument(runs))
            try svg.commit()
        }
        return .success
    }
}
