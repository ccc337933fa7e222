import Foundation
import HostSupport
import ProResCore

/// The A/V offset of every frame shown while sound plays: the frame's time
/// (from the run's first frame) minus the sound clock's when the frame
/// reached the screen. Positive: the picture came before its sound.
// @unchecked: every field is touched only under `lock`.
final class SyncMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var clock: SoundClock?
    private var firstIndex = 0
    private var rate: FrameRate?
    private var offsets: [Double] = []

    /// A run paced by `clock` starts at frame `firstIndex`.
    func begin(clock: SoundClock, firstIndex: Int, rate: FrameRate) {
        lock.withLock {
            self.clock = clock
            self.firstIndex = firstIndex
            self.rate = rate
        }
    }

    /// The run ended: frames shown from now on (paused steps) are not measured.
    func end() { lock.withLock { clock = nil } }

    /// Frame `index` was just shown.
    func record(_ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard let clock, let rate, index >= firstIndex else { return }
        let due = Double(rate.nanoseconds(ticks: index - firstIndex)) / 1e6
        let heard = Double(clock.now()) / 1e6
        offsets.append(due - heard)
    }

    /// Every offset measured, in milliseconds.
    var milliseconds: [Double] { lock.withLock { offsets } }
}

/// What `play`'s sound did, for the summary.
public struct SoundReport: Sendable {
    /// The server's name and version.
    public let server: String
    /// The stream index of the track played.
    public let track: Int
    /// Seconds of sound heard over every run.
    public let heardSeconds: Double
    /// Times the server ran dry while playing.
    public let underruns: Int
    /// Percentiles of |frame time − sound clock| in milliseconds, over the frames shown with sound.
    public let offsetMilliseconds: Percentiles?
    /// Why a run played without sound, if one did.
    public let problem: String?
}

extension SoundReport {
    /// The `audio` object of `play --json`.
    public var json: String {
        JSON.object([
            ("played", "true"), ("server", JSON.string(server)), ("track", "\(track)"),
            ("seconds", JSON.number(heardSeconds, digits: 3)), ("underruns", "\(underruns)"),
            (
                "av_offset_ms",
                offsetMilliseconds.map { JSON.object([("p50", JSON.number($0.p50)), ("p99", JSON.number($0.p99))]) }
                    ?? "null"
            ),
            ("problem", problem.map(JSON.string) ?? "null"),
        ])
    }

    /// The `audio` object when no sound played, and why.
    public static func silentJSON(reason: String) -> String {
        JSON.object([("played", "false"), ("reason", JSON.string(reason))])
    }

    /// The end-of-play line's words: `sound from pulseaudio 16.1: 2.0 s, A/V offset p99 3.1 ms, 0 underruns`.
    public var text: String {
        "sound from \(server): \(JSON.number(heardSeconds)) s, A/V offset p99 "
            + (offsetMilliseconds.map { JSON.number($0.p99) + " ms" } ?? "not measured") + ", \(underruns) underruns"
    }
}
