import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline


/// `prores-decode bench INPUT... [--decoders cpu,gpu,gpu-host] [--frames N]
/// [--threads N] [--batch N] [--device N|NAME] [--json]`: each decoder on
/// the same frames in one process, fps, per-stage percentiles and ratios.
enum BenchCommand {
    static let options: [OptionSpec] = [.value("--decoders"), .value("--frames"), .value("--threads"), .value("--batch"),
                                        .value("--device"), .flag("--json"), .flag("--validate")]

    static func run(_ arguments: [String]) throws -> ExitCode {
        let parsed = try ParsedArguments(arguments, accepting: options)
        guard !parsed.positionals.isEmpty else { throw UsageError("bench needs at least one input file") }
        let paths = try (parsed.string("--decoders") ?? "cpu,gpu").split(separator: ",", omittingEmptySubsequences: false).map { name in
            guard let path = DecoderBenchmark.Path(rawValue: String(name)) else {
                throw UsageError("invalid decoder '\(name)' in --decoders: expected cpu, gpu or gpu-host")
            }
            return path
        }
        guard Set(paths).count == paths.count else { throw UsageError("--decoders names a decoder twice") }
        let options = DecoderBenchmark.Options(paths: paths, frames: try parsed.integer("--frames", in: 1...1_000_000) ?? 240,
                                               threads: try parsed.integer("--threads", in: 1...256) ?? 0,
                                               device: parsed.string("--device"),
                                               framesPerBatch: try parsed.integer("--batch", in: 1...256),
                                               validation: parsed.flag("--validate"))
        FFmpegLog.configure(verbose: false)
        var reports: [String] = []
        for input in parsed.positionals {
            let bench = try DecoderBenchmark(input: input, options: options)
            var results: [DecoderBenchmark.Result] = []
            if !parsed.flag("--json") {
                Console.write("\(input): \(bench.format.profileName) \(bench.format.width)x\(bench.format.height) \(bench.format.chroma.rawValue), "
                              + "\(bench.clipFrames) distinct frames of \(bench.averageFrameBytes / 1000) kB looped to \(options.frames)\n")
            }
            for path in paths {
                let result = try bench.run(path)
                results.append(result)
                if !parsed.flag("--json") { Console.standardOutput(result.text) }
            }
            let cpu = results.first { $0.path == .cpu }
            let ratios = results.filter { $0.path != .cpu }.compactMap { result -> (String, Double)? in
                cpu.map { ("\(result.path.rawValue)/cpu", result.framesPerSecond / $0.framesPerSecond) }
            }
            if parsed.flag("--json") {
                reports.append(JSON.object([
                    ("input", JSON.string(input)), ("profile", JSON.string(bench.format.profileName)),
                    ("width", "\(bench.format.width)"), ("height", "\(bench.format.height)"),
                    ("frame_bytes", "\(bench.averageFrameBytes)"),
                    ("results", JSON.array(results.map(\.json))),
                    ("ratios", JSON.object(ratios.map { ($0.0, JSON.number($0.1, digits: 2)) })),
                ]))
            } else {
                for (name, ratio) in ratios { Console.standardOutput("ratio \(name): \(JSON.number(ratio, digits: 2))x\n") }
            }
        }
        if parsed.flag("--json") { Console.standardOutput(JSON.array(reports) + "\n") }
        return .success
    }
}
