import Foundation
import HostSupport
import ProResCore

/// A `--timing` log read back (docs/formats.md, "Timing log"): one JSON object per frame,
/// `{"frame":0,"pts":0,"status":"ok","demux_us":8.8,…,"latency_us":4273.6}`,
/// and with `--realtime` a last line `{"realtime":{…}}` naming the late and
/// dropped frames.
public struct TimingLog: Sendable {
    public struct Frame: Sendable {
        public let index: Int
        /// `ok`, `damaged` or `failed`.
        public let status: String
        /// Every `*_us` number but latency, keyed by stage name (`decode`).
        public let stages: [String: Double]
        public let latency: Double?
    }

    public private(set) var frames: [Frame] = []
    /// Stage names in the order the log first shows them.
    public private(set) var stageNames: [String] = []
    /// With `--realtime`: the frames due at late ticks, and those dropped.
    public private(set) var realtime = false
    public private(set) var lateFrames: [ClosedRange<Int>] = []
    public private(set) var droppedFrames: [ClosedRange<Int>] = []

    /// A `*_us` value beyond this is no time a run measured: a chart scaled
    /// to 1e300 has no finite coordinates to draw.
    static let largestMicroseconds = 1e12

    /// How `plot` reads one (docs/inputs.md): at most 1 GiB, lines of at most
    /// 64 KiB, each blank or a JSON object (`{` first).
    public static let input = AuxiliaryInput(noun: "--timing log", maximumBytes: 1 << 30, maximumLineBytes: 1 << 16) {
        line in
        let first = line.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
        return first == nil || first == UInt8(ascii: "{") ? nil : "not a --timing line: not a JSON object"
    }

    /// Reads the log; a line that is not a timing line throws
    /// `.inputUnreadable` naming the line (`path` names the log).
    public init(parsing text: String, path: String) throws {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            func bad(_ why: String) -> ProResDecodeError {
                .inputUnreadable(path: path, reason: "line \(number + 1) is not a --timing line: \(why)")
            }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any] else {
                throw bad("not a JSON object")
            }
            if let pacing = object["realtime"] as? [String: Any] {
                realtime = true
                lateFrames = try Self.runs(pacing["late_frames"], bad)
                droppedFrames = try Self.runs(pacing["dropped_frames"], bad)
                continue
            }
            guard let index = (object["frame"] as? NSNumber)?.intValue, let status = object["status"] as? String else {
                throw bad("no \"frame\" or \"status\"")
            }
            var stages: [String: Double] = [:]
            var latency: Double?
            // In key order: the first bad stage named is the same on every run.
            for (key, value) in object.sorted(by: { $0.key < $1.key }) where key.hasSuffix("_us") && key != "effects_us"
            {
                guard let number = (value as? NSNumber)?.doubleValue, number.isFinite else {
                    throw bad("\(key) is not a number")
                }
                guard abs(number) <= Self.largestMicroseconds else {
                    throw bad(
                        "\(key) \(number) is no stage time (at most \(Int(Self.largestMicroseconds)) µs, 11.6 days)")
                }
                let name = String(key.dropLast(3))
                if name == "latency" {
                    latency = number
                    continue
                }
                stages[name] = number
            }
            // Dictionary order is arbitrary: keep the log's own key order.
            for name in Self.keyOrder(trimmed) where stages[name] != nil && !stageNames.contains(name) {
                stageNames.append(name)
            }
            frames.append(Frame(index: index, status: status, stages: stages, latency: latency))
        }
        if frames.isEmpty {
            throw ProResDecodeError.inputUnreadable(path: path, reason: "no frame lines (is it a --timing log?)")
        }
    }

    /// `[[first,last],…]`; absent (an older log) is no runs.
    private static func runs(_ value: Any?, _ bad: (String) -> ProResDecodeError) throws -> [ClosedRange<Int>] {
        guard let value else { return [] }
        guard let pairs = value as? [[NSNumber]] else { throw bad("realtime runs are not [[first,last],…]") }
        return try pairs.map { pair in
            guard pair.count == 2, pair[0].intValue <= pair[1].intValue else {
                throw bad("realtime runs are not [[first,last],…]")
            }
            return pair[0].intValue...pair[1].intValue
        }
    }

    /// The `*_us` keys of one line in the order written (`"decode_us":` …).
    private static func keyOrder(_ line: String) -> [String] {
        line.components(separatedBy: "\"").filter { $0.hasSuffix("_us") }.map { String($0.dropLast(3)) }
    }
}
