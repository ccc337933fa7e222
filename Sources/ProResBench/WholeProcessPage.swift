import HostSupport
import ProResCore
import ProResReports

/// `bench --whole-process --html FILE`: the commands, each round's wall
/// seconds side by side, the summary and the ratio, as one offline page.
public enum WholeProcessPage {
    public static func html(_ result: WholeProcessBenchmark.Result) -> String {
        typealias R = WholeProcessBenchmark.Result
        let labels = result.sides.indices.map(R.label)
        var html =
            PageStyle.head(title: "prores-decode bench --whole-process")
            + "<h1>prores-decode bench --whole-process</h1>\n"
        html +=
            "<table class=\"commands\">\n"
            + zip(labels, result.sides).map { label, side in
                "<tr><th>\(label)</th><td><code>\(e(WholeProcessBenchmark.Failure.line(side.command)))</code></td></tr>\n"
            }.joined() + "</table>\n"
        html += "<table class=\"summary\">\n<tr><th></th><th>min s</th><th>median s</th><th>max s</th></tr>\n"
        for (label, side) in zip(labels, result.sides) {
            html +=
                "<tr><th>\(label)</th>"
                + [side.minimum, side.median, side.maximum].map { "<td class=\"num\">\(R.seconds($0))</td>" }.joined()
                + "</tr>\n"
        }
        html += "</table>\n"
        if let ratio = result.ratio {
            html +=
                "<p class=\"ratio\">ratio B/A of the medians: <strong>\(JSON.number(ratio, digits: 3))</strong> (above 1: A is faster)</p>\n"
        }
        html +=
            "<h2>Rounds</h2>\n<table class=\"rounds\">\n<tr><th>round</th>" + labels.map { "<th>\($0) s</th>" }.joined()
            + "</tr>\n"
        for round in 0..<result.rounds {
            html +=
                "<tr><td class=\"num\">\(round + 1)</td>"
                + result.sides.map { "<td class=\"num\">\(R.seconds($0.seconds[round]))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n" + PageStyle.tail(script: false)
    }

    private static func e(_ text: String) -> String { XMLText.escape(text) }
}
