import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions

/// One `--expect` rule: `key op value`, e.g. `profile=hq`, `frames>=24`,
/// `transfer=pq`. Parsed up front (a mistake is a usage error naming the
/// rule), evaluated per file against its format and measurements.
///
/// Colour rules compare what the file states (frame header or container): a
/// value the documented fallback assumed matches only `untagged`, so
/// `transfer=bt709` cannot pass on a file that says nothing. They hold for
/// every frame checked (each frame header states its own colour), as does
/// `interlaced`; `constant-description` (alone, or `=true`) fails on any
/// change of a frame's description mid-clip.
public struct ExpectRule: Equatable, Sendable {
    public enum Key: String, CaseIterable, Sendable {
        case profile, size, alpha, transfer, primaries, matrix, chroma, interlaced
        case frames, width, height, fps
        case bitDepth = "bit-depth"
        case maxNits = "max-nits"
        case constantDescription = "constant-description"
        case fieldOrder = "field-order"
        case consistent, continuous, timecode, duration
        case blackFrames = "black-frames"
        case blackRun = "black-run"
        case blackHead = "black-head"
        case blackTail = "black-tail"
        case frozenFrames = "frozen-frames"
        case frozenRun = "frozen-run"
        case outOfRangeLuma = "out-of-range-luma"
        case outOfRangeChroma = "out-of-range-chroma"
        case outOfRangeFrames = "out-of-range-frames"
        case outOfGamut = "out-of-gamut"
        case maxCLL = "max-cll"
        case maxFALL = "max-fall"
        case masteringDisplay = "mastering-display"
        case contentLightLevel = "content-light-level"
        case hdrMetadata = "hdr-metadata"
        case audioTracks = "audio-tracks"
        case audioLayout = "audio-layout"
        case loudness
        case truePeak = "true-peak"
        case silence
        case avDuration = "av-duration"

        var isNumeric: Bool {
            [.frames, .width, .height, .fps, .bitDepth, .maxNits, .duration, .outOfRangeFrames, .maxCLL, .maxFALL]
                .contains(self)
                || isFrameCount || isFraction
        }

        /// Counts of frames, which also take seconds (`black-run<=0.5s`).
        var isFrameCount: Bool {
            [.blackFrames, .blackRun, .blackHead, .blackTail, .frozenFrames, .frozenRun].contains(self)
        }

        /// Shares of samples, which also take a percentage (`1%`).
        var isFraction: Bool { [.outOfRangeLuma, .outOfRangeChroma, .outOfGamut].contains(self) }

        var isHDRMetadata: Bool { [.masteringDisplay, .contentLightLevel, .hdrMetadata].contains(self) }

        /// Keys that may stand alone, meaning `=true`.
        static let alone: Set<Key> = [
            .constantDescription, .consistent, .continuous, .masteringDisplay, .contentLightLevel, .hdrMetadata,
        ]
    }

    public enum Comparison: String, CaseIterable, Sendable {
        // Two-character operators first: they are matched in this order.
        case notEqual = "!="
        case atLeast = ">="
        case atMost = "<="
        case equal = "="
        case greater = ">"
        case less = "<"

        func holds(_ actual: Double, _ expected: Double, tolerance: Double) -> Bool {
            switch self {
            case .equal: return abs(actual - expected) <= tolerance
            case .notEqual: return abs(actual - expected) > tolerance
            case .atLeast: return actual >= expected - tolerance
            case .atMost: return actual <= expected + tolerance
            case .greater: return actual > expected + tolerance
            case .less: return actual < expected - tolerance
            }
        }
    }

    /// What the rule compares with, already validated.
    enum Expected: Equatable, Sendable {
        case number(Double)
        /// Seconds, compared with a count of frames over the frame rate.
        case seconds(Double)
        /// The file's own content light level (MaxCLL or MaxFALL), for the light it measures.
        case stated
        case text(String)
        case size(width: Int, height: Int)
        case flag(Bool)
        /// A colour code point; nil means `untagged`.
        case color(Int?)
        /// Frames per second and how far off still counts as equal.
        case rate(Double, tolerance: Double)
        case fieldOrder(ProResFrameHeader.FieldOrder)
        /// A start time code as written ("10:00:00:00", ';' before the frames for drop-frame).
        case timecode(String)
        /// A running time in seconds, or in frames.
        case duration(Double, inFrames: Bool)
        case audio(AudioExpectation)
    }

    /// The rule as written (trimmed), for reports.
    public let text: String
    public let key: Key
    public let comparison: Comparison
    let expected: Expected
    /// A policy's `if sound`: a file without measured sound meets the rule.
    public internal(set) var onlyWithSound = false
    /// The rule as a policy file states it, its qualifier included.
    public var policyText: String { text + (onlyWithSound ? CheckPolicy.withSoundQualifier : "") }

    /// The facts a rule is checked against.
    public struct Facts {
        public let format: FormatDescription
        /// Frames the file holds (decoded, or the container's count under `--sample`).
        public let frames: Int
        /// Peak light in nits; nil when not PQ/HLG or not measured.
        public let maxNits: Double?
        /// The checked frames' descriptions; none: the format's alone.
        public let runs: [DescriptionRuns.Run]
        /// What `check` found in the file (`CheckFinding`): the `consistent` rule reads the conflicts.
        public let findings: [CheckFinding]
        /// The clean frames' statistics; nil when none were measured.
        public let statistics: FrameStatistics?
        /// The sound as measured; nil when it was not (`--audio none`).
        public var audio: AudioFacts?

        public init(
            format: FormatDescription, frames: Int, maxNits: Double?, runs: [DescriptionRuns.Run] = [],
            findings: [CheckFinding] = [], statistics: FrameStatistics? = nil
        ) {
            self.format = format
            self.frames = frames
            self.maxNits = maxNits
            self.runs = runs
            self.findings = findings
            self.statistics = statistics
        }
    }

    /// Why a rule was rejected, as data naming the rule (the CLI words it
    /// with its option name; `description` names none).
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The comma-separated `list` holds an empty rule.
        case emptyRuleInList(list: String)
        /// `rule` does not parse; `why` says how.
        case invalidRule(rule: String, why: String)

        public var description: String {
            switch self {
            case .emptyRuleInList(let list): return "rules '\(list)': empty rule (a doubled or trailing comma?)"
            case .invalidRule(let rule, let why): return "rule '\(rule)': \(why)"
            }
        }
    }

    /// Comma-separated rules.
    public static func parseList(_ text: String) throws -> [ExpectRule] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.allSatisfy(\.isWhitespace) }) {
            throw ParseError.emptyRuleInList(list: text)
        }
        return try parts.map { try ExpectRule(String($0)) }
    }

    public init(_ rule: String) throws {
        let written = rule.trimmingCharacters(in: .whitespaces)
        // `constant-description`, `consistent` and `continuous` alone mean `=true`.
        let text = Key(rawValue: written.lowercased()).map(Key.alone.contains) ?? false ? written + "=true" : written
        func fail(_ why: String) -> ParseError { .invalidRule(rule: text, why: why) }
        guard let at = text.firstIndex(where: { "=!<>".contains($0) }) else {
            throw fail(text.isEmpty ? "empty rule" : "no comparison (=, !=, >=, <=, >, <)")
        }
        let rest = text[at...]
        guard let comparison = Comparison.allCases.first(where: { rest.hasPrefix($0.rawValue) }) else {
            throw fail("unknown comparison '\(rest.prefix(2))'")
        }
        let keyText = text[..<at].trimmingCharacters(in: .whitespaces).lowercased()
        let value = rest.dropFirst(comparison.rawValue.count).trimmingCharacters(in: .whitespaces)
        guard let key = Key(rawValue: keyText) else {
            throw fail("unknown key '\(keyText)' (keys: \(Key.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard !value.isEmpty else { throw fail("missing value") }
        if AudioExpectation.keys.contains(key) {
            expected = .audio(try AudioExpectation(key: key, comparison: comparison, value: value, fail: fail))
            (self.text, self.key, self.comparison) = (text, key, comparison)
            return
        }
        if !key.isNumeric, comparison != .equal, comparison != .notEqual {
            throw fail("'\(key.rawValue)' takes only = or !=")
        }
        switch key {
        case .profile:
            guard let profile = ProResProfile.allCases.first(where: { $0.shortName == value.lowercased() }) else {
                throw fail(
                    "unknown profile '\(value)' (profiles: \(ProResProfile.allCases.map(\.shortName).joined(separator: ", ")))"
                )
            }
            expected = .text(profile.shortName)
        case .size:
            let parts = value.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = PlainNumber.integer(parts[0], in: 1...Int.max),
                let h = PlainNumber.integer(parts[1], in: 1...Int.max)
            else {
                throw fail("size must be WIDTHxHEIGHT, e.g. 1920x1080")
            }
            expected = .size(width: w, height: h)
        case .alpha, .interlaced, .constantDescription, .consistent, .continuous, .masteringDisplay,
            .contentLightLevel, .hdrMetadata:
            guard let flag = ["true": true, "false": false][value.lowercased()] else {
                throw fail("expected true or false")
            }
            expected = .flag(flag)
        case .chroma:
            guard let chroma = ["4:2:2": "4:2:2", "422": "4:2:2", "4:4:4": "4:4:4", "444": "4:4:4"][value] else {
                throw fail("expected 4:2:2 or 4:4:4")
            }
            expected = .text(chroma)
        case .transfer, .primaries, .matrix:
            let kind: ColorCode.Kind = key == .transfer ? .transfer : key == .primaries ? .primaries : .matrix
            if value.lowercased() == "untagged" {
                expected = .color(nil)
            } else if let code = ColorCodeNames.code(kind, named: value) {
                expected = .color(code)
            } else {
                throw fail("unknown \(key.rawValue) '\(value)' (FFmpeg's names as `info` prints them, or untagged)")
            }
        case .fps:
            guard let rate = Self.rate(value) else {
                throw fail("'\(value)' is not a frame rate (25, 23.976, 23.98 or 24000/1001)")
            }
            expected = rate
        case .fieldOrder:
            let orders: [String: ProResFrameHeader.FieldOrder] = [
                "tff": .topFieldFirst, "bff": .bottomFieldFirst, "progressive": .progressive,
            ]
            guard let order = orders[value.lowercased()] else { throw fail("expected tff, bff or progressive") }
            expected = .fieldOrder(order)
        case .timecode:
            guard SMPTETimecode(value, rate: (30, 1)) != nil || SMPTETimecode(value, rate: (60, 1)) != nil else {
                throw fail("expected a time code HH:MM:SS:FF (HH:MM:SS;FF for drop-frame)")
            }
            expected = .timecode(value)
        case .duration:
            let inFrames = value.lowercased().hasSuffix("f")
            let number = inFrames || value.lowercased().hasSuffix("s") ? String(value.dropLast()) : value
            guard let amount = PlainNumber.real(number), amount >= 0, !inFrames || amount == amount.rounded() else {
                throw fail("expected seconds (12.48 or 12.48s) or frames (312f)")
            }
            expected = .duration(amount, inFrames: inFrames)
        case .audioTracks, .audioLayout, .loudness, .truePeak, .silence, .avDuration:
            // Parsed above, by AudioExpectation.
            throw fail("a sound rule")
        default:
            expected = try Self.number(value, key: key, fail: fail)
        }
        self.text = text
        self.key = key
        self.comparison = comparison
    }

    /// The frame header's field order, and the container's where it states
    /// one: both must be the one wanted.
    private static func fieldOrderViolation(_ facts: Facts, wanted: ProResFrameHeader.FieldOrder, equal: Bool)
        -> String?
    {
        let f = facts.format
        let orders = facts.runs.count > 1 ? facts.runs.map(\.description.fieldOrder) : [f.fieldOrder]
        let container = f.containerFieldOrder
        let holds = orders.allSatisfy { $0 == wanted } && (container ?? wanted) == wanted
        guard holds != equal else { return nil }
        let header = Set(orders.map(\.rawValue)).sorted().joined(separator: " and ")
        return container.map { "\(header) (frame header), \($0.rawValue) (container)" } ?? "\(header) (frame header)"
    }

    /// `duration`: seconds within half a frame at the nominal rate (0.0005
    /// without one), or frames exactly.
    private static func durationViolation(_ facts: Facts, wanted: Double, inFrames: Bool, comparison: Comparison)
        -> String?
    {
        if inFrames {
            let actual = Double(facts.frames)
            return comparison.holds(actual, wanted, tolerance: 0) ? nil : "\(facts.frames)f"
        }
        guard let actual = facts.format.durationSeconds else { return "unknown" }
        let tolerance = facts.format.framesPerSecond.map { 0.5 / $0 } ?? 0.0005
        return comparison.holds(actual, wanted, tolerance: tolerance) ? nil : JSON.number(actual, digits: 3) + "s"
    }

    /// `fps`'s value: a fraction is exact (to 1e-9 fps); a decimal matches
    /// a rate that rounds to it at the decimals written (23.98: within
    /// 0.005, so 24000/1001 = 23.976… matches), and never closer than 3
    /// decimals (25 matches 25 ± 0.0005).
    static func rate(_ value: String) -> Expected? {
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let n = PlainNumber.integer(parts[0], in: 1...Int(Int32.max)),
                let d = PlainNumber.integer(parts[1], in: 1...Int(Int32.max))
            else { return nil }
            return .rate(Double(n) / Double(d), tolerance: 1e-9)
        }
        guard parts.count == 1, let fps = PlainNumber.real(value), fps > 0 else { return nil }
        let decimals = value.split(separator: ".").dropFirst().first?.count ?? 3
        return .rate(fps, tolerance: max(0.0005, 0.5 * pow(10, -Double(decimals))))
    }

    /// A numeric rule's value: a plain decimal, as every option's number
    /// (`1e3` and `+24` are refused, not read); seconds (`0.5s`) for a count
    /// of frames, a percentage (`1%`) for a share of samples.
    private static func number(_ value: String, key: Key, fail: (String) -> ParseError) throws -> Expected {
        if key.isFrameCount, value.hasSuffix("s") {
            guard let seconds = PlainNumber.real(value.dropLast()) else {
                throw fail("'\(value)' is not a number of frames or seconds (12, 0.5s)")
            }
            return .seconds(seconds)
        }
        if key.isFraction, value.hasSuffix("%") {
            guard let percent = PlainNumber.real(value.dropLast()) else {
                throw fail("'\(value)' is not a fraction or a percentage (0.01, 1%)")
            }
            return .number(percent / 100)
        }
        if key == .maxCLL || key == .maxFALL, value.lowercased() == "stated" { return .stated }
        guard let number = PlainNumber.real(value) else {
            throw fail("'\(value)' is not a number (a plain decimal: 24, 23.976)")
        }
        return .number(number)
    }

    /// Nil when the rule holds; otherwise the actual value, in words.
    public func violation(_ facts: Facts) -> String? {
        let f = facts.format
        if onlyWithSound, facts.audio?.tracks.isEmpty ?? true { return nil }
        if case .audio(let audio) = expected { return audio.violation(key, comparison, facts) }
        switch expected {
        case .seconds(let wanted):
            guard let frames = measured(facts) else { return unmeasured(facts) }
            // No frames last no time, whatever the rate (an elementary stream has none).
            let fps = f.framesPerSecond ?? 0
            guard fps > 0 || frames == 0 else { return "unknown (no frame rate)" }
            let actual = frames == 0 ? 0 : frames / fps
            return comparison.holds(actual, wanted, tolerance: 0)
                ? nil : "\(JSON.number(actual, digits: 3)) s (\(Int(frames)) frames)"
        case .stated:
            guard let actual = measured(facts) else { return unmeasured(facts) }
            guard let light = f.contentLightLevel else { return "n/a (the file states no content light level)" }
            let stated = Double(key == .maxCLL ? light.maxCLL : light.maxFALL)
            return comparison.holds(actual, stated, tolerance: 0) ? nil : "\(shown(actual)) (stated \(Int(stated)))"
        case .number(let wanted):
            guard let actual = measured(facts) else { return unmeasured(facts) }
            // Frame rates are rationals (24000/1001): "fps=23.976" means to 3 decimals.
            let tolerance = key == .fps ? 0.0005 : 0
            return comparison.holds(actual, wanted, tolerance: tolerance) ? nil : shown(actual)
        case .rate(let wanted, let tolerance):
            guard let rate = f.frameRate, let actual = f.framesPerSecond else { return "unknown" }
            let shown =
                rate.denominator == 1
                ? "\(rate.numerator)" : "\(rate.numerator)/\(rate.denominator) (\(JSON.number(actual, digits: 3)))"
            return comparison.holds(actual, wanted, tolerance: tolerance) ? nil : shown
        case .fieldOrder(let wanted):
            return Self.fieldOrderViolation(facts, wanted: wanted, equal: comparison == .equal)
        case .timecode(let wanted):
            let actual = f.timecode ?? "none"
            return (actual == wanted) == (comparison == .equal) ? nil : actual
        case .duration(let wanted, let inFrames):
            return Self.durationViolation(facts, wanted: wanted, inFrames: inFrames, comparison: comparison)
        case .flag(let wanted) where key == .consistent:
            let conflicts = facts.findings.filter { CheckFinding.conflictKinds.contains($0.kind) }
            guard conflicts.isEmpty != (wanted == (comparison == .equal)) else { return nil }
            return conflicts.isEmpty ? "no conflicts" : conflicts.map(\.text).joined(separator: "; ")
        case .flag(let wanted) where key == .continuous:
            guard let timing = f.timing else { return "unknown (the container lists no time for every frame)" }
            guard timing.isConstant != (wanted == (comparison == .equal)) else { return nil }
            return timing.isConstant ? "every frame one step after the one before" : timing.findings[0]
        case .text(let wanted):
            let actual = key == .profile ? f.profile?.shortName ?? "unknown" : f.chroma.rawValue
            return (actual == wanted) == (comparison == .equal) ? nil : actual
        case .size(let w, let h):
            return ((f.width, f.height) == (w, h)) == (comparison == .equal) ? nil : "\(f.width)x\(f.height)"
        case .flag(let wanted) where key == .constantDescription:
            let constant = facts.runs.count <= 1
            guard constant != (wanted == (comparison == .equal)) else { return nil }
            if constant { return "one description" }
            return DescriptionRuns.changesText(facts.runs)
        case .flag(let wanted) where key == .interlaced && facts.runs.count > 1:
            let failing = facts.runs.filter {
                ($0.description.fieldOrder != .progressive) != (wanted == (comparison == .equal))
            }
            return failing.isEmpty
                ? nil
                : failing.map { "\($0.description.fieldOrder.rawValue) in \(DescriptionRuns.frames($0))" }
                    .joined(separator: "; ")
        case .color(let wanted) where facts.runs.count > 1:
            let kind: ColorCode.Kind = key == .transfer ? .transfer : key == .primaries ? .primaries : .matrix
            let failing = facts.runs.filter { ($0.description.code(kind) == wanted) != (comparison == .equal) }
            return failing.isEmpty
                ? nil
                : failing.map {
                    "\(FrameDescription.name(kind, $0.description.code(kind))) in \(DescriptionRuns.frames($0))"
                }
                .joined(separator: "; ")
        case .flag(let wanted) where key.isHDRMetadata:
            let actual = hdrMetadataHeld(f)
            return actual == (wanted == (comparison == .equal)) ? nil : hdrMetadataWords(f)
        case .flag(let wanted):
            let actual = key == .alpha ? f.hasAlpha : f.fieldOrder != .progressive
            let shown = key == .alpha ? "\(actual)" : "\(actual) (\(f.fieldOrder.rawValue))"
            return (actual == wanted) == (comparison == .equal) ? nil : shown
        case .color(let wanted):
            let tag =
                key == .transfer ? f.colorTags.transfer : key == .primaries ? f.colorTags.primaries : f.colorTags.matrix
            let stated: Int? = tag.source == .fallback ? nil : tag.value.code
            let shown =
                stated == nil
                ? "untagged (\(tag.value.displayName) assumed)" : "\(tag.value.displayName) (\(tag.source.rawValue))"
            return (stated == wanted) == (comparison == .equal) ? nil : shown
        case .audio: return nil
        }
    }
}
