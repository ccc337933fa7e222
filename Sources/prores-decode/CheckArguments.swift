import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline
import ProResOptions

extension CheckCommand {
    /// `check PATH... [options]` read from the command line: each value
    /// checked on its own, then every rule between options in `validate()`.
    struct Arguments: CommandArguments {
        let paths: [String]
        let rules: [ExpectRule]
        let sample: Int?
        let jobs: Int
        let threads: Int
        let shard: CheckShard?
        let timeout: Double
        let previewsPath: String?
        let previewFrames: Int?
        let reportPath: String?
        let junitPath: String?
        let htmlPath: String?
        let goldenPath: String?
        let writeGoldenPath: String?
        let overwrite: Bool
        let noOverwrite: Bool
        let verbose: Bool
        let decoderChoice: DecoderSelection.Choice?
        let device: String?
        let requireHardware: Bool
        let filter: CheckInputFilter

        init(_ parsed: ParsedArguments) throws {
            paths = parsed.positionals
            guard !paths.isEmpty else { throw UsageError("missing PATH to check (see prores-decode check --help)") }
            if let stdin = paths.first(where: { $0 == "-" }) {
                let golden = parsed.string("--golden") == "-" ? " (and --golden - reads stdin)" : ""
                throw UsageError("'\(stdin)': check reads files, not stdin\(golden)")
            }
            do { rules = try parsed.string("--expect").map(ExpectRule.parseList) ?? [] } catch {
                throw UsageError(ErrorWords.render(error))
            }
            sample = try parsed.integer("--sample", in: 1...Int.max)
            jobs = try parsed.integer("--jobs", in: 1...256) ?? 0
            threads = try parsed.integer("--threads", in: 1...256) ?? 0
            shard = try parsed.value("--shard", expected: "I/N with 1 ≤ I ≤ N", CheckShard.init(parsing:))
            timeout = try parsed.value("--timeout", expected: "seconds above 0, at most 604800") { text in
                Double(text).flatMap { $0.isFinite && $0 > 0 && $0 <= 604_800 ? $0 : nil }
            } ?? CheckOptions.defaultTimeout
            previewsPath = parsed.string("--previews")
            previewFrames = try parsed.integer("--preview-frames", in: PreviewOptions.framesRange)
            if previewsPath?.isEmpty == true { throw UsageError("--previews needs a directory") }
            reportPath = parsed.string("--report")
            junitPath = parsed.string("--junit")
            htmlPath = parsed.string("--html")
            goldenPath = parsed.string("--golden")
            writeGoldenPath = parsed.string("--write-golden")
            overwrite = parsed.flag("--overwrite")
            noOverwrite = parsed.flag("--no-overwrite")
            verbose = parsed.flag("--verbose")
            decoderChoice = try parsed.value("--decoder", expected: "cpu, ffmpeg, gpu or auto", DecoderSelection.Choice.init(rawValue:))
            device = parsed.string("--device")
            requireHardware = parsed.flag("--require-hardware")
            func patterns(_ option: String) throws -> [PathPattern] {
                try parsed.strings(option).map { text in
                    guard let pattern = PathPattern(text) else { throw UsageError("\(option) '\(text)' is not a usable pattern") }
                    return pattern
                }
            }
            filter = CheckInputFilter(include: try patterns("--include"), exclude: try patterns("--exclude"))
        }

        func validate() throws {
            if overwrite && noOverwrite { throw UsageError("-y/--overwrite and -n/--no-overwrite contradict each other") }
            if requireHardware, let decoderChoice, decoderChoice != .gpu {
                throw UsageError("--require-hardware needs the GPU decoder, not --decoder \(decoderChoice.rawValue)")
            }
            if let decoderChoice, decoderChoice.isCPU, device != nil {
                throw UsageError("--device needs the GPU decoder, not --decoder \(decoderChoice.rawValue)")
            }
            if device?.isEmpty == true { throw UsageError("--device needs a device index, name or 'all'") }
            try OptionSpec.checkDeviceList(device)
            if previewFrames != nil, previewsPath == nil { throw UsageError("--preview-frames needs --previews DIR") }
            // A golden file records every frame: one written from a sample would fail every full check after it.
            if sample != nil, writeGoldenPath != nil { throw UsageError("--write-golden records every frame: it cannot be combined with --sample") }
            let outputs = [("--report", reportPath), ("--junit", junitPath), ("--html", htmlPath), ("--write-golden", writeGoldenPath)]
            let stdoutUsers = outputs.filter { $0.1 == "-" }.map(\.0)
            if stdoutUsers.count > 1 { throw UsageError("\(stdoutUsers.joined(separator: " and ")) cannot both write to stdout") }
            let named = outputs.compactMap(\.1).filter { $0 != "-" }
            if Set(named).count < named.count { throw UsageError("two outputs name the same file") }
            if let goldenPath, named.contains(goldenPath) { throw UsageError("--golden '\(goldenPath)' is also an output") }
        }

        var decoder: DecoderSelection {
            DecoderSelection(choice: decoderChoice ?? .auto, requireHardware: requireHardware, device: device)
        }

        var previews: PreviewOptions? {
            previewsPath.map { PreviewOptions(directory: $0, frames: previewFrames ?? PreviewOptions.defaultFrames) }
        }
    }
}
