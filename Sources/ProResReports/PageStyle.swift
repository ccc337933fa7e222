import HostSupport

/// The CSS and the one small script of the HTML pages (`check --html`,
/// `bench --html`): inline, so a page is one file that opens offline.
///
/// The status filter works without the script: the filter links point at
/// empty anchors (`#only-fail`, ...) placed before `<main>`, and `:target`
/// hides the other files' sections and index rows. The script only adds a
/// box that narrows the files by name.
package enum PageStyle {
    /// The verdicts, as the status words of the reports name them.
    static let statuses = ["fail", "error", "warn", "pass"]

    /// `#only-fail:target~main .pass{display:none}` for every other status.
    static var statusRules: String {
        statuses.flatMap { shown in statuses.filter { $0 != shown }.map { "#only-\(shown):target~main .\($0)" } }
            .joined(separator: ",") + "{display:none}"
    }

    static let css = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1000px;padding:0 16px 48px;color:#1a1a1a;background:#fff}
        h1{font-size:22px;margin:20px 0 8px}h2{font-size:17px;margin:0 0 6px;overflow-wrap:anywhere}h3{font-size:14px;margin:14px 0 4px;color:#444}
        table{border-collapse:collapse;margin:4px 0}th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top}
        th{font-weight:600;color:#444}td.num{text-align:right;font-variant-numeric:tabular-nums}
        .summary td,.summary th{padding-right:18px}
        .verdict{display:inline-block;min-width:52px;text-align:center;font-weight:700;border-radius:3px;padding:0 6px;color:#fff}
        .verdict.pass{background:#009E73}.verdict.fail{background:#D55E00}.verdict.error{background:#0072B2}.verdict.warn{background:#B07000}
        section.file{border:1px solid #ccc;border-left:6px solid #999;border-radius:4px;padding:12px 14px;margin:14px 0}
        section.file.pass{border-left-color:#009E73}section.file.fail{border-left-color:#D55E00}section.file.error{border-left-color:#0072B2}section.file.warn{border-left-color:#B07000}
        .reasons li{overflow-wrap:anywhere}.source{color:#666;font-size:12px}.note{color:#555}
        nav.filter{margin:10px 0;display:flex;gap:10px;flex-wrap:wrap;align-items:center}
        nav.filter a{padding:2px 10px;border:1px solid #bbb;border-radius:12px;text-decoration:none;color:#1a1a1a}
        nav.filter input{padding:2px 8px;border:1px solid #bbb;border-radius:12px}
        .anchor{display:block;height:0}
        \(statusRules)
        .hidden-by-name{display:none!important}
        figure{margin:6px 0}figure img{max-width:100%;height:auto;border:1px solid #ddd;background:#333}
        figcaption{color:#555;font-size:12px}svg.chart{max-width:100%;height:auto;display:block;margin:6px 0}
        .index td:nth-child(2){overflow-wrap:anywhere}
        """

    /// Adds a name filter; everything else works without it.
    static let script = """
        (function(){var nav=document.querySelector('nav.filter');if(!nav)return;
        var box=document.createElement('input');box.type='search';box.placeholder='file name contains…';box.setAttribute('aria-label','filter files by name');
        nav.appendChild(box);box.addEventListener('input',function(){var q=box.value.toLowerCase();
        document.querySelectorAll('[data-name]').forEach(function(e){var n=(e.getAttribute('data-name')||'').toLowerCase();
        e.classList.toggle('hidden-by-name',q!==''&&n.indexOf(q)<0);});});})();
        """

    /// `<!DOCTYPE html>` through `<body>`, with the title escaped.
    package static func head(title: String) -> String {
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            + "<title>\(XMLText.escape(title))</title>\n<style>\n\(css)\n</style>\n</head>\n<body>\n"
    }

    /// The "Show:" links by status and their empty anchors, which the
    /// style's `:target ~ main` rules need as siblings before `<main>`.
    package static func statusFilter(files: Int, failed: Int, errors: Int, warned: Int, passed: Int) -> String {
        "<nav class=\"filter\" aria-label=\"show files by status\">Show: <a href=\"#all\">all (\(files))</a>"
            + " <a href=\"#only-fail\">failed (\(failed))</a> <a href=\"#only-error\">errors (\(errors))</a>"
            + " <a href=\"#only-warn\">warnings (\(warned))</a>"
            + " <a href=\"#only-pass\">passed (\(passed))</a></nav>\n"
            + (["all"] + statuses.map { "only-" + $0 }).map { "<span class=\"anchor\" id=\"\($0)\"></span>\n" }
            .joined()
    }

    package static func tail(script: Bool) -> String {
        (script ? "<script>\n\(self.script)\n</script>\n" : "") + "</body>\n</html>\n"
    }
}
