import Foundation
import HostSupport

/// One sound track of the input's container, as the container states it:
/// what `info` lists and what `check` measures. The container's words,
/// never a decode's.
public struct AudioTrack: Sendable, Equatable {
    /// The stream index in the container (the same numbering as `--track`).
    public let index: Int
    /// libavcodec's codec name: "pcm_s24le", "aac", ...
    public let codec: String
    public let sampleRate: Int
    /// Bits a sample of the codec carries (24 for pcm_s24le); nil when the
    /// codec has no fixed sample size (AAC) and the container says none.
    public let bitDepth: Int?
    public let channels: Int
    /// FFmpeg's name of the channel layout ("5.1", "stereo"); nil when the
    /// container states only a channel count.
    public let layout: String?
    /// Each channel's label in order ("FL", "FR", "FC", "LFE", ...), where
    /// the container says them; empty where it does not.
    public let channelLabels: [String]
    /// The track's length in seconds, as the container states it; nil when unstated.
    public let durationSeconds: Double?
    /// The track's language tag ("eng"); nil when untagged or "und".
    public let language: String?
    /// Whether the samples are PCM, which outputs copy and cut sample-exactly.
    public let isPCM: Bool

    public init(
        index: Int, codec: String, sampleRate: Int, bitDepth: Int?, channels: Int, layout: String?,
        channelLabels: [String], durationSeconds: Double?, language: String?, isPCM: Bool
    ) {
        self.index = index
        self.codec = codec
        self.sampleRate = sampleRate
        self.bitDepth = bitDepth
        self.channels = channels
        self.layout = layout
        self.channelLabels = channelLabels
        self.durationSeconds = durationSeconds
        self.language = language
        self.isPCM = isPCM
    }

    /// The track's length minus the video's, in seconds; nil when either is unknown.
    public func durationDifference(videoSeconds: Double?) -> Double? {
        guard let durationSeconds, let videoSeconds else { return nil }
        return durationSeconds - videoSeconds
    }

    /// "pcm_s24le, 48000 Hz, 24-bit, 6 channels (5.1: FL FR FC LFE BL BR), 4.000 s (+0.000 s against the video), eng".
    public func words(videoSeconds: Double?) -> String {
        var parts = [codec, "\(sampleRate) Hz"]
        if let bitDepth { parts.append("\(bitDepth)-bit") }
        let layoutWords =
            layout.map { name in channelLabels.isEmpty ? name : "\(name): \(channelLabels.joined(separator: " "))" }
            ?? "layout unknown"
        parts.append("\(channels) channel\(channels == 1 ? "" : "s") (\(layoutWords))")
        if let durationSeconds {
            let difference = durationDifference(videoSeconds: videoSeconds).map {
                " (\(Self.signed($0)) s against the video)"
            }
            parts.append(String(format: "%.3f s", durationSeconds) + (difference ?? ""))
        } else {
            parts.append("duration unknown")
        }
        parts.append("language \(language ?? "unknown")")
        return parts.joined(separator: ", ")
    }

    /// "+0.000", "-2.000": the sign always shown.
    static func signed(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return (rounded >= 0 ? "+" : "") + String(format: "%.3f", rounded == 0 ? 0 : rounded)
    }
}

extension FormatDescription {
    /// The video's length in seconds (frames over the frame rate); nil when either is unknown.
    public var videoSeconds: Double? {
        guard let count = frameCount, let rate = frameRate, rate.numerator > 0 else { return nil }
        return Double(count) * Double(rate.denominator) / Double(rate.numerator)
    }
}
