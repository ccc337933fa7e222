import Foundation
import Glibc
import HostSupport
import ProResCheck
import ProResCore
import ProResOptions
import ProResPipeline

/// `prores-decode merge REPORT.json...`: the shard reports of one `check`
/// (`--shard`), proven complete and joined into one report, JUnit file,
/// page and golden file.
enum MergeCommand: Command {
    struct Arguments: CommandArguments {
        let reports: [String]
        let reportPath: String?
        let junitPath: String?
        let htmlPath: String?
        let writeGoldenPath: String?
        let listPath: String?
        let overwrite: Bool
        let noOverwrite: Bool
        let onWarning: CheckCommand.WarningExit

        init(_ parsed: ParsedArguments) throws {
            reports = parsed.positionals
            guard !reports.isEmpty else {
                throw UsageError("missing REPORT.json to merge (see prores-decode merge --help)")
            }
            if reports.contains("-") { throw UsageError("merge reads reports by name, not from stdin") }
            reportPath = try parsed[Options.report]
            junitPath = try parsed[SharedOptions.junit]
            htmlPath = try parsed[Options.html]
            writeGoldenPath = try parsed[Options.writeGolden]
            listPath = try parsed[Options.list]
            overwrite = parsed[Options.overwrite]
            noOverwrite = parsed[Options.noOverwrite]
            onWarning = try parsed[SharedOptions.onWarning] ?? .warn
        }

        func validate() throws {
            if overwrite && noOverwrite {
                throw UsageError("-y/--overwrite and -n/--no-overwrite contradict each other")
            }
            let outputs = [
                ("--report", reportPath), ("--junit", junitPath), ("--html", htmlPath),
                ("--write-golden", writeGoldenPath),
            ]
            let stdoutUsers = outputs.filter { $0.1 == "-" }.map(\.0)
            if stdoutUsers.count > 1 {
                throw UsageError("\(stdoutUsers.joined(separator: " and ")) cannot both write to stdout")
            }
        }

        /// The reports are inputs; the golden files beside them join once
        /// the reports are read (`run`).
        func files() -> CommandFiles {
            var files = CommandFiles()
            for report in reports { files.input("the report", report) }
            files.input("--list", listPath)
            for (option, path) in [
                ("--report", reportPath), ("--junit", junitPath), ("--html", htmlPath),
                ("--write-golden", writeGoldenPath),
            ] {
                files.output(option, path)
            }
            return files
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        var shards: [(name: String, report: ShardReport)] = []
        for path in arguments.reports {
            let bytes = try ReportInput.bytes(path, what: "report")
            do {
                shards.append((path, try ShardReport(parsing: bytes, directory: ShardMergeDirectory.of(path))))
            } catch let problem as ShardReport.Problem {
                throw ProResDecodeError.inputUnreadable(path: path, reason: problem.description)
            }
        }
        let merge: ShardMerge
        do { merge = try ShardMerge(shards) } catch let problems as ShardMerge.Problems {
            for problem in problems.list.dropLast() { Console.error(problem.description) }
            if let listPath = arguments.listPath {
                try nameMissingFiles(problems.list, list: listPath, run: shards[0].report.run)
            }
            throw UsageError(problems.list.last?.description ?? "the reports are not one run's shards")
        }
        let golden = try arguments.writeGoldenPath.map { _ in try joinGoldens(shards, files: arguments.files()) }
        // Valid JSON by construction: every file line parsed in full as it was read (ShardReport).
        let reportText = arguments.reportPath.map { _ in
            merge.json(goldenPath: arguments.writeGoldenPath.flatMap { $0 == "-" ? nil : $0 })
        }

        let overwrite = !arguments.noOverwrite
        let report = try arguments.reportPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let junit = try arguments.junitPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let html = try arguments.htmlPath.map { try OutputFile(path: $0, overwrite: overwrite) }
        let goldenOut = try arguments.writeGoldenPath.map { try OutputFile(path: $0, overwrite: arguments.overwrite) }
        Console.write("TOTAL \(merge.text)\n")
        if let goldenOut, let golden {
            try goldenOut.write(golden.text)
            try goldenOut.commit()
        }
        if let report, let reportText {
            try report.write(reportText)
            try report.commit()
        }
        if let junit {
            try junit.write(merge.junit)
            try junit.commit()
        }
        if let html, let path = arguments.htmlPath {
            let directory = path == "-" ? "." : ShardMergeDirectory.of(path)
            try html.write(MergedPage.html(merge, pageDirectory: directory))
            try html.commit()
        }
        return CheckCommand.exitCode(
            failed: merge.failed, errors: merge.errors, warned: merge.warned, arguments.onWarning)
    }

    /// With `--list`, every file of a shard whose report is missing, one
    /// line each: the list is expanded as `check` expands it, and must give
    /// the digest the shards recorded, or nothing is named from it.
    private static func nameMissingFiles(_ problems: [ShardMerge.Problem], list path: String, run: ShardReport.Run)
        throws
    {
        let missing = Set(
            problems.flatMap { problem -> [Int] in
                if case .shardsMissing(let indices, _) = problem { return indices }
                return []
            })
        guard !missing.isEmpty else { return }
        let keys = CheckInputExpander.expand([], listed: try CheckCommand.loadList(path)).map(\.key)
        guard CheckRun.digest(keys: keys.map(PathBytes.reportText)) == run.inputsDigest else {
            Console.error(
                "--list '\(path)' is not the list the shards checked (its digest differs): the missing files cannot be named"
            )
            return
        }
        for key in keys {
            let shard = CheckShard.shard(ofKey: key, count: run.shardCount)
            if missing.contains(shard) {
                Console.error("missing: '\(PathBytes.reportText(key))' (shard \(shard) of \(run.shardCount))")
            }
        }
    }

    /// Each shard's golden file, found beside its report, joined; each is
    /// one more input to the output-safety rule, checked before any is read.
    private static func joinGoldens(_ shards: [(name: String, report: ShardReport)], files: CommandFiles) throws
        -> GoldenFile
    {
        var files = files
        let paths = try shards.map { name, report in
            guard let path = ReportInput.goldenPath(of: report, at: name) else {
                throw ProResDecodeError.inputUnreadable(
                    path: name, reason: "names no golden file: its check ran without --write-golden FILE")
            }
            files.input("the golden file of '\(name)'", path)
            return path
        }
        try OutputSafety.check(files)
        var joined = GoldenFile()
        for path in paths {
            let golden = try ReportInput.golden(path)
            guard let shared = joined.join(golden) else {
                throw ProResDecodeError.inputUnreadable(
                    path: path, reason: "golden file: of another kind (md5 or BLAKE3) than the others")
            }
            if let key = shared.first {
                throw ProResDecodeError.inputUnreadable(
                    path: path, reason: "golden file: '\(key)' is in another shard's golden file too")
            }
        }
        return joined
    }
}

/// The directory part of a path ("." for a bare name).
enum ShardMergeDirectory {
    static func of(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
