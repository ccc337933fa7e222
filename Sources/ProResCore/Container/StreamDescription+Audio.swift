import HostSupport

extension StreamDescription {
    /// One sound track in the stream description: `AudioTrack` with the
    /// difference between its length and the video's.
    public struct Audio: Sendable, Equatable, Codable {
        public var index: Int
        public var codec: String
        public var sampleRate: Int
        public var bitDepth: Int?
        public var channels: Int
        /// FFmpeg's layout name ("5.1"); nil when the container states a count alone.
        public var channelLayout: String?
        public var channelLabels: [String]
        public var durationSeconds: Double?
        public var language: String?
        /// The track's length minus the video's, in seconds.
        public var durationDifferenceSeconds: Double?

        enum CodingKeys: String, CodingKey {
            case index, codec
            case sampleRate = "sample_rate"
            case bitDepth = "bit_depth"
            case channels
            case channelLayout = "channel_layout"
            case channelLabels = "channel_labels"
            case durationSeconds = "duration_seconds"
            case language
            case durationDifferenceSeconds = "duration_difference_seconds"
        }

        public init(_ track: AudioTrack, videoSeconds: Double?) {
            index = track.index
            codec = track.codec
            sampleRate = track.sampleRate
            bitDepth = track.bitDepth
            channels = track.channels
            channelLayout = track.layout
            channelLabels = track.channelLabels
            durationSeconds = track.durationSeconds.map { Self.rounded($0) }
            language = track.language
            durationDifferenceSeconds = track.durationDifference(videoSeconds: videoSeconds).map { Self.rounded($0) }
        }

        /// Rounded so that the JSON text and a decoded copy agree exactly.
        private static func rounded(_ value: Double) -> Double {
            Double(JSON.number(value, digits: 6)) ?? value
        }

        var json: String {
            func number(_ d: Double?) -> String { d.map { JSON.number($0, digits: 6) } ?? "null" }
            return JSON.object([
                ("index", "\(index)"),
                ("codec", JSON.string(codec)),
                ("sample_rate", "\(sampleRate)"),
                ("bit_depth", bitDepth.map(String.init) ?? "null"),
                ("channels", "\(channels)"),
                ("channel_layout", channelLayout.map(JSON.string) ?? "null"),
                ("channel_labels", JSON.array(channelLabels.map(JSON.string))),
                ("duration_seconds", number(durationSeconds)),
                ("language", language.map(JSON.string) ?? "null"),
                ("duration_difference_seconds", number(durationDifferenceSeconds)),
            ])
        }
    }
}
