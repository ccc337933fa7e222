import Foundation
import Glibc
import HostSupport
import ProResCheck
import ProResCore
import ProResOptions
import ProResPipeline

/// `check --resume PREVIOUS.json`: which of this run's files keep their
/// earlier verdict (`CheckResume`), and the reports made of both.
struct ResumedFiles {
    /// By path: the earlier report's line for each file carried over.
    let carried: [String: ShardReport.File]
    /// The golden file PREVIOUS.json's run wrote, for the carried files' lines.
    let golden: GoldenFile?

    /// `files`: the command line's own, for the output-safety rule, which
    /// the golden file named inside PREVIOUS.json joins as one more input.
    static func load(_ path: String, options: String, inputs: [CheckInput], wantsGolden: Bool, files: CommandFiles)
        throws -> ResumedFiles
    {
        let bytes = try ReportInput.bytes(path, what: "--resume")
        let directory = ShardMergeDirectory.of(path)
        let previous: ShardReport
        do { previous = try ShardReport(parsing: bytes, directory: directory) } catch let problem as ShardReport.Problem
        {
            throw ProResDecodeError.inputUnreadable(path: path, reason: "--resume: \(problem)")
        }
        guard previous.run.options == options else {
            Console.note(
                "check: --resume: \(path) was made with other options ('\(previous.run.options)'): every file is checked"
            )
            return ResumedFiles(carried: [:], golden: nil)
        }
        let resume = CheckResume(previous)
        var carried: [String: ShardReport.File] = [:]
        for input in inputs { if let file = resume.carried(input) { carried[input.path] = file } }
        var golden: GoldenFile?
        if wantsGolden, !carried.isEmpty {
            guard let goldenPath = ReportInput.goldenPath(of: previous, at: path) else {
                throw UsageError(
                    "--write-golden with --resume needs the golden file of '\(path)', whose check wrote none")
            }
            var files = files
            files.input("the golden file of --resume", goldenPath)
            try OutputSafety.check(files)
            golden = try ReportInput.golden(goldenPath, what: "--resume")
        }
        return ResumedFiles(carried: carried, golden: golden)
    }

    /// Each carried file's line on stderr, marked, before the others are checked.
    func announce(_ inputs: [CheckInput]) {
        for input in inputs {
            guard let file = carried[input.path] else { continue }
            let reason =
                file.status == .pass || file.status == .warn
                ? "" : ": " + (file.details().problems.first ?? file.status.rawValue)
            Console.line("\(file.status.rawValue.uppercased()) \(input.path)\(reason) (carried)")
        }
        if !carried.isEmpty { Console.note("check: --resume: \(carried.count) of \(inputs.count) files carried over") }
    }

    func summary(_ results: [FileCheckResult], seconds: Double, shard: CheckShard?, sample: Int?) -> CheckSummary {
        let statuses = results.map(\.status) + carried.values.map(\.status)
        return CheckSummary(
            files: statuses.count, passed: statuses.filter { $0 == .pass }.count,
            warned: statuses.filter { $0 == .warn }.count, failed: statuses.filter { $0 == .fail }.count,
            errors: statuses.filter { $0 == .error }.count, seconds: seconds, shard: shard, sample: sample)
    }

    /// The report's file lines in path order: the checked files' and the carried ones'.
    func json(_ results: [FileCheckResult], inputs: [CheckInput], summary: CheckSummary, run: CheckRun) -> String {
        let checked = Dictionary(
            results.map { ($0.input.path, CheckReport.file($0)) }, uniquingKeysWith: { first, _ in first })
        return CheckReport.json(
            fileLines: inputs.compactMap { carried[$0.path]?.line ?? checked[$0.path] }, summary: summary.json,
            run: run.json)
    }

    func junit(_ results: [FileCheckResult], inputs: [CheckInput], summary: CheckSummary) -> String {
        let checked = Dictionary(results.map { ($0.input.path, $0) }, uniquingKeysWith: { first, _ in first })
        let cases = inputs.compactMap { input -> JUnitReport.Case? in
            if let file = carried[input.path] { return file.junitCase }
            return checked[input.path].map {
                JUnitReport.Case(
                    name: PathBytes.reportText($0.input.path), status: $0.status, problems: $0.problems,
                    seconds: $0.seconds,
                    warnings: $0.warnings)
            }
        }
        return JUnitReport.xml(cases, failed: summary.failed, errors: summary.errors, seconds: summary.seconds)
    }

    /// The carried files' golden lines, from the earlier run's golden file.
    func addGolden(to file: inout GoldenFile) {
        guard let golden else { return }
        for key in carried.values.map(\.key) {
            guard let plain = PathBytes.fromReportText(key), let frames = golden.entries[plain] else { continue }
            file.add(
                key: plain, hashes: frames.sorted { $0.key < $1.key }.map { (index: $0.key, hash: $0.value) },
                decoder: golden.decoders[plain], mayDiffer: (golden.mayDiffer[plain] ?? []).sorted())
        }
    }
}
