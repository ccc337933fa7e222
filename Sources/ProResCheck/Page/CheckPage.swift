import HostSupport
import ProResCore
import ProResReports

/// `check --html FILE`: one self-contained HTML page a person opens after a
/// CI run. No network, no script needed to read it: inline CSS, inline SVG
/// graphs; previews referenced relative to the page's directory, so the page
/// and the previews directory can be moved together.
///
/// Layout: a summary (counts, time, decoder and device, shard, sample), the
/// status filter, an index of the files, then one `<section class="file
/// STATUS">` per file — failures first, then errors, then passes with
/// warnings, then passes, each group in path order.
public enum CheckPage {
    /// `pageDirectory`: where the page will be (the working directory for stdout).
    public static func html(_ results: [FileCheckResult], summary: CheckSummary, decoder: String, pageDirectory: String)
        -> String
    {
        let order: [FileCheckResult.Status] = [.fail, .error, .warn, .pass]
        let sorted = results.enumerated().sorted { a, b in
            let (ra, rb) = (order.firstIndex(of: a.element.status)!, order.firstIndex(of: b.element.status)!)
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
        let verdict = overallVerdict(failed: summary.failed, errors: summary.errors, warned: summary.warned)
        var html = PageStyle.head(title: "prores-decode check: \(verdict), \(summary.text)")
        html +=
            "<header>\n<h1>prores-decode check: <span class=\"verdict \(verdict.lowercased())\">\(verdict)</span></h1>\n"
        html += summaryTable(summary, decoder: decoder) + "</header>\n"
        html += PageStyle.statusFilter(
            files: summary.files, failed: summary.failed, errors: summary.errors, warned: summary.warned,
            passed: summary.passed)
        html += "<main>\n" + index(sorted)
        for (i, result) in sorted.enumerated() {
            html += FileSection.html(result, id: "file-\(i + 1)", pageDirectory: pageDirectory)
        }
        return html + "</main>\n" + PageStyle.tail(script: true)
    }

    /// The run's verdict: FAIL over ERROR over WARN over PASS.
    static func overallVerdict(failed: Int, errors: Int, warned: Int) -> String {
        failed > 0 ? "FAIL" : errors > 0 ? "ERROR" : warned > 0 ? "WARN" : "PASS"
    }

    private static func summaryTable(_ s: CheckSummary, decoder: String) -> String {
        var rows: [(String, String)] = [
            ("files", "\(s.files)"), ("passed", "\(s.passed)"), ("warned", "\(s.warned)"), ("failed", "\(s.failed)"),
            ("errors", "\(s.errors)"),
            ("time", "\(JSON.number(s.seconds, digits: 2)) s"), ("decoder", decoder),
            ("shard", s.shard.map(\.description) ?? "all files"),
        ]
        if let sample = s.sample { rows.append(("sample", "\(sample) frames a file")) }
        return "<table class=\"summary\">\n"
            + rows.map { "<tr><th>\(XMLText.escape($0.0))</th><td>\(XMLText.escape($0.1))</td></tr>\n" }.joined()
            + "</table>\n"
    }

    /// One row per file, linking to its section.
    private static func index(_ results: [FileCheckResult]) -> String {
        guard !results.isEmpty else { return "<p class=\"note\">No files were checked.</p>\n" }
        var html = "<table class=\"index\">\n<tr><th>verdict</th><th>file</th><th>why</th></tr>\n"
        for (i, r) in results.enumerated() {
            let status = r.status.rawValue
            // A WARN's why is its first warning.
            let problems = r.problems.isEmpty ? r.warnings : r.problems
            let why = problems.first.map { $0 + (problems.count > 1 ? " (+\(problems.count - 1) more)" : "") } ?? ""
            html +=
                "<tr class=\"\(status)\" data-name=\"\(XMLText.escape(r.input.path))\"><td><span class=\"verdict \(status)\">"
                + "\(status.uppercased())</span></td><td><a href=\"#file-\(i + 1)\">\(XMLText.escape(r.input.path))</a></td>"
                + "<td>\(XMLText.escape(why))</td></tr>\n"
        }
        return html + "</table>\n"
    }
}
