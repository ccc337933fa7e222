import Foundation
import HostSupport
import ProResCore
import ProResOptions

/// The sound rules of `--expect`: `audio-tracks=2`, `audio-layout=5.1`
/// (or `5.1+stereo`, the tracks in order), `loudness=-23±1` (`-23+-1`),
/// `true-peak<=-1`, `silence<=2s`, `av-duration<=1f`. The measured ones
/// hold when every track holds them.
public enum AudioExpectation: Equatable, Sendable {
    case count(Double)
    /// One layout (some track has it) or several joined by `+` (the tracks, in order).
    case layouts([String])
    /// dB or LU, with `±` (only after `=`).
    case level(Double, tolerance: Double)
    case seconds(Double)
    case frames(Double)

    static let keys: [ExpectRule.Key] = [.audioTracks, .audioLayout, .loudness, .truePeak, .silence, .avDuration]
    /// The keys that need the sound measured (not `--audio none`).
    public static let measuredKeys: Set<ExpectRule.Key> = [.loudness, .truePeak, .silence, .avDuration]

    init(key: ExpectRule.Key, comparison: ExpectRule.Comparison, value: String, fail: (String) -> Error) throws {
        func number(_ text: Substring, _ example: String) throws -> Double {
            guard let number = PlainNumber.real(text) else {
                throw fail("'\(text)' is not a number (a plain decimal: \(example))")
            }
            return number
        }
        switch key {
        case .audioTracks:
            self = .count(try number(Substring(value), "2"))
        case .audioLayout:
            guard comparison == .equal || comparison == .notEqual else {
                throw fail("'audio-layout' takes only = or !=")
            }
            let names = value.split(separator: "+", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard !names.contains(where: \.isEmpty) else {
                throw fail("an empty layout (layouts: 5.1, stereo, mono, ...)")
            }
            self = .layouts(names)
        case .loudness, .truePeak:
            let parts = value.replacingOccurrences(of: "+-", with: "±").split(
                separator: "±", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw fail("one ± at most") }
            if parts.count == 2, comparison != .equal { throw fail("± follows = only (loudness=-23±1)") }
            let tolerance = parts.count == 2 ? try number(parts[1], "1") : 0
            guard tolerance >= 0 else { throw fail("a tolerance is not negative") }
            self = .level(try number(parts[0], key == .loudness ? "-23" : "-1"), tolerance: tolerance)
        case .silence, .avDuration:
            let lowered = value.lowercased()
            if key == .avDuration, lowered.hasSuffix("f") {
                self = .frames(try number(lowered.dropLast(), "1f"))
            } else {
                self = .seconds(try number(lowered.hasSuffix("s") ? lowered.dropLast() : Substring(lowered), "2s"))
            }
        default:
            throw fail("not a sound rule")
        }
    }

    /// Nil when the rule holds; otherwise what the file has, in words.
    func violation(_ key: ExpectRule.Key, _ comparison: ExpectRule.Comparison, _ facts: ExpectRule.Facts) -> String? {
        let tracks = facts.format.audioTracks
        switch self {
        case .count(let wanted):
            return comparison.holds(Double(tracks.count), wanted, tolerance: 0) ? nil : "\(tracks.count)"
        case .layouts(let wanted):
            let layouts = tracks.map(Self.layoutName)
            let matches =
                wanted.count == 1
                ? layouts.contains { Self.same($0, wanted[0]) }
                : layouts.count == wanted.count && zip(layouts, wanted).allSatisfy(Self.same)
            guard matches != (comparison == .equal) else { return nil }
            return layouts.isEmpty ? "no audio track" : layouts.joined(separator: "+")
        case .level(let wanted, let tolerance):
            return measured(facts) { track, _ in
                let value = key == .loudness ? track.integratedLUFS : track.truePeakDBTP
                guard let value else { return (false, key == .loudness ? "no gated loudness (silent?)" : "silent") }
                let unit = key == .loudness ? "LUFS" : "dBTP"
                return (comparison.holds(value, wanted, tolerance: tolerance), String(format: "%.1f \(unit)", value))
            }
        case .seconds(let wanted) where key == .silence:
            return measured(facts) { track, _ in
                (
                    comparison.holds(track.longestSilenceSeconds, wanted, tolerance: 0),
                    "longest silence \(JSON.number(track.longestSilenceSeconds, digits: 3)) s"
                )
            }
        case .seconds(let wanted):
            return measured(facts) { track, audio in
                guard let difference = audio.durationDifference(track) else { return (false, "length unknown") }
                return (comparison.holds(abs(difference), wanted, tolerance: 0), Self.difference(difference, audio))
            }
        case .frames(let wanted):
            return measured(facts) { track, audio in
                guard let difference = audio.durationDifference(track), let fps = audio.framesPerSecond else {
                    return (false, "length unknown")
                }
                return (
                    comparison.holds(abs(difference) * fps, wanted, tolerance: 1e-9), Self.difference(difference, audio)
                )
            }
        }
    }

    /// Every measured track judged by `judge` (holds, and the value in
    /// words); the failing ones named. A file without sound fails.
    private func measured(
        _ facts: ExpectRule.Facts, _ judge: (AudioTrackMeasurement, AudioFacts) -> (Bool, String)
    ) -> String? {
        guard let audio = facts.audio else { return "not measured" }
        guard !audio.tracks.isEmpty else { return "no audio track" }
        let failing = audio.tracks.compactMap { track -> String? in
            if let problem = track.problem { return "track \(track.track.index): not measured (\(problem))" }
            let (holds, shown) = judge(track, audio)
            return holds ? nil : "track \(track.track.index): \(shown)"
        }
        return failing.isEmpty ? nil : failing.joined(separator: "; ")
    }

    private static func difference(_ seconds: Double, _ audio: AudioFacts) -> String {
        let frames = audio.framesPerSecond.map { " (\(JSON.number(seconds * $0, digits: 2)) frames)" } ?? ""
        return "audio \(seconds >= 0 ? "+" : "")\(JSON.number(seconds, digits: 3)) s against the video\(frames)"
    }

    /// The track's layout, or FFmpeg's default layout for a channel count stated alone.
    static func layoutName(_ track: AudioTrack) -> String {
        if let layout = track.layout { return layout }
        let defaults = [1: "mono", 2: "stereo", 6: "5.1", 8: "7.1"]
        return defaults[track.channels] ?? "\(track.channels) channels"
    }

    /// `5.1` names FFmpeg's 5.1 and 5.1(side) alike, `7.1` its 7.1 and 7.1(wide).
    private static func same(_ layout: String, _ wanted: String) -> Bool {
        let name = layout.lowercased()
        if name == wanted { return true }
        guard !wanted.contains("(") else { return false }
        return name.hasPrefix(wanted + "(")
    }
}
