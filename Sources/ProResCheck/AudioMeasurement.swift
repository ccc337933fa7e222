import CEBUR128
import Foundation
import HostSupport
import ProResCore
import ProResFFmpeg

/// What `check` measures of one sound track: EBU R 128 loudness
/// (libebur128), peaks, clipping, silence (as ffmpeg's `silencedetect`
/// with its defaults finds it: every channel under -60 dBFS for 2 s or
/// more) and its decoded length.
public struct AudioTrackMeasurement: Sendable {
    public let track: AudioTrack
    /// Integrated loudness in LUFS; nil for a track with no gated block (silent, or under 0.4 s).
    public var integratedLUFS: Double?
    /// Loudness range in LU.
    public var loudnessRangeLU: Double?
    /// The highest true peak of any channel, in dBTP; nil when every sample is 0.
    public var truePeakDBTP: Double?
    /// The highest sample of any channel, in dBFS; nil when every sample is 0.
    public var samplePeakDBFS: Double?
    /// Samples at the codec's largest code, either sign (a float track: at or beyond ±1).
    public var clippedSamples = 0
    /// Channels (0-based) whose every sample stays under -60 dBFS.
    public var silentChannels: [Int] = []
    /// Runs of 2 s or more where every channel stays under -60 dBFS, in seconds from the track's start.
    public var silentRuns: [(start: Double, end: Double)] = []
    /// The longest run of such silence, of any length, in seconds.
    public var longestSilenceSeconds = 0.0
    /// Decoded samples over the sample rate.
    public var seconds: Double?
    /// Why the track could not be measured (to its end); nil when it was.
    public var problem: String?

    init(track: AudioTrack) { self.track = track }
}

/// The sound of one checked file: every track measured, beside the video's length.
public struct AudioFacts: Sendable {
    public let tracks: [AudioTrackMeasurement]
    /// The video's length in seconds and its frame rate, for `av-duration`.
    public let videoSeconds: Double?
    public let framesPerSecond: Double?

    /// A file without any sound track.
    public var missing: Bool { tracks.isEmpty }

    /// The track's decoded length minus the video's, in seconds.
    public func durationDifference(_ track: AudioTrackMeasurement) -> Double? {
        guard let seconds = track.seconds ?? track.track.durationSeconds, let videoSeconds else { return nil }
        return seconds - videoSeconds
    }
}

/// Measures every sound track of a file, on the thread that calls it.
public enum AudioMeasurement {
    /// silencedetect's defaults: -60 dB, 2 s.
    static let silenceLevel: Float = 0.001
    static let silenceSeconds = 2.0

    /// The measurement of `input`'s sound on a thread of its own, stopping when the file's check is stopped.
    static func start(input: String, format: FormatDescription, cancellation: CheckCancellation) -> Deferred<AudioFacts>
    {
        Deferred("audio measured") { measure(input: input, format: format, isStopped: { cancellation.reason != nil }) }
    }

    public static func measure(input: String, format: FormatDescription, isStopped: () -> Bool) -> AudioFacts {
        var results = format.audioTracks.map(AudioTrackMeasurement.init)
        if !results.isEmpty {
            measure(input: input, into: &results, isStopped: isStopped)
        }
        return AudioFacts(tracks: results, videoSeconds: format.videoSeconds, framesPerSecond: format.framesPerSecond)
    }

    private static func measure(input: String, into results: inout [AudioTrackMeasurement], isStopped: () -> Bool) {
        let reader: AudioSampleReader
        do {
            reader = try AudioSampleReader(input: input, indices: results.map(\.track.index))
        } catch {
            for i in results.indices { results[i].problem = "\(error)" }
            return
        }
        var meters: [Int: TrackMeter] = [:]
        for (i, result) in results.enumerated() {
            guard reader.decodable.contains(result.track.index) else {
                results[i].problem = "FFmpeg cannot decode \(result.track.codec)"
                continue
            }
            guard let meter = TrackMeter(result.track) else {
                results[i].problem =
                    "\(result.track.channels) channels at \(result.track.sampleRate) Hz cannot be measured"
                continue
            }
            meters[result.track.index] = meter
        }
        let problems: [Int: String]
        do {
            problems = try reader.read(isStopped: isStopped) { index, samples, channels in
                meters[index]?.add(samples, channels: channels)
            }
        } catch {
            problems = Dictionary(uniqueKeysWithValues: results.map { ($0.track.index, "\(error)") })
        }
        for i in results.indices {
            guard let meter = meters[results[i].track.index] else { continue }
            meter.finish(into: &results[i])
            if let problem = problems[results[i].track.index] { results[i].problem = problem }
            if meter.channelMismatch { results[i].problem = "its decoded channel count differs from the container's" }
        }
    }
}

/// One track's meters: libebur128's state, the silence runs, the peaks.
private final class TrackMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private let channels: Int
    private let sampleRate: Double
    /// Samples at or beyond this magnitude are at the codec's largest code.
    private let clipLevel: Float
    private var frames = 0
    private var clipped = 0
    private var channelPeaks: [Float]
    private var silenceStart: Int?
    private var longestSilence = 0
    private var runs: [(start: Int, end: Int)] = []
    private(set) var channelMismatch = false

    init?(_ track: AudioTrack) {
        guard track.channels > 0, track.sampleRate > 0,
            let state = ebur128_init(UInt32(track.channels), UInt(track.sampleRate), pd_ebur128_mode())
        else { return nil }
        self.state = state
        channels = track.channels
        sampleRate = Double(track.sampleRate)
        channelPeaks = Array(repeating: 0, count: track.channels)
        // An integer code's largest magnitude; halfway to the next code down, in float.
        if let bits = track.bitDepth, track.isPCM, !track.codec.hasPrefix("pcm_f"), bits > 1, bits <= 32 {
            clipLevel = Float(1 - 1.5 / pow(2, Double(bits - 1)))
        } else {
            clipLevel = 1
        }
        for (i, weight) in Self.channelWeights(track).enumerated() {
            _ = ebur128_set_channel(state, UInt32(i), Int32(weight.rawValue))
        }
    }

    deinit { ebur128_destroy(&state) }

    /// Each channel's part in the loudness, as ffmpeg's `ebur128` filter
    /// gives it: LFE none, the surrounds 1.41 (EBU Tech 3341), the rest 1.
    /// A track that states a count alone takes FFmpeg's default layout for it.
    static func channelWeights(_ track: AudioTrack) -> [channel] {
        let defaults: [Int: [String]] = [
            1: ["FC"], 2: ["FL", "FR"], 6: ["FL", "FR", "FC", "LFE", "BL", "BR"],
            8: ["FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"],
        ]
        let labels =
            track.channelLabels.count == track.channels
            ? track.channelLabels : defaults[track.channels] ?? Array(repeating: "FC", count: track.channels)
        return labels.map { label in
            switch label {
            case "LFE", "LFE2": return EBUR128_UNUSED
            case "BL", "BR", "SL", "SR", "BC", "SDL", "SDR": return EBUR128_LEFT_SURROUND
            default: return EBUR128_CENTER
            }
        }
    }

    func add(_ samples: UnsafeBufferPointer<Float>, channels: Int) {
        guard channels == self.channels else {
            channelMismatch = true
            return
        }
        let count = samples.count / channels
        guard count > 0, let base = samples.baseAddress else { return }
        _ = ebur128_add_frames_float(state, base, count)
        for frame in 0..<count {
            var silent = true
            for c in 0..<channels {
                let magnitude = abs(samples[frame * channels + c])
                if magnitude > channelPeaks[c] { channelPeaks[c] = magnitude }
                if magnitude >= clipLevel { clipped += 1 }
                if magnitude >= AudioMeasurement.silenceLevel { silent = false }
            }
            track(silent: silent, at: frames + frame)
        }
        frames += count
    }

    private func track(silent: Bool, at frame: Int) {
        if silent {
            if silenceStart == nil { silenceStart = frame }
        } else if let start = silenceStart {
            close(start, frame)
        }
    }

    private func close(_ start: Int, _ end: Int) {
        silenceStart = nil
        longestSilence = max(longestSilence, end - start)
        if Double(end - start) >= AudioMeasurement.silenceSeconds * sampleRate { runs.append((start, end)) }
    }

    func finish(into result: inout AudioTrackMeasurement) {
        if let start = silenceStart { close(start, frames) }
        func decibels(_ linear: Double) -> Double? { linear > 0 ? 20 * log10(linear) : nil }
        var value = 0.0
        if ebur128_loudness_global(state, &value) == 0, value.isFinite { result.integratedLUFS = value }
        if ebur128_loudness_range(state, &value) == 0, value.isFinite { result.loudnessRangeLU = value }
        var truePeak = 0.0
        var samplePeak = 0.0
        for c in 0..<channels {
            if ebur128_true_peak(state, UInt32(c), &value) == 0 { truePeak = max(truePeak, value) }
            if ebur128_sample_peak(state, UInt32(c), &value) == 0 { samplePeak = max(samplePeak, value) }
        }
        result.truePeakDBTP = decibels(truePeak)
        result.samplePeakDBFS = decibels(samplePeak)
        result.clippedSamples = clipped
        result.silentChannels = channelPeaks.indices.filter { channelPeaks[$0] < AudioMeasurement.silenceLevel }
        result.silentRuns = runs.map { (Double($0.start) / sampleRate, Double($0.end) / sampleRate) }
        result.longestSilenceSeconds = Double(longestSilence) / sampleRate
        result.seconds = Double(frames) / sampleRate
    }
}
