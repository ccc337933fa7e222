import Foundation
import ProResCore

/// One file line of a report read back, held to what `CheckReport.file`
/// writes: every field of the right type, none unknown, and a status word
/// that is the one its recorded facts give. Pass means no frame error, no
/// failed rule and no golden result but a match; fail and error each need
/// at least one of those reasons, and `"reason"` is the first of them;
/// warn is a pass with at least one warning, and a pass has none.
/// A report whose status words were edited is refused by this alone, even
/// when its digest was recomputed to match.
enum ReportLineCheck {
    /// What is wrong with the line `object`, in words; nil when nothing is.
    /// `scanned`: the path, key, status and seconds read from the line's
    /// fixed places, which the parsed object must repeat (a key written
    /// twice would give the two readings different values).
    static func problem(
        _ object: [String: Any], scanned: (path: String, key: String, status: FileCheckResult.Status, seconds: Double)
    ) -> String? {
        if let field = fieldProblem(object) { return field }
        guard object["path"] as? String == scanned.path, object["key"] as? String == scanned.key,
            object["status"] as? String == scanned.status.rawValue, (object["seconds"] as? Double) == scanned.seconds
        else {
            return "a field is written twice"
        }
        let details = ShardReport.Details(object, previewBase: ".")
        let problems = details.problems
        let derived = problems.isEmpty ? (details.warnings.isEmpty ? "pass" : "warn") : "fail or error"
        let consistent =
            switch scanned.status {
            case .pass: problems.isEmpty && details.warnings.isEmpty
            case .warn: problems.isEmpty && !details.warnings.isEmpty
            case .fail, .error: !problems.isEmpty
            }
        if !consistent {
            return
                "its status is \"\(scanned.status.rawValue)\" but its errors, failed rules, golden result and warnings make it \(derived)"
        }
        if object["reason"] as? String != problems.first {
            return "its reason is not the first of its errors, failed rules and golden result"
        }
        return nil
    }

    private typealias Rule = @Sendable (Any) -> Bool

    private static let string: Rule = { $0 is String }
    private static let null: Rule = { $0 is NSNull }
    private static let object: Rule = { $0 is [String: Any] }
    private static let bool: Rule = { $0 as? Bool != nil }
    private static let count: Rule = { ($0 as? Int).map { $0 >= 0 } ?? false }
    private static let seconds: Rule = { ($0 as? Double).map { $0.isFinite && $0 >= 0 } ?? false }
    private static func either(_ a: @escaping Rule, _ b: @escaping Rule) -> Rule { { a($0) || b($0) } }
    private static func array(_ item: @escaping Rule) -> Rule { { ($0 as? [Any])?.allSatisfy(item) ?? false } }
    /// An object with exactly these fields.
    private static func shaped(_ fields: [String: Rule]) -> Rule {
        { value in
            guard let o = value as? [String: Any], Set(o.keys) == Set(fields.keys) else { return false }
            return fields.allSatisfy { name, rule in o[name].map(rule) ?? false }
        }
    }

    private static let frameProblem = shaped(["frame": either(count, null), "reason": string])
    private static let failedRule = shaped(["rule": string, "actual": string])
    private static let golden: Rule = { value in
        guard shaped(["result": string, "frame": either(count, null), "reason": either(string, null)])(value),
            let o = value as? [String: Any], let result = o["result"] as? String
        else { return false }
        switch result {
        case "match": return o["frame"] is NSNull && o["reason"] is NSNull
        case "mismatch": return o["frame"] is Int && o["reason"] is String
        case "not in golden": return o["frame"] is NSNull && o["reason"] is String
        default: return false
        }
    }

    /// Every field `CheckReport.file` writes, with what it holds; the
    /// optional ones are written only by some runs.
    private static let required: [String: Rule] = [
        "path": string, "key": string, "status": string, "reason": either(string, null), "frames": count,
        "sampled": either(array(count), null), "errors": array(frameProblem), "failed_rules": array(failedRule),
        "golden": either(golden, null), "format": either(object, null), "stats": either(object, null),
        "source": either(object, null), "decoder": either(string, null), "seconds": seconds,
    ]
    private static let optional: [String: Rule] = [
        "carried": bool, "previews": object, "retries": array(string),
        "description_changes": array(shaped(["frame": count, "changed": string])),
        "warnings": array(string), "decoders_may_differ": array(count), "warned_rules": array(failedRule),
        "audio": shaped(["missing": bool, "tracks": array(object)]),
    ]

    /// The first field missing, unknown or of the wrong type, in words.
    private static func fieldProblem(_ object: [String: Any]) -> String? {
        for name in required.keys.sorted() where object[name] == nil { return "it has no \"\(name)\"" }
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let rule = required[name] ?? optional[name] else { return "it has an unknown field \"\(name)\"" }
            if !rule(value) { return "its \"\(name)\" is not what check writes there" }
        }
        if FileCheckResult.Status(rawValue: object["status"] as? String ?? "") == nil {
            return "its status is none of pass, warn, fail, error"
        }
        return nil
    }
}
