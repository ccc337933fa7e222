import GPUKit
import HostSupport
import ProResCheck
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

extension CheckCommand {
    /// `check PATH... [options]` read from the command line: each value
    /// checked on its own, then every rule between options in `validate()`.
    struct Arguments: CommandArguments {
        let paths: [String]
        let listPath: String?
        let resumePath: String?
        let rules: [ExpectRule]
        /// `--policy FILE|default|none`, as given; nil: the default policy.
        let policyPath: String?
        /// The policy in force, `--expect`'s rules not among them.
        let policy: CheckPolicy
        let onWarning: WarningExit
        /// `--audio none`: the sound is not measured.
        let skipsAudio: Bool
        let sample: Int?
        let jobs: Int
        let threads: Int
        let shard: ShardRequest?
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
            paths = try parsed.operands("PATH")
            listPath = try parsed[Options.list]
            resumePath = try parsed[Options.resume]
            guard !paths.isEmpty || listPath != nil else {
                throw UsageError("missing PATH to check, or --list FILE (see prores-decode check --help)")
            }
            if listPath?.isEmpty == true { throw UsageError("--list needs a file, or - for stdin") }
            if let stdin = paths.first(where: { $0 == "-" }) {
                let golden = try parsed[Options.golden] == "-" ? " (and --golden - reads stdin)" : ""
                throw UsageError("'\(stdin)': check reads files, not stdin\(golden)")
            }
            rules = try parsed[Options.expect] ?? []
            policyPath = try parsed[Options.policy]
            if policyPath?.isEmpty == true { throw UsageError("--policy needs a file, default or none") }
            policy = try CheckPolicyFile.load(policyPath)
            onWarning = try parsed[SharedOptions.onWarning] ?? .warn
            skipsAudio = try parsed[Options.audio] == .skip
            if skipsAudio, let rule = rules.first(where: { AudioExpectation.measuredKeys.contains($0.key) }) {
                throw UsageError("--expect \(rule.text) needs the sound measured: leave out --audio none")
            }
            sample = try parsed[Options.sample]
            jobs = try parsed[Options.jobs] ?? 0
            threads = try parsed[Options.threads] ?? 0
            shard = try parsed[Options.shard]
            timeout = try parsed[Options.timeout] ?? CheckOptions.defaultTimeout
            previewsPath = try parsed[Options.previews]
            previewFrames = try parsed[Options.previewFrames]
            if previewsPath?.isEmpty == true { throw UsageError("--previews needs a directory") }
            reportPath = try parsed[SharedOptions.report]
            junitPath = try parsed[SharedOptions.junit]
            htmlPath = try parsed[SharedOptions.html]
            goldenPath = try parsed[Options.golden]
            writeGoldenPath = try parsed[SharedOptions.writeGolden]
            overwrite = parsed[Options.overwrite]
            noOverwrite = parsed[Options.noOverwrite]
            verbose = parsed[Options.verbose]
            decoderChoice = try parsed[Options.decoder]
            device = try parsed[Options.device]
            requireHardware = parsed[Options.requireHardware]
            filter = CheckInputFilter(
                include: try parsed.every(Options.include), exclude: try parsed.every(Options.exclude))
        }

        func validate() throws {
            if overwrite && noOverwrite {
                throw UsageError("-y/--overwrite and -n/--no-overwrite contradict each other")
            }
            if requireHardware, let decoderChoice, decoderChoice != .gpu {
                throw UsageError("--require-hardware needs the GPU decoder, not --decoder \(decoderChoice.rawValue)")
            }
            if let decoderChoice, decoderChoice.isCPU, device != nil {
                throw UsageError("--device needs the GPU decoder, not --decoder \(decoderChoice.rawValue)")
            }
            if device?.isEmpty == true { throw UsageError("--device needs a device index, name or 'all'") }
            try SharedOptions.checkDeviceList(device)
            if previewFrames != nil, previewsPath == nil { throw UsageError("--preview-frames needs --previews DIR") }
            // A golden file records every frame: one written from a sample would fail every full check after it.
            if sample != nil, writeGoldenPath != nil {
                throw UsageError("--write-golden records every frame: it cannot be combined with --sample")
            }
            let outputs = [
                ("--report", reportPath), ("--junit", junitPath), ("--html", htmlPath),
                ("--write-golden", writeGoldenPath),
            ]
            let stdoutUsers = outputs.filter { $0.1 == "-" }.map(\.0)
            if stdoutUsers.count > 1 {
                throw UsageError("\(stdoutUsers.joined(separator: " and ")) cannot both write to stdout")
            }
            if resumePath != nil, htmlPath != nil {
                throw UsageError(
                    "--html cannot be combined with --resume (carried files have no per-frame numbers): "
                        + "prores-decode merge REPORT --html FILE makes the page from the report")
            }
            if let resumePath, resumePath == reportPath {
                throw UsageError("--resume '\(resumePath)' is also the --report: give the new report another name")
            }
            if listPath == "-", goldenPath == "-" { throw UsageError("--list - and --golden - cannot both read stdin") }
        }

        /// Each file the folders expand to and the filters keep (in any
        /// shard) is an input; a file excluded is not checked, so a page
        /// kept inside the checked folder can be regenerated. Each preview
        /// is a file named in advance, an output.
        func files() -> CommandFiles {
            var files = CommandFiles()
            // A list read from a file names inputs too (stdin's cannot be read twice).
            let listed = listPath.flatMap { $0 == "-" ? nil : try? CheckInputList.read($0) } ?? []
            let expanded = filter.apply(CheckInputExpander.expand(paths, listed: listed)).kept
            for path in paths { files.input("the input", path) }
            for input in expanded { files.input("the input", input.path) }
            files.input("--golden", goldenPath)
            files.input("--list", listPath)
            files.input("--resume", resumePath)
            if policyPath != "none", policyPath != "default" { files.input("--policy", policyPath) }
            for (option, path) in [
                ("--report", reportPath), ("--junit", junitPath), ("--html", htmlPath),
                ("--write-golden", writeGoldenPath),
            ] {
                files.output(option, path)
            }
            if let previews {
                // Two inputs sharing a preview name are the run's to refuse, in its own words.
                var names: Set<String> = []
                for input in expanded
                where input.problem == nil && names.insert(PreviewOptions.baseName(key: input.key)).inserted {
                    files.output("--previews", previews.sheetPath(key: input.key))
                    files.output("--previews", previews.framePath(key: input.key))
                }
            }
            return files
        }

        var decoder: DecoderSelection {
            DecoderSelection(
                choice: decoderChoice ?? .auto, requireHardware: requireHardware, device: device,
                tuning: ProcessSettings.tuning)
        }

        /// The options that shape verdicts, for the report's `"run"`
        /// (`CheckRun.options`): what `merge` requires shards to share and
        /// `--resume` requires of the earlier run. Previews never change a
        /// verdict, so they are not among them.
        func runOptions(golden: GoldenFile?) -> String {
            var words: [String] = []
            if !rules.isEmpty { words += ["--expect", rules.map(\.text).joined(separator: ",")] }
            // The default policy adds no words: a report of a run without --policy reads as before.
            if let policyPath, policyPath != "default" {
                let stated =
                    (policy.failRules.map { "fail " + $0.policyText }
                    + policy.warningRules.map { "warn " + $0.policyText })
                    .joined(separator: "\n")
                words += [
                    "--policy",
                    policyPath == "none"
                        ? "none"
                        : "blake3:" + Array(stated.utf8).withUnsafeBytes { BLAKE3.hash($0, parallel: false).hex },
                ]
            }
            if let golden {
                words += [
                    "--golden",
                    "blake3:" + Array(golden.text.utf8).withUnsafeBytes { BLAKE3.hash($0, parallel: false).hex },
                ]
            }
            if let sample { words += ["--sample", "\(sample)"] }
            if skipsAudio { words += ["--audio", "none"] }
            words +=
                filter.include.flatMap { ["--include", $0.text] } + filter.exclude.flatMap { ["--exclude", $0.text] }
            if timeout != CheckOptions.defaultTimeout { words += ["--timeout", JSON.number(timeout, digits: 3)] }
            if let decoderChoice { words += ["--decoder", decoderChoice.rawValue] }
            return words.joined(separator: " ")
        }

        var previews: PreviewOptions? {
            previewsPath.map { PreviewOptions(directory: $0, frames: previewFrames ?? PreviewOptions.defaultFrames) }
        }
    }

    /// `--on-warning`: what a WARN does to the exit status.
    enum WarningExit: String, CaseIterable {
        /// Exit 0 when every file passed, warnings or not.
        case pass
        /// Exit 15 when every file passed and one has warnings.
        case warn
        /// A WARN exits as a FAIL does: 10.
        case fail
    }

    /// `--shard I/N`, `auto` or `auto/N` (`ShardEnvironment`).
    enum ShardRequest {
        case fixed(CheckShard)
        case auto(count: Int?)

        init?(parsing text: String) {
            if text == "auto" {
                self = .auto(count: nil)
            } else if text.hasPrefix("auto/") {
                guard let count = PlainNumber.integer(text.dropFirst(5), in: 1...CheckShard.maximumCount) else {
                    return nil
                }
                self = .auto(count: count)
            } else {
                guard let shard = CheckShard(parsing: text) else { return nil }
                self = .fixed(shard)
            }
        }
    }
}
