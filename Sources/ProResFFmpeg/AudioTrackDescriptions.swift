import CFFmpeg
import ProResCore

/// The sound tracks of an open container, in the container's words
/// (`AudioTrack`): what ffprobe's `-show_streams` reads from the same header.
enum AudioTrackDescriptions {
    static func described(_ streams: [UnsafeMutablePointer<AVStream>]) -> [AudioTrack] {
        streams.enumerated().compactMap { index, stream in
            guard let parameters = stream.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO else {
                return nil
            }
            return describe(index, stream, parameters)
        }
    }

    private static func describe(
        _ index: Int, _ stream: UnsafeMutablePointer<AVStream>, _ parameters: UnsafeMutablePointer<AVCodecParameters>
    ) -> AudioTrack {
        let codec = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let codecBits = Int(av_get_bits_per_sample(parameters.pointee.codec_id))
        let rawBits = Int(parameters.pointee.bits_per_raw_sample)
        let (layout, labels) = channelLayout(&parameters.pointee.ch_layout)
        let language = metadata(stream.pointee.metadata, "language").flatMap { $0 == "und" ? nil : $0 }
        return AudioTrack(
            index: index, codec: codec, sampleRate: Int(parameters.pointee.sample_rate),
            bitDepth: codecBits > 0 ? codecBits : rawBits > 0 ? rawBits : nil,
            channels: Int(parameters.pointee.ch_layout.nb_channels), layout: layout, channelLabels: labels,
            durationSeconds: duration(stream), language: language, isPCM: codec.hasPrefix("pcm_"))
    }

    /// The layout's name and each channel's label; neither when the
    /// container gives a channel count alone (an unspecified order).
    private static func channelLayout(_ layout: UnsafeMutablePointer<AVChannelLayout>) -> (String?, [String]) {
        guard layout.pointee.order != AV_CHANNEL_ORDER_UNSPEC, layout.pointee.nb_channels > 0 else { return (nil, []) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_channel_layout_describe(layout, &buffer, buffer.count) >= 0 else { return (nil, []) }
        let name = String(cString: buffer)
        let labels = (0..<layout.pointee.nb_channels).map { i -> String in
            var label = [CChar](repeating: 0, count: 32)
            let channel = av_channel_layout_channel_from_index(layout, UInt32(i))
            guard av_channel_name(&label, label.count, channel) >= 0 else { return "?" }
            return String(cString: label)
        }
        return (name, labels)
    }

    /// The stream's duration, else Matroska's per-track DURATION tag.
    private static func duration(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let s = stream.pointee
        if s.duration != PD_AV_NOPTS_VALUE, s.duration > 0, s.time_base.den > 0 {
            return Double(s.duration) * Double(s.time_base.num) / Double(s.time_base.den)
        }
        guard let tag = metadata(s.metadata, "DURATION"),
            let nanoseconds = FrameCountClaim.nanoseconds(durationTag: tag)
        else { return nil }
        return Double(nanoseconds) / 1e9
    }

    private static func metadata(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        av_dict_get(dictionary, key, nil, 0).flatMap { $0.pointee.value.map { String(cString: $0) } }
    }
}
