import Foundation
import GPUKit
import HostSupport
import ProResCheck
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode check PATH... [options]`: batch QC for CI. Every file is
/// decoded (or sampled), judged pass / fail / error, and reported on stderr
/// and, if asked, as JSON, JUnit XML, an HTML page and a golden md5 file.
enum CheckCommand: Command {
    static func run(_ arguments: Arguments) throws -> ExitCode {
        let sample = arguments.sample
        let verbose = arguments.verbose
        let (shard, shardSource) = try resolveShard(arguments.shard)
        let golden = try arguments.goldenPath.map(loadGolden)
        let listed = try arguments.listPath.map(loadList) ?? []
        var expanded = CheckInputExpander.expand(arguments.paths, listed: listed)
        if let listPath = arguments.listPath, listed.isEmpty {
            // A check never passes by finding nothing: an empty list (a query that matched nothing) is an error.
            let name = listPath == "-" ? "stdin" : listPath
            expanded.append(CheckInput(path: name, key: name, problem: "the --list names no files"))
            expanded.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        }
        if let golden, GoldenCoverage.covers(paths: arguments.paths) {
            expanded = GoldenCoverage.withMissing(
                expanded, golden: golden, directories: arguments.listPath == nil ? arguments.paths : [])
        }
        let filtered = arguments.filter.apply(expanded)
        let everything = filtered.kept
        try noteSkipped(filtered)
        let inputs = shard?.select(everything) ?? everything
        var previews = arguments.previews
        let run = CheckRun(
            options: arguments.runOptions(golden: golden), inputs: everything, shard: shard, shardSource: shardSource,
            goldenPath: arguments.writeGoldenPath.flatMap { $0 == "-" ? nil : $0 })
        if let shardSource, let shard { Console.note("check: shard \(shard) from \(shardSource)") }
        let resumed = try arguments.resumePath.map {
            try ResumedFiles.load(
                $0, options: run.options, inputs: inputs, wantsGolden: arguments.writeGoldenPath != nil,
                files: arguments.files())
        }
        let toCheck = resumed.map { r in inputs.filter { r.carried[$0.path] == nil } } ?? inputs
        if golden != nil || arguments.writeGoldenPath != nil {
            var owners: [String: String] = [:]
            for input in inputs where input.problem == nil {
                if let other = owners.updateValue(input.path, forKey: input.key) {
                    throw UsageError(
                        "'\(other)' and '\(input.path)' would share the golden name '\(input.key)'; check them in separate runs"
                    )
                }
            }
        }
        if previews != nil {
            var owners: [String: String] = [:]
            for input in inputs where input.problem == nil {
                let name = PreviewOptions.baseName(key: input.key)
                if let other = owners.updateValue(input.path, forKey: name) {
                    throw UsageError(
                        "'\(other)' and '\(input.path)' would share the preview name '\(name)'; check them in separate runs"
                    )
                }
            }
        }
        // Open every output before checking: a bad path fails fast.
        // Reports are CI artifacts a rerun regenerates: replaced by default,
        // atomically at the end (OutputFile writes a temporary beside each and
        // renames it on commit), with a note; -n keeps the refusal other
        // commands default to. A golden file is a reference someone made:
        // it is replaced only with -y, like every other output.
        let overwrite = !arguments.noOverwrite
        let replaced = [arguments.reportPath, arguments.junitPath, arguments.htmlPath].compactMap { $0 }.filter {
            path in
            var info = stat()
            return path != "-" && PathBytes.withCString(path, { stat($0, &info) }) == 0
                && (info.st_mode & S_IFMT) == S_IFREG
        }
        let report = try arguments.reportPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let junit = try arguments.junitPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let html = try arguments.htmlPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let goldenOut = try arguments.writeGoldenPath.map { try OutputFile(path: $0, overwrite: arguments.overwrite) }
        if let directory = previews?.directory {
            try PreviewOptions.prepare(directory: directory)
            try previews?.stage()
        }
        FFmpegLog.configure(verbose: verbose)

        let started = monotonicNanoseconds()
        var options = CheckOptions(
            sample: sample, jobs: arguments.jobs, timeout: arguments.timeout,
            rules: arguments.policy.failRules + arguments.rules,
            golden: golden, threadsPerFile: arguments.threads, previews: previews, decoder: arguments.decoder,
            keepsFrameSeries: arguments.htmlPath != nil)
        options.warningRules = arguments.policy.warningRules
        options.measuresAudio = !arguments.skipsAudio
        // Files, and the frames inside them as the files open (a long file
        // is minutes of one file): `file 0/1 frame 480/20100 2% 220 fps ETA 1:30`.
        let progress = ProgressLine.onTerminal(unit: "file", total: toCheck.count, rateUnit: nil)
        let counts = CheckProgressCounts(files: toCheck.count)
        if let progress {
            options.frameProgress = CheckFrameProgress { done, expected in
                progress.draw { seconds in counts.frames(done: done, expected: expected, seconds: seconds) }
            }
        }
        let batch = BatchCheck(inputs: toCheck, options: options)
        KeptUntilExit.keep(batch)
        let finished = FinishedResults()
        batch.onResult = { result in
            finished.append(result)
            progress?.clear()
            Console.line(line(result, verbose: verbose))
            if verbose { for problem in result.problems.dropFirst() { Console.line("  also: " + problem) } }
            for warning in result.warnings { Console.line("  warning: " + warning) }
            for note in result.descriptionChangeNotes { Console.line("  note: " + note) }
            if verbose, let note = previewNote(result) { Console.line("  " + note) }
            counts.fileDone()
            progress?.draw(force: true) { seconds in counts.text(seconds: seconds) }
        }
        let trap = SignalTrap { batch.cancel() }
        defer { withExtendedLifetime(trap) {} }
        // Verbose names the devices first; otherwise `auto`'s device starts while the first file is checked.
        try batch.prepareDevices(waitingForThem: verbose)
        if verbose {
            Console.note(
                "check: decoder \(batch.decoderDescription)\(batch.decoderNote.map { " (\($0))" } ?? ""), \(batch.jobs) files at once"
            )
        }
        if verbose {
            for (index, device) in batch.devices.enumerated() {
                Console.note("check: device \(index) (\(device.context.info.name)): \(device.placement.summary)")
            }
        }
        if inputs.isEmpty, let shard { Console.note("check: shard \(shard) holds no files") }
        if let resumed { resumed.announce(inputs) }
        // The totals of `results` (and of the files --resume carried) so far.
        func summarise(_ results: [FileCheckResult]) -> CheckSummary {
            let seconds = Double(monotonicNanoseconds() - started) / 1e9
            return resumed?.summary(results, seconds: seconds, shard: shard, sample: sample)
                ?? CheckSummary(results, seconds: seconds, shard: shard, sample: sample)
        }
        let results: [FileCheckResult]
        do { results = try batch.run() } catch ProResDecodeError.interrupted {
            // What the run finished stays: a report `--resume` carries on from.
            progress?.clear()
            var summary = summarise(finished.results)
            summary.interrupted = true
            Console.write("TOTAL \(summary.text)\n")
            try publish(
                finished.results, summary: summary, golden: goldenOut, report: report, resumed: resumed, inputs: inputs,
                run: run)
            throw ProResDecodeError.interrupted
        } catch {
            progress?.clear()
            throw error
        }
        progress?.clear()
        if verbose {
            for (index, device) in batch.devices.enumerated() {
                Console.note("check: device \(index): " + MemoryWords.peak(device.context.memory.peak))
            }
            let shared = batch.sharedSessionStatistics
            if shared.streams > 0 {
                Console.note(
                    "check: shared decode session: \(shared.overlapped) of \(shared.streams) files started while the one before"
                        + " was on the device, \(shared.mixedBatches) batches held two files' frames")
            }
        }
        let summary = summarise(results)
        let previewFailures = results.compactMap { result -> String? in
            if case .failed(let reason)? = result.previews { return "\(result.input.path): \(reason)" }
            return nil
        }
        if !verbose, let first = previewFailures.first {
            Console.warning(
                "no previews for \(previewFailures.count) file\(previewFailures.count == 1 ? "" : "s") (first: \(first));"
                    + " the report and --verbose list each")
        }
        Console.write("TOTAL \(summary.text)\n")
        // Before the reports that link them.
        try previews?.publishStaged()

        try publish(
            results, summary: summary, golden: goldenOut, report: report, resumed: resumed, inputs: inputs, run: run)
        if let junit {
            try junit.write(
                resumed?.junit(results, inputs: inputs, summary: summary) ?? JUnitReport.xml(results, summary: summary))
            try junit.commit()
        }
        if let html, let path = arguments.htmlPath {
            // Previews are linked relative to the page: stdout's page is read from here.
            let directory = path == "-" ? "." : (path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : ".")
            try html.write(
                CheckPage.html(
                    results, summary: summary, decoder: batch.decoderDescription,
                    pageDirectory: directory.isEmpty ? "/" : directory))
            try html.commit()
        }
        for path in replaced { Console.note("check: replaced the existing \(path)") }
        return exitCode(failed: summary.failed, errors: summary.errors, warned: summary.warned, arguments.onWarning)
    }

    /// 10 when a file failed (or warned, with `--on-warning fail`), else 11
    /// when one could not be checked, else 15 when one warned (unless
    /// `--on-warning pass`), else 0; `merge` exits by the same rule.
    static func exitCode(failed: Int, errors: Int, warned: Int, _ onWarning: WarningExit) -> ExitCode {
        if failed > 0 || (warned > 0 && onWarning == .fail) { return .checkFailed }
        if errors > 0 { return .checkErrors }
        return warned > 0 && onWarning == .warn ? .checkWarnings : .success
    }

    /// The golden file and the JSON report of `results` (with the carried
    /// files of `--resume`): at the end of a run, and of an interrupted one.
    private static func publish(
        _ results: [FileCheckResult], summary: CheckSummary, golden goldenOut: OutputFile?, report: OutputFile?,
        resumed: ResumedFiles?, inputs: [CheckInput], run: CheckRun
    ) throws {
        if let goldenOut {
            var file = GoldenFile()
            for result in results where result.decodedCleanly {
                file.add(
                    key: result.input.key, hashes: result.hashes, decoder: GoldenFile.decoderFamily(result.decoder),
                    mayDiffer: result.decodersMayDiffer)
            }
            resumed?.addGolden(to: &file)
            let left = results.filter { !$0.decodedCleanly }
            if !left.isEmpty {
                Console.note(
                    "not in the golden file (frames not decoded cleanly): \(left.map(\.input.path).joined(separator: ", "))"
                )
            }
            try goldenOut.write(file.text)
            try goldenOut.commit()
        }
        if let report {
            try report.write(
                resumed?.json(results, inputs: inputs, summary: summary, run: run)
                    ?? CheckReport.json(results, summary: summary, run: run))
            try report.commit()
        }
    }

    /// `PASS path`, `WARN path (2 warnings)`, `FAIL path: reason`, `ERROR
    /// path: reason` (the first reason, and how many more there are; with
    /// `verbose` the others follow on lines of their own). Each warning
    /// follows on a line of its own.
    static func line(_ result: FileCheckResult, verbose: Bool = false) -> String {
        let problems = result.problems
        let more = problems.count > 1 && !verbose ? " (+\(problems.count - 1) more)" : ""
        let retried =
            result.retries.isEmpty
            ? "" : " (opened after \(result.retries.count) failed tr\(result.retries.count == 1 ? "y" : "ies"))"
        switch result.status {
        case .pass: return "PASS \(result.input.path)\(retried)"
        case .warn:
            let count = result.warnings.count
            return "WARN \(result.input.path)\(retried) (\(count) warning\(count == 1 ? "" : "s"))"
        case .fail: return "FAIL \(result.input.path): \(problems.first ?? "failed")\(more)"
        case .error: return "ERROR \(result.input.path): \(problems.first ?? "error")\(more)"
        }
    }

    /// With `--verbose`, the line under a file's own: where its previews went,
    /// or why there are none. Nil for a file that could not be checked.
    static func previewNote(_ result: FileCheckResult) -> String? {
        switch result.previews {
        case nil, .skipped?: return nil
        case .written(let sheet, let frame, _, _, _)?: return "previews: \(sheet), \(frame)"
        case .failed(let reason)?: return "previews: none: \(reason)"
        }
    }

    /// `--shard auto` resolved from the engine's variables, with where it came from.
    private static func resolveShard(_ request: ShardRequest?) throws -> (CheckShard?, String?) {
        switch request {
        case nil: return (nil, nil)
        case .fixed(let shard)?: return (shard, nil)
        case .auto(let count)?:
            do {
                let choice = try ShardEnvironment.resolve(
                    count: count, environment: ProcessInfo.processInfo.environment)
                return (choice.shard, choice.source)
            } catch let problem as ShardEnvironment.Problem {
                throw UsageError(problem.description)
            }
        }
    }

    /// The lines of a `--list` file (`-`: stdin), its problems in words; merge reads its list here too.
    static func loadList(_ path: String) throws -> [String] {
        do { return try CheckInputList.read(path) } catch let problem as CheckInputList.Problem {
            throw ProResDecodeError.inputUnreadable(path: path == "-" ? "stdin" : path, reason: "--list: \(problem)")
        }
    }

    private static func loadGolden(_ path: String) throws -> GoldenFile {
        // check reads its files by name, so stdin is free for the golden file.
        try ReportInput.golden(path)
    }
}

/// How many files `check` has reported; results arrive from worker threads.
/// What `check`'s progress line counts: files reported, frames checked.
final class CheckProgressCounts: @unchecked Sendable {
    // @unchecked: the counts are touched only under `lock`.
    private let lock = NSLock()
    private let files: Int
    private var filesDone = 0
    private var framesDone = 0
    private var framesExpected: Int?

    init(files: Int) { self.files = files }

    func fileDone() { lock.withLock { filesDone += 1 } }

    /// The line after frame `done` of the `expected` the opened files hold.
    func frames(done: Int, expected: Int?, seconds: Double) -> String {
        lock.withLock { (framesDone, framesExpected) = (done, expected) }
        return text(seconds: seconds)
    }

    func text(seconds: Double) -> String {
        lock.withLock {
            "file \(filesDone)/\(files) "
                + (framesDone == 0
                    ? ""
                    : ProgressText.line(unit: "frame", done: framesDone, total: framesExpected, seconds: seconds))
        }
    }
}

/// The results `check` has reported, in list order; they arrive on worker threads.
final class FinishedResults: @unchecked Sendable {
    // @unchecked: `list` is touched only under `lock`.
    private let lock = NSLock()
    private var list: [FileCheckResult] = []

    func append(_ result: FileCheckResult) { lock.withLock { list.append(result) } }
    var results: [FileCheckResult] { lock.withLock { list } }
}
