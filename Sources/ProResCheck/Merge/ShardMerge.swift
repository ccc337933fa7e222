import HostSupport
import ProResCore

/// `merge`: the shard reports of one check, proven to be one run's and to
/// cover its file list exactly once, joined into one report.
///
/// One run: every report has the same options, the same list (count and
/// digest), the same shard count and assignment scheme, and each shard
/// index appears once. Exactly once: no path is in two reports, every file
/// is in the report of the shard its key belongs to, and the keys of all
/// files together have the digest the run recorded.
public struct ShardMerge: Sendable {
    public let files: [ShardReport.File]
    public let run: ShardReport.Run
    public let sample: Int?
    /// The longest shard's: shards run side by side.
    public let seconds: Double

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case noReports
        case differentRun(report: String, field: String, value: String, first: String, expected: String)
        case shardTwice(index: Int, reports: [String])
        case shardsMissing(indices: [Int], count: Int)
        case interrupted(report: String, index: Int)
        case pathTwice(path: String, reports: [String])
        case wrongShard(path: String, report: String, index: Int, belongs: Int)
        case listDiffers(files: Int, listed: Int)

        public var description: String {
            switch self {
            case .noReports: return "no shard reports to merge"
            case .differentRun(let report, let field, let value, let first, let expected):
                return "'\(report)' is another run's: its \(field) is \(value), '\(first)''s \(expected)"
            case .shardTwice(let index, let reports):
                return "shard \(index) is in more than one report: \(reports.map { "'\($0)'" }.joined(separator: ", "))"
            case .shardsMissing(let indices, let count):
                return
                    "no report for shard\(indices.count == 1 ? "" : "s") \(indices.map(String.init).joined(separator: ", ")) of \(count)"
            case .interrupted(let report, let index):
                return
                    "'\(report)' is of an interrupted check (shard \(index)): finish it with check --resume '\(report)' first"
            case .pathTwice(let path, let reports):
                return "'\(path)' is in more than one report: \(reports.map { "'\($0)'" }.joined(separator: ", "))"
            case .wrongShard(let path, let report, let index, let belongs):
                return "'\(path)' is in '\(report)' (shard \(index)) but its key belongs to shard \(belongs)"
            case .listDiffers(let files, let listed):
                return "the reports hold \(files) files but the run listed \(listed)\(files == listed ? " others" : "")"
            }
        }
    }

    /// `reports`: each report with the name to call it by. Throws every problem found, in the order above, as `Problems`.
    public init(_ reports: [(name: String, report: ShardReport)]) throws {
        guard let (firstName, first) = reports.first else { throw Problems(list: [.noReports]) }
        var problems: [Problem] = []
        let r = first.run
        for (name, report) in reports.dropFirst() {
            let o = report.run
            for (field, value, expected) in [
                ("options", "'\(o.options)'", "'\(r.options)'"), ("file count", "\(o.inputs)", "\(r.inputs)"),
                ("list digest", o.inputsDigest, r.inputsDigest), ("shard count", "\(o.shardCount)", "\(r.shardCount)"),
                ("shard scheme", o.scheme, r.scheme),
                (
                    "sample", "\(report.sample.map(String.init) ?? "none")",
                    "\(first.sample.map(String.init) ?? "none")"
                ),
            ]
            where value != expected {
                problems.append(
                    .differentRun(report: name, field: field, value: value, first: firstName, expected: expected))
            }
        }
        if !problems.isEmpty { throw Problems(list: problems) }

        var byIndex: [Int: [String]] = [:]
        for (name, report) in reports { byIndex[report.run.shardIndex, default: []].append(name) }
        for (index, names) in byIndex.sorted(by: { $0.key < $1.key }) where names.count > 1 {
            problems.append(.shardTwice(index: index, reports: names))
        }
        let missing = (1...max(1, r.shardCount)).filter { byIndex[$0] == nil }
        if !missing.isEmpty { problems.append(.shardsMissing(indices: missing, count: r.shardCount)) }
        for (name, report) in reports where report.interrupted {
            problems.append(.interrupted(report: name, index: report.run.shardIndex))
        }

        var owners: [String: [String]] = [:]
        var files: [ShardReport.File] = []
        files.reserveCapacity(reports.reduce(0) { $0 + $1.report.files.count })
        for (name, report) in reports {
            for file in report.files {
                owners[file.path, default: []].append(name)
                files.append(file)
                guard report.run.shardCount > 1 else { continue }
                let belongs = CheckShard.shard(
                    ofKey: PathBytes.fromReportText(file.key) ?? file.key, count: report.run.shardCount)
                if belongs != report.run.shardIndex {
                    problems.append(
                        .wrongShard(path: file.path, report: name, index: report.run.shardIndex, belongs: belongs))
                }
            }
        }
        for (path, names) in owners.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        where names.count > 1 { problems.append(.pathTwice(path: path, reports: names)) }
        if problems.isEmpty, files.count != r.inputs || CheckRun.digest(keys: files.map(\.key)) != r.inputsDigest {
            problems.append(.listDiffers(files: files.count, listed: r.inputs))
        }
        if !problems.isEmpty { throw Problems(list: problems) }

        self.files = ByteOrder.sorted(files, by: \.path)
        run = r
        sample = first.sample
        seconds = reports.map(\.report.seconds).max() ?? 0
    }

    public struct Problems: Error, CustomStringConvertible {
        public let list: [Problem]
        public var description: String { list.map(\.description).joined(separator: "\n") }
    }

    public var passed: Int { files.filter { $0.status == .pass }.count }
    public var warned: Int { files.filter { $0.status == .warn }.count }
    public var failed: Int { files.filter { $0.status == .fail }.count }
    public var errors: Int { files.filter { $0.status == .error }.count }

    /// `{"files":…,"summary":…,"run":…}` as `check` writes it, its file
    /// lines the shards' own; `"run"` says it was merged.
    public func json(goldenPath: String?) -> String {
        let summary = JSON.object([
            ("files", "\(files.count)"), ("passed", "\(passed)"), ("warned", "\(warned)"), ("failed", "\(failed)"),
            ("errors", "\(errors)"), ("shard", "null"), ("sample", sample.map(String.init) ?? "null"),
            ("seconds", JSON.number(seconds, digits: 3)),
        ])
        let runJSON = JSON.object([
            ("options", JSON.string(run.options)), ("inputs", "\(run.inputs)"),
            ("inputs_digest", JSON.string(run.inputsDigest)), ("shard_count", "1"), ("shard_index", "1"),
            ("shard_scheme", JSON.string(run.scheme)),
            ("shard_source", JSON.string("merged from \(run.shardCount) shard\(run.shardCount == 1 ? "" : "s")")),
            ("golden", goldenPath.map { JSON.string(PathBytes.reportText($0)) } ?? "null"),
        ])
        return CheckReport.json(fileLines: files.map(\.line), summary: summary, run: runJSON)
    }

    /// "12 files: 3 passed, 0 warned, 5 failed, 4 errors (3 shards) in 0.42 s"
    public var text: String {
        CheckSummary.counts(files: files.count, passed: passed, warned: warned, failed: failed, errors: errors)
            + " (\(run.shardCount) shard\(run.shardCount == 1 ? "" : "s")) in \(JSON.number(seconds, digits: 2)) s"
    }

    public var junit: String {
        JUnitReport.xml(
            files.map { $0.junitCase },
            failed: failed, errors: errors, seconds: seconds)
    }
}

extension ShardReport.File {
    /// The file's JUnit testcase, read back from its line: its reasons and warnings.
    public var junitCase: JUnitReport.Case {
        guard status != .pass else {
            return JUnitReport.Case(name: path, status: status, problems: [], seconds: seconds)
        }
        let details = details()
        return JUnitReport.Case(
            name: path, status: status, problems: details.problems, seconds: seconds, warnings: details.warnings)
    }
}
