import Foundation
import HostSupport
import ProResCore

/// The clock of one run of `play` with sound: the time of the sound heard
/// so far (samples written minus what the server still holds, as libpulse
/// reports it), from 0 at the run's first frame. The pacer shows each
/// frame when this clock reaches it. The stream starts (uncorks) when the
/// pacer first reads the clock, once the video's preroll is ready.
///
/// Where there is no more sound to hear (the track ended, the stream
/// failed, the run is being stopped) or the server's time stands still for
/// longer than a stall, the clock goes on from there on the host's
/// monotonic clock, so frames never wait for sound that cannot come.
// @unchecked: every field is touched only under `lock`.
final class SoundClock: PacingClock, @unchecked Sendable {
    /// How long the heard time may stand still while playing before the host clock takes over.
    static let stallNanoseconds: UInt64 = 2_000_000_000
    /// The same once every sample is written: the server's last report of
    /// a drained stream may stop a little short of its end.
    static let endStallNanoseconds: UInt64 = 60_000_000

    private let server: SoundServer
    private let lock = NSLock()
    private var started = false
    private var released = false
    /// Seconds of sound written in all, once the track has no more.
    private var endSeconds: Double?
    private var latest: UInt64 = 0
    private var latestChangedAt: UInt64 = 0
    /// Where the host clock took over: the clock's time then and the host's.
    private var handover: (clock: UInt64, host: UInt64)?

    init(server: SoundServer) { self.server = server }

    func now() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let host = monotonicNanoseconds()
        if !started {
            started = true
            latestChangedAt = host
            server.cork(false)
        }
        if let handover { return handover.clock + (host - handover.host) }
        let heard = server.playedSeconds.map { UInt64(max(0, $0) * 1e9) } ?? 0
        if heard > latest {
            latest = heard
            latestChangedAt = host
        }
        let heardAll = endSeconds.map { Double(latest) / 1e9 >= $0 - 0.005 } ?? false
        let stall = endSeconds == nil ? Self.stallNanoseconds : Self.endStallNanoseconds
        if released || heardAll || host - latestChangedAt > stall {
            handover = (latest, host)
        }
        return latest
    }

    func sleep(until deadline: UInt64) {
        while true {
            let now = now()
            if now >= deadline { return }
            usleep(UInt32(min(deadline - now, 2_000_000) / 1000))
        }
    }

    /// The track has no more sound after `seconds` of it.
    func soundEnded(afterSeconds seconds: Double) {
        lock.lock()
        endSeconds = seconds
        lock.unlock()
    }

    /// No sound is coming any more (the run stops, or its stream failed): the host clock goes on.
    func release() {
        lock.lock()
        released = true
        lock.unlock()
    }

    /// Seconds of sound heard: the clock's time before the host clock took over.
    var heardSeconds: Double {
        lock.lock()
        defer { lock.unlock() }
        return Double(handover?.clock ?? latest) / 1e9
    }
}
