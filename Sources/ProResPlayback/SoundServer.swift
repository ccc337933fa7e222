import CPulse
import Foundation

/// A connection to the sound server through libpulse (PulseAudio, or
/// PipeWire's pulse server), with at most one playback stream of
/// interleaved 32-bit float samples open at a time. Every call is ordered
/// by libpulse's main-loop lock, so any thread may make it.
// @unchecked: the handle is only touched through the C layer's locked calls.
final class SoundServer: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The server's name and version, as it states them ("pulseaudio 16.1").
    let name: String

    private init(handle: OpaquePointer) {
        self.handle = handle
        name = String(cString: pd_pulse_server(handle))
    }

    deinit { pd_pulse_close(handle) }

    /// The server PULSE_SERVER or the session names; never starts one.
    static func connect() -> Result<SoundServer, SoundUnavailable> {
        var why = [CChar](repeating: 0, count: 256)
        guard let handle = pd_pulse_connect("prores-decode", &why, why.count) else {
            return .failure(SoundUnavailable(reason: String(cString: why)))
        }
        return .success(SoundServer(handle: handle))
    }

    /// Opens a corked stream (closing any other) whose server buffer holds about `milliseconds` of sound.
    func openStream(rate: Int, channels: Int, milliseconds: Int) throws {
        var why = [CChar](repeating: 0, count: 256)
        guard rate > 0, rate <= Int(Int32.max), channels > 0, channels <= Int(Int32.max),
            pd_pulse_open_stream(handle, Int32(rate), Int32(channels), Int32(milliseconds), &why, why.count) == 0
        else { throw SoundUnavailable(reason: String(cString: why)) }
    }

    /// Writes `samples`, waiting for room; false once the stream failed or `interrupt` was called.
    func write(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        guard let base = samples.baseAddress else { return true }
        return pd_pulse_write(handle, base, samples.count * MemoryLayout<Float>.size) == 0
    }

    /// Releases a waiting `write`, and fails every later one until the next stream.
    func interrupt() { pd_pulse_interrupt(handle) }

    func cork(_ corked: Bool) { pd_pulse_cork(handle, corked ? 1 : 0) }

    /// No more samples: what is buffered plays out.
    func drain() { pd_pulse_drain(handle) }

    /// Seconds of the stream heard so far; nil before the server reported any.
    var playedSeconds: Double? {
        let microseconds = pd_pulse_played_microseconds(handle)
        return microseconds < 0 ? nil : Double(microseconds) / 1e6
    }

    /// Times the stream ran dry while playing.
    var underruns: Int { Int(clamping: pd_pulse_underruns(handle)) }

    func setVolume(percent: Int, muted: Bool) {
        pd_pulse_set_volume(handle, Int32(clamping: percent), muted ? 1 : 0)
    }

    func closeStream() { pd_pulse_close_stream(handle) }
}

/// Why `play` plays without sound.
public struct SoundUnavailable: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}
