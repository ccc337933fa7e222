import Foundation

/// The rules `check` judges every file by, in two tiers: `fail` rules (a
/// broken one is a FAIL) and `warn` rules (a broken one is a warning, the
/// file a WARN). Without `--policy` the default policy below applies;
/// `--expect` adds fail rules to whichever policy is in force.
///
/// A policy file (docs/check.md, "Policy files") holds one rule a line,
/// `fail RULE` or `warn RULE` (a rule alone is a fail rule), in the
/// `--expect` language; `#` starts a comment, blank lines are skipped, and
/// the line `default` stands for the default policy's rules.
public struct CheckPolicy: Equatable, Sendable {
    public var failRules: [ExpectRule] = []
    public var warningRules: [ExpectRule] = []

    public init(failRules: [ExpectRule] = [], warningRules: [ExpectRule] = []) {
        self.failRules = failRules
        self.warningRules = warningRules
    }

    /// What gives a WARN with no rule at all: an interior black run over
    /// half a second, a picture frozen over a second, more than 1% of the
    /// Y′ or of the Cb/Cr samples outside the video range, a PQ file
    /// without its mastering display or content light level, and, where
    /// there is sound, a true peak over −1 dBTP (EBU R 128's and most
    /// delivery specs' ceiling) or sound and picture lengths more than a
    /// frame apart. Loudness targets differ by region (−23 LUFS EBU,
    /// −24 ATSC A/85, streaming services their own): docs/policies holds
    /// them as files.
    public static let defaultText = """
        warn black-run<=0.5s
        warn frozen-run<=1s
        warn out-of-range-luma<=1%
        warn out-of-range-chroma<=1%
        warn hdr-metadata=true
        warn true-peak<=-1 if sound
        warn av-duration<=1f if sound
        """

    /// The default policy, which is made of rules that parse.
    public static let standard: CheckPolicy = {
        do { return try parse(defaultText, name: "the default policy") } catch {
            preconditionFailure("the default policy does not parse: \(error)")
        }
    }()

    /// A policy file's line that is not a rule, by its file and 1-based line.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let name: String
        public let line: Int
        public let why: String

        public var description: String { "\(name), line \(line): \(why)" }
    }

    /// The policy `text` states; `name` names it in a problem.
    public static func parse(_ text: String, name: String) throws -> CheckPolicy {
        var policy = CheckPolicy()
        // "\r\n" is one Character, never equal to "\n": split on every line end,
        // or a file saved with CRLF would be one comment line and no rule.
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let line = content.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            do { try policy.add(line) } catch let error as ExpectRule.ParseError {
                throw Problem(name: name, line: number + 1, why: error.description)
            } catch let other as LineProblem {
                throw Problem(name: name, line: number + 1, why: other.why)
            }
        }
        return policy
    }

    /// One line: `fail RULE`, `warn RULE`, `RULE` or `default`.
    private mutating func add(_ line: String) throws {
        if line == "default" {
            failRules += Self.standard.failRules
            warningRules += Self.standard.warningRules
            return
        }
        var line = line
        let withSound = line.hasSuffix(Self.withSoundQualifier)
        if withSound {
            line = String(line.dropLast(Self.withSoundQualifier.count)).trimmingCharacters(in: .whitespaces)
        }
        let words = line.split(separator: " ", maxSplits: 1)
        let tier = words.count == 2 ? String(words[0]) : nil
        var rule: ExpectRule
        switch tier {
        case "warn", "fail": rule = try ExpectRule(String(words[1]))
        default:
            if line.contains(",") { throw LineProblem(why: "one rule a line ('\(line)' holds a comma)") }
            rule = try ExpectRule(line)
        }
        if withSound {
            guard AudioExpectation.measuredKeys.contains(rule.key) else {
                throw LineProblem(
                    why: "'if sound' follows a measured sound rule (loudness, true-peak, silence, av-duration)")
            }
            rule.onlyWithSound = true
        }
        if tier == "warn" { warningRules.append(rule) } else { failRules.append(rule) }
    }

    /// `warn true-peak<=-1 if sound`: the rule judges files whose sound was
    /// measured and that have some; a file without sound (or checked with
    /// `--audio none`) meets it.
    static let withSoundQualifier = " if sound"

    private struct LineProblem: Error {
        let why: String
    }
}
