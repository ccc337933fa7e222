import HostSupport
import ProResCore

/// The `"audio"` object of a check report's file entry: whether the file
/// has no sound at all, and every track's measurements.
extension AudioFacts {
    public var json: String {
        JSON.object([("missing", missing ? "true" : "false"), ("tracks", JSON.array(tracks.map(json)))])
    }

    private func json(_ t: AudioTrackMeasurement) -> String {
        func number(_ value: Double?, _ digits: Int) -> String {
            value.map { JSON.number($0, digits: digits) } ?? "null"
        }
        return JSON.object([
            ("index", "\(t.track.index)"),
            ("codec", JSON.string(t.track.codec)),
            ("sample_rate", "\(t.track.sampleRate)"),
            ("channels", "\(t.track.channels)"),
            ("channel_layout", t.track.layout.map(JSON.string) ?? "null"),
            ("integrated_lufs", number(t.integratedLUFS, 2)),
            ("loudness_range_lu", number(t.loudnessRangeLU, 2)),
            ("true_peak_dbtp", number(t.truePeakDBTP, 2)),
            ("sample_peak_dbfs", number(t.samplePeakDBFS, 2)),
            ("clipped_samples", "\(t.clippedSamples)"),
            ("silent_channels", JSON.array(t.silentChannels.map(String.init))),
            (
                "silent_runs",
                JSON.array(
                    t.silentRuns.map {
                        JSON.object([
                            ("start", JSON.number($0.start, digits: 3)), ("end", JSON.number($0.end, digits: 3)),
                        ])
                    })
            ),
            ("longest_silence_seconds", JSON.number(t.longestSilenceSeconds, digits: 3)),
            ("duration_seconds", number(t.seconds, 6)),
            ("av_duration_difference_seconds", number(durationDifference(t), 6)),
            ("problem", t.problem.map(JSON.string) ?? "null"),
        ])
    }
}
