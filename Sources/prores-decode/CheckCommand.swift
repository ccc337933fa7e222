import Foundation
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline

/// `prores-decode check PATH... [options]`: batch QC for CI. Every file is
/// decoded (or sampled), judged pass / fail / error, and reported on stderr
/// and, if asked, as JSON, JUnit XML and a golden md5 file.
enum CheckCommand {
    static let options: [OptionSpec] = [
        .value("--report"), .value("--junit"), .value("--expect"), .value("--golden"), .value("--write-golden"),
        .value("--sample"), .value("--jobs"), .value("--shard"), .value("--timeout"), .value("--threads"), .flag("--overwrite"),
        .value("--previews"), .value("--preview-frames"),
        .flag("--verbose"), .flag("--help", "-h"),
    ]

    static func run(_ arguments: [String]) throws -> ExitCode {
        let parsed = try ParsedArguments(arguments, accepting: options)
        if parsed.flag("--help") {
            Console.standardOutput(HelpText.check + "\n")
            return .success
        }
        let paths = parsed.positionals
        guard !paths.isEmpty else { throw UsageError("missing PATH to check (see check --help)") }
        if let stdin = paths.first(where: { $0 == "-" }) { throw UsageError("'\(stdin)': check reads files, not stdin") }
        let rules: [ExpectRule]
        do { rules = try parsed.string("--expect").map(ExpectRule.parseList) ?? [] } catch {
            throw UsageError("\(error)")
        }
        let sample = try parsed.integer("--sample", in: 1...Int.max)
        let jobs = try parsed.integer("--jobs", in: 1...256) ?? 1
        let threads = try parsed.integer("--threads", in: 1...256) ?? 0
        let shard = try parsed.string("--shard").map { text -> CheckShard in
            guard let shard = CheckShard(parsing: text) else {
                throw UsageError("invalid value '\(text)' for --shard: expected I/N with 1 ≤ I ≤ N")
            }
            return shard
        }
        let timeout = try parsed.string("--timeout").map { text -> Double in
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 604_800 else {
                throw UsageError("invalid value '\(text)' for --timeout: expected seconds above 0, at most 604800")
            }
            return seconds
        } ?? CheckOptions.defaultTimeout
        let previewsPath = parsed.string("--previews")
        let previewFrames = try parsed.integer("--preview-frames", in: PreviewOptions.framesRange)
        if previewFrames != nil, previewsPath == nil { throw UsageError("--preview-frames needs --previews DIR") }
        if previewsPath?.isEmpty == true { throw UsageError("--previews needs a directory") }
        let reportPath = parsed.string("--report"), junitPath = parsed.string("--junit")
        let goldenPath = parsed.string("--golden"), writeGoldenPath = parsed.string("--write-golden")
        let outputs = [("--report", reportPath), ("--junit", junitPath), ("--write-golden", writeGoldenPath)]
        let stdoutUsers = outputs.filter { $0.1 == "-" }.map(\.0)
        if stdoutUsers.count > 1 { throw UsageError("\(stdoutUsers.joined(separator: " and ")) cannot both write to stdout") }
        let named = outputs.compactMap(\.1).filter { $0 != "-" }
        if Set(named).count < named.count { throw UsageError("two outputs name the same file") }
        if let goldenPath, named.contains(goldenPath) { throw UsageError("--golden '\(goldenPath)' is also an output") }

        let golden = try goldenPath.map(loadGolden)
        let everything = CheckInputExpander.expand(paths)
        let inputs = shard?.select(everything) ?? everything
        if golden != nil || writeGoldenPath != nil {
            var owners: [String: String] = [:]
            for input in inputs where input.problem == nil {
                if let other = owners.updateValue(input.path, forKey: input.key) {
                    throw UsageError("'\(other)' and '\(input.path)' would share the golden name '\(input.key)'; check them in separate runs")
                }
            }
        }
        let previews = previewsPath.map { PreviewOptions(directory: $0, frames: previewFrames ?? PreviewOptions.defaultFrames) }
        if previews != nil {
            var owners: [String: String] = [:]
            for input in inputs where input.problem == nil {
                let name = PreviewOptions.baseName(key: input.key)
                if let other = owners.updateValue(input.path, forKey: name) {
                    throw UsageError("'\(other)' and '\(input.path)' would share the preview name '\(name)'; check them in separate runs")
                }
            }
        }
        // Open every output before checking: a bad path fails fast.
        let overwrite = parsed.flag("--overwrite")
        let report = try reportPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let junit = try junitPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let goldenOut = try writeGoldenPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        if let previews { try PreviewOptions.prepare(directory: previews.directory) }
        let verbose = parsed.flag("--verbose")
        FFmpegLog.configure(verbose: verbose)

        let started = monotonicNanoseconds()
        let batch = BatchCheck(inputs: inputs, options: CheckOptions(sample: sample, jobs: jobs, timeout: timeout, rules: rules, golden: golden,
                                                                       threadsPerFile: threads, previews: previews))
        batch.onResult = { result in
            Console.write(line(result) + "\n")
            if verbose, let note = previewNote(result) { Console.write("  " + note + "\n") }
        }
        let trap = SignalTrap { batch.cancel() }
        defer { withExtendedLifetime(trap) {} }
        if inputs.isEmpty, let shard { Console.note("check: shard \(shard) holds no files") }
        let results = try batch.run()
        let summary = CheckSummary(results, seconds: Double(monotonicNanoseconds() - started) / 1e9, shard: shard, sample: sample)
        let previewFailures = results.compactMap { result -> String? in
            if case let .failed(reason)? = result.previews { return "\(result.input.path): \(reason)" }
            return nil
        }
        if !verbose, let first = previewFailures.first {
            Console.warning("no previews for \(previewFailures.count) file\(previewFailures.count == 1 ? "" : "s") (first: \(first));"
                            + " the report and --verbose list each")
        }
        Console.write("TOTAL \(summary.text)\n")

        if let goldenOut {
            var file = GoldenFile()
            for result in results where result.decodedCleanly { file.add(key: result.input.key, md5s: result.md5s) }
            let left = results.filter { !$0.decodedCleanly }
            if !left.isEmpty {
                Console.note("not in the golden file (frames not decoded cleanly): \(left.map(\.input.path).joined(separator: ", "))")
            }
            try goldenOut.write(file.text)
            try goldenOut.commit()
        }
        if let report {
            try report.write(CheckReport.json(results, summary: summary))
            try report.commit()
        }
        if let junit {
            try junit.write(JUnitReport.xml(results, summary: summary))
            try junit.commit()
        }
        return summary.failed > 0 ? .checkFailed : summary.errors > 0 ? .checkErrors : .success
    }

    /// `PASS path`, `FAIL path: reason`, `ERROR path: reason` (the first
    /// reason, and how many more there are).
    static func line(_ result: FileCheckResult) -> String {
        let problems = result.problems
        let more = problems.count > 1 ? " (+\(problems.count - 1) more)" : ""
        switch result.status {
        case .pass: return "PASS \(result.input.path)"
        case .fail: return "FAIL \(result.input.path): \(problems.first ?? "failed")\(more)"
        case .error: return "ERROR \(result.input.path): \(problems.first ?? "error")\(more)"
        }
    }

    /// With `--verbose`, the line under a file's own: where its previews went,
    /// or why there are none. Nil for a file that could not be checked.
    static func previewNote(_ result: FileCheckResult) -> String? {
        switch result.previews {
        case nil, .skipped?: return nil
        case let .written(sheet, frame, _, _)?: return "previews: \(sheet), \(frame)"
        case let .failed(reason)?: return "previews: none: \(reason)"
        }
    }

    private static func loadGolden(_ path: String) throws -> GoldenFile {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            var info = stat()
            let reason = stat(path, &info) != 0 ? "no such file" : "not readable as UTF-8 text"
            throw ProResDecodeError.inputUnreadable(path: path, reason: "golden file: \(reason)")
        }
        do { return try GoldenFile(parsing: text) } catch {
            throw ProResDecodeError.inputUnreadable(path: path, reason: "golden file: \(error)")
        }
    }
}
