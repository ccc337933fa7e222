import ProResCore

/// Something `check` found in a file that is not damage: where the
/// container and the frame headers disagree, frames that do not keep
/// their rate, a file cut short. A warning in every report (its kind, then
/// its words, each naming both sources); a failure only by a rule.
public struct CheckFinding: Equatable, Sendable {
    /// "timing", "field order", "colour", "aspect ratio", "frame count", "truncation".
    public let kind: String
    public let words: String

    public init(kind: String, words: String) {
        self.kind = kind
        self.words = words
    }

    /// As the reports print it: "timing: timestamp gap: frame 9 at 0.480 s …".
    public var text: String { "\(kind): \(words)" }

    /// Timing irregularities listed one by one up to this many; the rest are counted.
    static let listedIrregularities = 20

    /// What the format description says of the file: timestamps, field
    /// order, colour tags, aspect ratio, truncation. `decoded`: the frames
    /// the run read, when it read them all (nil under `--sample`).
    static func of(_ format: FormatDescription, decoded: Int?) -> [CheckFinding] {
        var found: [CheckFinding] = []
        if let timing = format.timing, !timing.isConstant {
            let all = timing.findings
            found += all.prefix(listedIrregularities).map { CheckFinding(kind: "timing", words: $0) }
            if all.count > listedIrregularities {
                found.append(
                    CheckFinding(
                        kind: "timing", words: "\(all.count - listedIrregularities) more irregular steps not listed"))
            }
        }
        if let conflict = format.fieldOrderConflict { found.append(CheckFinding(kind: "field order", words: conflict)) }
        found += format.colorTags.conflicts.map { CheckFinding(kind: "colour", words: $0) }
        if let conflict = format.aspectRatioConflict {
            found.append(CheckFinding(kind: "aspect ratio", words: conflict))
        }
        if let claimed = format.frameCount, let decoded, decoded > claimed {
            found.append(
                CheckFinding(
                    kind: "frame count",
                    words: "the container says \(claimed) frames, \(decoded) were decoded"))
        }
        if let truncation = format.truncation {
            found.append(CheckFinding(kind: "truncation", words: truncation.words))
        }
        return found
    }

    /// The kinds that are two sources disagreeing (the `consistent` rule).
    static let conflictKinds: Set<String> = ["field order", "colour", "aspect ratio", "frame count"]
}
