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
        case audioTracks = "audio-tracks"
        case audioLayout = "audio-layout"
        case loudness
        case truePeak = "true-peak"
        case silence
        case avDuration = "av-duration"

        var isNumeric: Bool { [.frames, .width, .height, .fps, .bitDepth, .maxNits].contains(self) }
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
            case .greater: return actual > expected
            case .less: return actual < expected
            }
        }
    }

    /// What the rule compares with, already validated.
    enum Expected: Equatable, Sendable {
        case number(Double)
        case text(String)
        case size(width: Int, height: Int)
        case flag(Bool)
        /// A colour code point; nil means `untagged`.
        case color(Int?)
        case audio(AudioExpectation)
    }

    /// The rule as written (trimmed), for reports.
    public let text: String
    public let key: Key
    public let comparison: Comparison
    let expected: Expected

    /// The facts a rule is checked against.
    public struct Facts {
        public let format: FormatDescription
        /// Frames the file holds (decoded, or the container's count under `--sample`).
        public let frames: Int
        /// Peak light in nits; nil when not PQ/HLG or not measured.
        public let maxNits: Double?
        /// The checked frames' descriptions; none: the format's alone.
        public let runs: [DescriptionRuns.Run]
        /// The sound as measured; nil when it was not (`--audio none`).
        public var audio: AudioFacts?

        public init(format: FormatDescription, frames: Int, maxNits: Double?, runs: [DescriptionRuns.Run] = []) {
            self.format = format
            self.frames = frames
            self.maxNits = maxNits
            self.runs = runs
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
        // `constant-description` alone means `constant-description=true`.
        let text = written.lowercased() == Key.constantDescription.rawValue ? written + "=true" : written
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
        case .alpha, .interlaced, .constantDescription:
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
        case .frames, .width, .height, .fps, .bitDepth, .maxNits:
            // A plain decimal, as every option's number: `1e3` and `+24` are refused, not read.
            guard let number = PlainNumber.real(value) else {
                throw fail("'\(value)' is not a number (a plain decimal: 24, 23.976)")
            }
            expected = .number(number)
        case .audioTracks, .audioLayout, .loudness, .truePeak, .silence, .avDuration:
            // Parsed above, by AudioExpectation.
            throw fail("a sound rule")
        }
        self.text = text
        self.key = key
        self.comparison = comparison
    }

    /// Nil when the rule holds; otherwise the actual value, in words.
    public func violation(_ facts: Facts) -> String? {
        let f = facts.format
        if case .audio(let audio) = expected { return audio.violation(key, comparison, facts) }
        switch expected {
        case .number(let wanted):
            let actual: Double?
            switch key {
            case .frames: actual = Double(facts.frames)
            case .width: actual = Double(f.width)
            case .height: actual = Double(f.height)
            case .fps: actual = f.framesPerSecond
            case .bitDepth: actual = Double(f.bitDepth)
            default: actual = facts.maxNits
            }
            guard let actual else {
                return key == .maxNits
                    ? "n/a (transfer \(f.colorTags.transfer.value.displayName) is not PQ or HLG)" : "unknown"
            }
            // Frame rates are rationals (24000/1001): "fps=23.976" means to 3 decimals.
            let tolerance = key == .fps ? 0.0005 : 0
            let shown = key == .fps ? JSON.number(actual, digits: 3) : JSON.number(actual, digits: 1)
            return comparison.holds(actual, wanted, tolerance: tolerance) ? nil : shown
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
