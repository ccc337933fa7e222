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
                    Options.decoders, Options.frames, Options.threads, Options.batch, Options.device, Options.verbose,
                    Options.json, Options.html, Options.svg, SharedOptions.overwrite, SharedOptions.noOverwrite,
                    Options.validate,
                ]),
            OptionSection(
                heading: "WHOLE PROCESS",
                options: [Options.wholeProcess, Options.rounds, Options.phases, Options.compare]),
        ],
        about:
            "Reads up to --frames samples of each INPUT into memory, then decodes --frames frames with each decoder in "
            + "turn after a warm-up, and prints fps, per-stage p50/p95/p99 and the ratios to the first of ffmpeg or cpu on stdout; "
            + "for the GPU decoders also the bytes a frame takes to the device, the host-to-device bandwidth measured with the "
            + "device's own copy, the fps ceiling they make and the share of it reached. "
            + "With --whole-process, times decode command lines as whole processes instead (start-up to exit).")

    /// `bench`'s own options, and the shared ones in `bench`'s words.
    enum Options {
        static let decoders = Option<[DecoderBenchmark.Path]>(
            names: ["--decoders"], value: DecoderBenchmark.Path.allCases.map(\.rawValue).joined(separator: ","),
            expected: "decoders", short: "the decoders to time, in order (cpu,gpu)",
            long: "the decoders to time, in this order (default cpu,gpu): ffmpeg: FFmpeg's; cpu: ours on the CPU; "
                + "gpu: our Vulkan decoder "
                + "into device-resident surfaces, no readback; gpu-host: the same with the DMA into host surfaces; "
                + "gpu-check: gpu plus check's measurements of every frame on the device (BLAKE3 hash, statistics)",
            convert: decoderList)
        static let frames = Option<Int>(
            "--frames", range: 1...1_000_000, short: "frames each decoder decodes (default 240)",
            long: "frames each decoder decodes, the clip looped (default 240)")
        static let threads = SharedOptions.threads.explained(
            "threads for ffmpeg and cpu (default: one per core)", short: "threads for ffmpeg and cpu")
        static let batch = Option<Int>(
            "--batch", range: 1...256, short: "frames per GPU batch",
            long: "frames per GPU batch (default: from the frame size and the device's limits)")
        static let device = SharedOptions.devices.explained(
            "Vulkan device(s) for the gpu decoders: its index in the devices list, or part of its name; all: "
                + "every hardware GPU at once, batches spread over them; a comma list: those devices (default: a "
                + "discrete GPU, else an integrated one, else Mesa lavapipe)")
        static let verbose = SharedOptions.verbose.explained(
            "also say where each GPU's session threads run (pinned to its NUMA node, or why not)")
        static let json = SharedOptions.json.explained(
            "print one JSON array, an object per input, instead of text",
            short: "print one JSON array, an object per input")
        static let html = Option<String>(
            "--html", value: "FILE", short: "also write a page with charts",
            long: "also write a page: per input the decoders' fps and per-stage p50/p95/p99, "
                + "then charts of fps, stages and each frame's decode latency (one offline file, inline SVG)")
        static let svg = Option<String>(
            "--svg", value: "FILE", short: "also write those charts as one SVG",
            long: "also write those charts as one SVG document")
        static let validate = SharedOptions.validate.explained(
            "enable the Khronos validation layer on the GPU decoders")
        static let wholeProcess = Flag(
            "--whole-process", short: "time whole decode processes instead",
            long: "time whole processes instead: the operands after -- are one command line of this "
                + "prores-decode (a decode, e.g. -- clip.mov --decoder gpu, or -- check DIR), run with its output discarded, "
                + "once untimed and then --rounds times, interleaved with --compare's command; prints each "
                + "side's min/median/max wall seconds and the ratio of the medians (--json, --html as above)")
        static let rounds = Option<Int>(
            "--rounds", range: 1...1000, short: "timed rounds of --whole-process (default 5)",
            long: "timed rounds of --whole-process (default 5)")
        static let phases = Flag(
            "--phases", short: "--whole-process: each phase's median too",
            long: "--whole-process: the decode command line also writes its phase report (--phases) each "
                + "round, and bench prints each phase's median milliseconds and share of the round, with the time before "
                + "main() and after the report measured from outside, so that the rows add up to the wall time")
        static let compare = Option<[String]>(
            names: ["--compare"], value: "COMMAND", expected: "a command line (an unclosed quote?)",
            short: "--whole-process: a second command line",
            long: "--whole-process: a second command line, timed in the same rounds (A B, A B, ...); its words are "
                + "split at spaces, '...' and \"...\" quote, the program is looked up in PATH (e.g. "
                + "\"ffmpeg -hwaccel vulkan -i clip.mov -f null -\"). A command that fails ends the bench, exit 7"
        ) { line in WholeProcessBenchmark.words(line).flatMap { $0.isEmpty ? nil : $0 } }

        /// `--decoders`: known names, each once, in the order given.
        private static func decoderList(_ text: String) throws -> [DecoderBenchmark.Path] {
            let decoders = try text.split(separator: ",", omittingEmptySubsequences: false).map { name in
                guard let path = DecoderBenchmark.Path(rawValue: String(name)) else {
                    let names = Choices.words(DecoderBenchmark.Path.allCases.map(\.rawValue))
                    throw UsageError("invalid decoder '\(name)' in --decoders: expected \(names)")
                }
                return path
            }
            guard Set(decoders).count == decoders.count else { throw UsageError("--decoders names a decoder twice") }
            return decoders
        }
    }

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
            decoders = try parsed[Options.decoders] ?? [.cpu, .gpu]
            options = DecoderBenchmark.Options(
                paths: decoders, frames: try parsed[Options.frames] ?? 240,
                threads: try parsed[Options.threads] ?? 0,
                device: try parsed[Options.device],
                framesPerBatch: try parsed[Options.batch],
                validation: parsed[Options.validate], tuning: ProcessSettings.tuning)
            json = parsed[Options.json]
            htmlPath = try parsed[Options.html]
            svgPath = try parsed[Options.svg]
            overwrite = parsed[SharedOptions.overwrite]
            noOverwrite = parsed[SharedOptions.noOverwrite]
            verbose = parsed[Options.verbose]
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
