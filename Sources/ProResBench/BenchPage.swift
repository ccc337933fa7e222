import Foundation
import HostSupport
import ProResCore
import ProResReports

/// `bench --html FILE`: the benchmark as one offline page: what was decoded,
/// a table of fps and per-stage percentiles per decoder, and the charts of
/// `BenchCharts` inline. No script; every name escaped.
public enum BenchPage {
    public static func html(_ runs: [BenchRun]) -> String {
        var html = PageStyle.head(title: "prores-decode bench: " + runs.map(\.input).joined(separator: ", "))
        html += "<h1>prores-decode bench</h1>\n"
        for (i, run) in runs.enumerated() {
            let f = run.format
            html +=
                "<section class=\"bench\" id=\"input-\(i + 1)\" data-name=\"\(e(run.input))\">\n<h2>\(e(run.input))</h2>\n"
            html +=
                "<p class=\"note\">\(e("\(f.profileName) \(f.width)×\(f.height) \(f.chroma.rawValue), \(run.frameBytes / 1000) kB a frame"))</p>\n"
            html +=
                "<table class=\"decoders\">\n<tr><th>decoder</th><th>engine</th><th>frames</th><th>seconds</th><th>fps</th>"
                + "<th>stage</th><th>p50 µs</th><th>p95 µs</th><th>p99 µs</th></tr>\n"
            for result in run.results {
                for (k, stage) in result.stages.enumerated() {
                    let lead =
                        k == 0
                        ? "<td>\(e(result.path.rawValue))</td><td>\(e(result.engine + (result.batch.map { ", \($0) frames a batch" } ?? "")))</td>"
                            + "<td class=\"num\">\(result.frames)</td><td class=\"num\">\(JSON.number(result.seconds, digits: 3))</td>"
                            + "<td class=\"num\">\(JSON.number(result.framesPerSecond, digits: 1))</td>"
                        : "<td></td><td></td><td></td><td></td><td></td>"
                    let p = stage.percentiles
                    html +=
                        "<tr>" + lead + "<td>\(e(stage.name))</td>"
                        + [p.p50, p.p95, p.p99].map { "<td class=\"num\">\(JSON.number($0, digits: 1))</td>" }.joined()
                        + "</tr>\n"
                }
            }
            html += "</table>\n"
            for result in run.results {
                if let link = result.link {
                    let line = link.text(framesPerSecond: result.framesPerSecond).trimmingCharacters(
                        in: .whitespacesAndNewlines)
                    html += "<p class=\"note link\">\(e(result.path.rawValue + " " + line))</p>\n"
                }
            }
            html += "</section>\n"
        }
        html += "<h2>Charts</h2>\n" + BenchCharts.charts(runs).map { $0.svg + "\n" }.joined()
        return html + PageStyle.tail(script: false)
    }

    private static func e(_ text: String) -> String { XMLText.escape(text) }
}
