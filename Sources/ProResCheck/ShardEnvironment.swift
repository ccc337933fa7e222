import Foundation
import ProResOptions

/// `--shard auto` and `--shard auto/N`: the shard that the engine running
/// this process gives it, read from that engine's variables, tried in this
/// order:
///
/// | engine                      | index (base)                        | count                     |
/// |-----------------------------|-------------------------------------|---------------------------|
/// | any (GitHub Actions matrix) | PRORES_DECODE_SHARD_INDEX (0)       | PRORES_DECODE_SHARD_TOTAL |
/// | GitLab CI `parallel:`       | CI_NODE_INDEX (1)                   | CI_NODE_TOTAL             |
/// | Kubernetes Indexed Job      | JOB_COMPLETION_INDEX (0)            | auto/N                    |
/// | Slurm job array             | SLURM_ARRAY_TASK_ID − _MIN (÷ _STEP)| SLURM_ARRAY_TASK_COUNT    |
/// | AWS Batch array job         | AWS_BATCH_JOB_ARRAY_INDEX (0)       | auto/N                    |
///
/// GitHub Actions sets no such variable for a matrix job: its workflow
/// passes `strategy.job-index` and `strategy.job-total` as the first row's.
/// Where the engine states a count and `auto/N` names another, the two
/// disagree and nothing is checked.
///
/// Every variable is a plain decimal inside its bounds (`bounds`) before
/// any sum is made of it: an index or count of at most
/// `CheckShard.maximumCount`, a Slurm task id and minimum of at most
/// 2^31 − 1 (Slurm's own ids are far smaller), a Slurm step of at least 1.
/// A value outside them is refused, never wrapped or clamped.
public struct ShardEnvironment: Sendable {
    public struct Choice: Sendable, Equatable {
        public let shard: CheckShard
        /// The engine and the variables read: "GitLab CI (CI_NODE_INDEX=2, CI_NODE_TOTAL=3)".
        public let source: String
    }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case noEngine
        case needsCount(engine: String)
        case notANumber(variable: String, value: String, bounds: String)
        case outOfRange(source: String)
        case countsDisagree(source: String, given: Int)

        public var description: String {
            switch self {
            case .noEngine:
                return "--shard auto found none of PRORES_DECODE_SHARD_INDEX, CI_NODE_INDEX, JOB_COMPLETION_INDEX, "
                    + "SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX: give --shard I/N"
            case .needsCount(let engine): return "--shard auto: \(engine) gives no shard count: use --shard auto/N"
            case .notANumber(let variable, let value, let bounds):
                return "--shard auto: \(variable)='\(value)' is not a whole number \(bounds)"
            case .outOfRange(let source): return "--shard auto: \(source) is not a shard of its count"
            case .countsDisagree(let source, let given): return "--shard auto/\(given) disagrees with \(source)"
            }
        }
    }

    /// `count`: N of `auto/N`, nil for `auto`.
    public static func resolve(count: Int?, environment: [String: String]) throws -> Choice {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            let range = bounds(name)
            guard let value = PlainNumber.integer(text, in: range) else {
                throw Problem.notANumber(
                    variable: name, value: text, bounds: "from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        func choose(engine: String, index: Int, base: Int, stated: Int?, read: [String]) throws -> Choice {
            let source = engine + " (" + read.map { "\($0)=\(environment[$0] ?? "")" }.joined(separator: ", ") + ")"
            if let stated, let count, stated != count { throw Problem.countsDisagree(source: source, given: count) }
            guard let total = stated ?? count else { throw Problem.needsCount(engine: engine) }
            guard let shard = CheckShard(index: index - base + 1, count: total) else {
                throw Problem.outOfRange(source: source)
            }
            return Choice(shard: shard, source: source)
        }
        if let index = try number("PRORES_DECODE_SHARD_INDEX") {
            let total = try number("PRORES_DECODE_SHARD_TOTAL")
            return try choose(
                engine: "PRORES_DECODE_SHARD_INDEX", index: index, base: 0, stated: total,
                read: ["PRORES_DECODE_SHARD_INDEX"] + (total == nil ? [] : ["PRORES_DECODE_SHARD_TOTAL"]))
        }
        if let index = try number("CI_NODE_INDEX") {
            return try choose(
                engine: "GitLab CI", index: index, base: 1, stated: try number("CI_NODE_TOTAL"),
                read: ["CI_NODE_INDEX", "CI_NODE_TOTAL"])
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            return try choose(
                engine: "Kubernetes Indexed Job", index: index, base: 0, stated: nil, read: ["JOB_COMPLETION_INDEX"])
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            let minimum = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
            let read =
                ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"]
                + (environment["SLURM_ARRAY_TASK_STEP"] == nil ? [] : ["SLURM_ARRAY_TASK_STEP"])
            let offset = id - minimum
            return try choose(
                engine: "Slurm job array", index: offset % step == 0 ? offset / step : -1, base: 0,
                stated: try number("SLURM_ARRAY_TASK_COUNT"), read: read)
        }
        if let index = try number("AWS_BATCH_JOB_ARRAY_INDEX") {
            return try choose(
                engine: "AWS Batch array job", index: index, base: 0, stated: nil, read: ["AWS_BATCH_JOB_ARRAY_INDEX"])
        }
        throw Problem.noEngine
    }

    /// What each variable may hold. Indices: 0-based ones up to one below
    /// the most shards, CI_NODE_INDEX (1-based) up to the most; Slurm's id
    /// and minimum are any non-negative Int32 (their difference and quotient
    /// then stay far inside Int).
    static func bounds(_ name: String) -> ClosedRange<Int> {
        let most = CheckShard.maximumCount
        switch name {
        case "CI_NODE_INDEX", "PRORES_DECODE_SHARD_TOTAL", "CI_NODE_TOTAL", "SLURM_ARRAY_TASK_COUNT": return 1...most
        case "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN": return 0...Int(Int32.max)
        case "SLURM_ARRAY_TASK_STEP": return 1...Int(Int32.max)
        default: return 0...(most - 1)
        }
    }
}
