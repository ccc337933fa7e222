import Foundation
import HostSupport

extension FileSection {
    /// Each sound track's measurements, a row a track; a line when the file has none.
    static func audioTable(_ audio: AudioFacts) -> String {
        let e = XMLText.escape
        guard !audio.missing else { return "<p class=\"note\">no audio track</p>\n" }
        func db(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-inf" }
        var html =
            "<table class=\"audio\"><tr><th>track</th><th>layout</th><th>LUFS</th><th>LRA (LU)</th><th>dBTP</th>"
            + "<th>dBFS</th><th>clipped</th><th>silent channels</th><th>silence ≥ 2 s</th><th>A/V (s)</th></tr>\n"
        for t in audio.tracks {
            let layout = t.track.layout ?? "\(t.track.channels) ch"
            if let problem = t.problem {
                html += "<tr><td>\(t.track.index)</td><td>\(e(layout))</td><td colspan=\"8\">\(e(problem))</td></tr>\n"
                continue
            }
            let silence = t.silentRuns.map { "\(JSON.number($0.start, digits: 2))–\(JSON.number($0.end, digits: 2))" }
            let cells = [
                "\(t.track.index)", layout, db(t.integratedLUFS), String(format: "%.1f", t.loudnessRangeLU ?? 0),
                db(t.truePeakDBTP), db(t.samplePeakDBFS), "\(t.clippedSamples)",
                t.silentChannels.isEmpty ? "none" : t.silentChannels.map(String.init).joined(separator: ", "),
                silence.isEmpty ? "none" : silence.joined(separator: ", "),
                audio.durationDifference(t).map { JSON.number($0, digits: 3) } ?? "unknown",
            ]
            html += "<tr>" + cells.map { "<td>\(e($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }
}
