import HostSupport
import ProResCore
import ProResReports

/// `merge --html FILE`: the check page of a merged run, made from the shard
/// reports' JSON: the summary, the status filter, the index, and per file
/// its verdict, reasons, format and previews (linked relative to the page).
/// Per-frame graphs need numbers the JSON report does not keep: each
/// shard's own `--html` page has them.
public enum MergedPage {
    public static func html(_ merge: ShardMerge, pageDirectory: String) -> String {
        func rank(_ status: FileCheckResult.Status) -> Int {
            switch status {
            case .fail: return 0
            case .error: return 1
            case .warn: return 2
            case .pass: return 3
            }
        }
        let sorted = merge.files.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element.status), rank(b.element.status))
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
        let verdict = CheckPage.overallVerdict(failed: merge.failed, errors: merge.errors, warned: merge.warned)
        var html = PageStyle.head(title: "prores-decode check: \(verdict), \(merge.text)")
        html +=
            "<header>\n<h1>prores-decode check: <span class=\"verdict \(verdict.lowercased())\">\(verdict)</span></h1>\n"
        var rows = [
            ("files", "\(merge.files.count)"), ("passed", "\(merge.passed)"), ("warned", "\(merge.warned)"),
            ("failed", "\(merge.failed)"),
            ("errors", "\(merge.errors)"), ("time", "\(JSON.number(merge.seconds, digits: 2)) s (the longest shard)"),
            ("shards", "\(merge.run.shardCount), merged"),
            ("options", merge.run.options.isEmpty ? "none" : merge.run.options),
        ]
        if let sample = merge.sample { rows.append(("sample", "\(sample) frames a file")) }
        html +=
            "<table class=\"summary\">\n" + rows.map { "<tr><th>\(e($0.0))</th><td>\(e($0.1))</td></tr>\n" }.joined()
            + "</table>\n"
        html += "</header>\n"
        html += PageStyle.statusFilter(
            files: merge.files.count, failed: merge.failed, errors: merge.errors, warned: merge.warned,
            passed: merge.passed)
        html += "<main>\n" + index(sorted)
        for (i, file) in sorted.enumerated() {
            html += section(file, id: "file-\(i + 1)", pageDirectory: pageDirectory)
        }
        return html + "</main>\n" + PageStyle.tail(script: true)
    }

    private static func e(_ text: String) -> String { XMLText.escape(text) }

    private static func index(_ files: [ShardReport.File]) -> String {
        guard !files.isEmpty else { return "<p class=\"note\">No files were checked.</p>\n" }
        var html = "<table class=\"index\">\n<tr><th>verdict</th><th>file</th><th>why</th></tr>\n"
        for (i, f) in files.enumerated() {
            let details = f.status == .pass ? nil : f.details()
            // A WARN's why is its first warning.
            let problems = f.status == .warn ? details?.warnings ?? [] : details?.problems ?? []
            let status = f.status.rawValue
            let why = problems.first.map { $0 + (problems.count > 1 ? " (+\(problems.count - 1) more)" : "") } ?? ""
            html +=
                "<tr class=\"\(status)\" data-name=\"\(e(f.path))\"><td><span class=\"verdict \(status)\">\(status.uppercased())</span></td>"
                + "<td><a href=\"#file-\(i + 1)\">\(e(f.path))</a></td><td>\(e(why))</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private static func section(_ f: ShardReport.File, id: String, pageDirectory: String) -> String {
        let status = f.status.rawValue
        var html =
            "<section class=\"file \(status)\" id=\"\(id)\" data-status=\"\(status)\" data-name=\"\(e(f.path))\">\n"
        html +=
            "<h2><span class=\"verdict \(status)\">\(status.uppercased())</span> <span class=\"name\">\(e(f.path))</span></h2>\n"
        let details = f.details()
        let facts = ["key \(f.key)"] + (details.format.map { [$0] } ?? []) + ["\(JSON.number(f.seconds, digits: 3)) s"]
        html += "<p class=\"note\">\(e(facts.joined(separator: " · ")))</p>\n"
        if !details.problems.isEmpty {
            html +=
                "<h3>Why</h3>\n<ul class=\"reasons\">\n" + details.problems.map { "<li>\(e($0))</li>\n" }.joined()
                + "</ul>\n"
        }
        if !details.warnings.isEmpty {
            html +=
                "<h3>Warnings</h3>\n<ul class=\"warnings\">\n" + details.warnings.map { "<li>\(e($0))</li>\n" }.joined()
                + "</ul>\n"
        }
        if let previews = details.previews {
            func src(_ path: String) -> String {
                e(
                    RelativePath.urlReference(
                        RelativePath.from(directory: pageDirectory, to: PathBytes.fromReportText(path) ?? path)))
            }
            html +=
                "<h3>Previews</h3>\n<figure><img src=\"\(src(previews.sheet))\" alt=\"contact sheet\" loading=\"lazy\">"
                + "<figcaption>contact sheet</figcaption></figure>\n"
                + "<figure><img src=\"\(src(previews.frame))\" alt=\"middle frame\" loading=\"lazy\"><figcaption>the middle frame</figcaption></figure>\n"
        }
        return html + "</section>\n"
    }
}
