import Foundation
import HostSupport
import ProResCore
import ProResFFmpeg

/// `play`'s sound: one track decoded by libavcodec on a thread of its own
/// and written to the sound server, one stream per run of frames. Each run
/// starts the sound at its first frame's time and gives the pacer the
/// clock of the sound heard (`SoundClock`).
// @unchecked: the reader is used by one run's thread at a time (`stop`
// waits for it); every other field is touched only under `lock`.
public final class SoundPlayer: @unchecked Sendable {
    /// The server's buffer: short, for a fine-grained clock; the sound thread only decodes sound, so it keeps it fed.
    static let bufferMilliseconds = 100
    static let volumeStep = 10
    static let loudest = 150

    public let track: AudioTrack
    private let server: SoundServer
    private let reader: AudioSampleReader
    private let lock = NSLock()
    private var volumePercent = 100
    private var muted: Bool
    private var current: Run?
    private var heardSeconds = 0.0
    private var underruns = 0
    /// Why a run played without sound, if one did.
    private var problem: String?

    private struct Run {
        let clock: SoundClock
        let stopped: Flag
        let thread: Deferred<Void>
    }

    /// A flag set once, read from the sound thread.
    // @unchecked: `value` is touched only under `lock`.
    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    private init(track: AudioTrack, server: SoundServer, reader: AudioSampleReader, muted: Bool) {
        self.track = track
        self.server = server
        self.reader = reader
        self.muted = muted
    }

    /// Connects to the sound server and opens `track` of `input`; the reason when either fails.
    public static func open(input: String, track: AudioTrack, muted: Bool) -> Result<SoundPlayer, SoundUnavailable> {
        let server: SoundServer
        switch SoundServer.connect() {
        case .success(let connected): server = connected
        case .failure(let why): return .failure(why)
        }
        do {
            let reader = try AudioSampleReader(input: input, indices: [track.index])
            guard reader.decodable.contains(track.index) else {
                return .failure(SoundUnavailable(reason: "no decoder for its sound (\(track.codec))"))
            }
            return .success(SoundPlayer(track: track, server: server, reader: reader, muted: muted))
        } catch {
            return .failure(SoundUnavailable(reason: "\(error)"))
        }
    }

    /// The server's name and version.
    public var serverName: String { server.name }

    /// Starts the sound `seconds` into the track, corked until the returned
    /// clock is first read; nil (and the run plays silently) when the
    /// server refuses the stream.
    func start(atSeconds seconds: Double) -> SoundClock? {
        stop()
        do {
            try server.openStream(
                rate: track.sampleRate, channels: track.channels, milliseconds: Self.bufferMilliseconds)
        } catch {
            lock.withLock { problem = "\(error)" }
            return nil
        }
        applyVolume()
        let clock = SoundClock(server: server)
        let stopped = Flag()
        let thread = Deferred("prores-decode.sound") { [self] in
            feed(from: seconds, clock: clock, stopped: stopped)
        }
        lock.withLock { current = Run(clock: clock, stopped: stopped, thread: thread) }
        return clock
    }

    /// Decodes and writes the track from `seconds` until it ends or the run stops.
    private func feed(from seconds: Double, clock: SoundClock, stopped: Flag) {
        var written = 0
        var failed = false
        do {
            try reader.seek(toSeconds: seconds)
            _ = try reader.read(isStopped: { stopped.isSet || failed }) { _, samples, channels in
                guard channels == track.channels, !failed else { return }
                if server.write(samples) {
                    written += samples.count / channels
                } else {
                    failed = true
                }
            }
        } catch {
            lock.withLock { problem = "\(error)" }
            failed = true
        }
        if failed || stopped.isSet {
            clock.release()
        } else {
            server.drain()
            clock.soundEnded(afterSeconds: Double(written) / Double(track.sampleRate))
        }
    }

    /// Silences the run's sound at once (pause), keeping what is buffered.
    func pause() {
        guard lock.withLock({ current }) != nil else { return }
        server.cork(true)
    }

    /// Ends the run's sound: the clock goes on without it, the thread stops, the stream closes.
    func stop() {
        guard
            let run = lock.withLock({ () -> Run? in
                defer { current = nil }; return current
            })
        else { return }
        run.clock.release()
        run.stopped.set()
        server.interrupt()
        try? run.thread.get()
        let heard = run.clock.heardSeconds
        let dry = server.underruns
        server.closeStream()
        lock.withLock {
            heardSeconds += heard
            underruns += dry
        }
    }

    /// m: mute or unmute.
    func toggleMute() {
        lock.withLock { muted.toggle() }
        applyVolume()
    }

    /// 0 / Up: louder by a step; 9 / Down: softer (0 to 150 % of the server's normal volume).
    func changeVolume(louder: Bool) {
        lock.withLock {
            volumePercent = min(Self.loudest, max(0, volumePercent + (louder ? Self.volumeStep : -Self.volumeStep)))
        }
        applyVolume()
    }

    private func applyVolume() {
        let (percent, muted) = lock.withLock { (volumePercent, self.muted) }
        server.setVolume(percent: percent, muted: muted)
    }

    /// The HUD's words: `vol 80%` or `muted`.
    var volumeText: String {
        lock.withLock { muted ? "muted" : "vol \(volumePercent)%" }
    }

    /// Seconds heard over every run so far, the underruns, and why a run was silent.
    var totals: (heardSeconds: Double, underruns: Int, problem: String?) {
        lock.withLock { (heardSeconds, underruns, problem) }
    }
}
