import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The JSON report of a check run:
/// `{"files":[{...},\n{...}],\n"summary":{...},\n"run":{...}}`, one file per
/// line, keys in a fixed order (so reports diff well and compare with
/// snapshots, and `merge` joins shards' lines as they are).
public enum CheckReport {
    public static func json(_ results: [FileCheckResult], summary: CheckSummary, run: CheckRun) -> String {
        json(fileLines: results.map(file), summary: summary.json, run: run.json)
    }

    /// The report made of its parts, `"files_digest"` last: the digest of
    /// exactly the file lines it holds (`filesDigest`).
    public static func json(fileLines: [String], summary: String, run: String) -> String {
        "{\"files\":[" + (fileLines.isEmpty ? "" : "\n" + fileLines.joined(separator: ",\n") + "\n")
            + "],\n\"summary\":" + summary + ",\n\"run\":" + run
            + ",\n\"files_digest\":" + JSON.string(filesDigest(fileLines.map { Array($0.utf8) })) + "}\n"
    }

    /// BLAKE3-256 of the file lines in their canonical form: each line's
    /// bytes exactly as the report holds them (the JSON object, without the
    /// comma between lines), followed by a line feed, in the report's order.
    /// `merge` and `check --resume` recompute it to find a report edited or
    /// damaged after it was written; anyone can recompute it too, so it is
    /// no signature (docs/check.md).
    public static func filesDigest(_ lines: [[UInt8]]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
        for line in lines {
            bytes += line
            bytes.append(0x0A)
        }
        return "blake3:" + bytes.withUnsafeBytes { BLAKE3.hash($0, parallel: false).hex }
    }

    public static func file(_ r: FileCheckResult) -> String {
        let stats: String
        if let statistics = r.statistics {
            let note = r.lightNote.map { JSON.object([("unavailable", JSON.string($0))]) }
            stats = JSON.object(statistics.jsonFields.map { $0.0 == "light" ? ($0.0, note ?? $0.1) : $0 })
        } else {
            stats = "null"
        }
        var fields = [
            ("path", JSON.string(PathBytes.reportText(r.input.path))),
            ("key", JSON.string(PathBytes.reportText(r.input.key))),
            ("status", JSON.string(r.status.rawValue)),
            ("reason", r.problems.first.map(JSON.string) ?? "null"),
            ("frames", "\(r.framesDecoded)"),
            ("sampled", r.sampled.map { JSON.array($0.map(String.init)) } ?? "null"),
            (
                "errors",
                JSON.array(
                    r.errors.map {
                        JSON.object([
                            ("frame", $0.frame.map(String.init) ?? "null"), ("reason", JSON.string($0.reason)),
                        ])
                    })
            ),
            ("failed_rules", ruleArray(r.failedRules)),
            ("golden", r.golden?.json ?? "null"),
            ("format", r.format.map(format) ?? "null"),
            ("stats", stats),
        ]
        // Every sound track measured, or none there ("missing"); absent when not measured.
        if let audio = r.audio { fields.append(("audio", audio.json)) }
        // Only with --previews: without it the report is byte for byte what it was.
        if let previews = r.previews { fields.append(("previews", previews.json)) }
        // Only where a frame's description changes mid-clip: the first frame of each new run.
        if !r.descriptionChanges.isEmpty {
            fields.append(
                (
                    "description_changes",
                    JSON.array(
                        r.descriptionChanges.map {
                            JSON.object([("frame", "\($0.frame)"), ("changed", JSON.string($0.what))])
                        })
                ))
        }
        // Only where there are warnings: the file's verdict is then WARN (or
        // a fail or error that has warnings besides).
        let warnings = r.warnings
        if !warnings.isEmpty {
            fields.append(("warnings", JSON.array(warnings.map(JSON.string))))
            fields.append(("decoders_may_differ", JSON.array(r.decodersMayDiffer.map(String.init))))
        }
        if !r.warnedRules.isEmpty { fields.append(("warned_rules", ruleArray(r.warnedRules))) }
        // Only for a URL that was tried again, likewise.
        if !r.retries.isEmpty { fields.append(("retries", JSON.array(r.retries.map(JSON.string)))) }
        fields.append(("source", r.source?.json ?? "null"))
        fields.append(("decoder", r.decoder.map(JSON.string) ?? "null"))
        fields.append(("seconds", JSON.number(r.seconds, digits: 3)))
        return JSON.object(fields)
    }

    private static func ruleArray(_ rules: [(rule: String, actual: String)]) -> String {
        JSON.array(rules.map { JSON.object([("rule", JSON.string($0.rule)), ("actual", JSON.string($0.actual))]) })
    }

    /// The shared stream description (`StreamDescription`), without a path:
    /// the file entry around it names the file.
    public static func format(_ f: FormatDescription) -> String {
        StreamDescription(f).json
    }
}
