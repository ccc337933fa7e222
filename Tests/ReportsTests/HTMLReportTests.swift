import Foundation
import XCTest

@testable import TestSupport

/// `check --html`, `bench --html`/`--svg` and `plot`, opened in headless
/// Chromium: the DOM after load, every picture a page references, the
/// browser's console, and a screenshot that is not blank.
final class HTMLReportTests: XCTestCase {
    /// A file name with every character markup cares about, and a newline
    /// (no '/': a file name cannot hold one).
    static let hostileName = "we<ird> & \"q\" 'a'\n<b>bold.mov"

    /// A folder of good files (4:2:2, 4444 with alpha, PQ), a damaged one,
    /// one that is not video, and a good one with a hostile name, checked
    /// with previews. The page must list failures first, show each file's
    /// verdict as the JSON report does, and reference only pictures that exist.
    func testCheckPageInTheBrowser() throws {
        let dir = try makeTemporaryDirectory(self)
        let clips = dir.appendingPathComponent("clips")
        let fm = FileManager.default
        for (name, fixture) in [
            ("good/hq.mov", "hq.mov"), ("good/4444.mov", "4444.mov"), ("good/pq.mov", "pq.mov"),
            ("bad/corrupt-slice.mov", "bad/corrupt-slice.mov"), ("bad/random.bin", "bad/random.bin"),
            ("odd/" + Self.hostileName, "hq.mov"),
        ] {
            let target = clips.appendingPathComponent(name)
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(atPath: Repo.fixture(fixture), toPath: target.path)
        }
        let out = dir.appendingPathComponent("ci artifacts")
        let page = out.appendingPathComponent("check.html")
        let report = out.appendingPathComponent("r.json")
        try fm.createDirectory(at: out, withIntermediateDirectories: true)
        let result = try runTool(
            [
                "check", clips.path, "--html", page.path, "--report", report.path,
                "--previews", out.appendingPathComponent("previews").path, "--decoder", "cpu",
            ], timeout: 300)
        XCTAssertEqual(result.status, 10, "a damaged file fails the run: \(result.stderr)")

        // The verdicts as the JSON report gives them, by path.
        let files = try CheckFixtures.files(Data(contentsOf: report))
        var expected: [String: String] = [:]
        for file in files {
            expected[try XCTUnwrap(file["path"] as? String)] = try XCTUnwrap(file["status"] as? String)
        }
        XCTAssertEqual(expected.count, 6)

        // The page moves with its previews: open it from somewhere else.
        let moved = dir.appendingPathComponent("downloaded/artifact")
        try fm.createDirectory(at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fm.moveItem(at: out, to: moved)
        let movedPage = moved.appendingPathComponent("check.html")

        let (dom, log) = try Chromium.dumpDOM(movedPage)
        XCTAssertEqual(Chromium.consoleMessages(log), [], "the page logs nothing to the console")
        let shape = try PageShape(dom: dom)
        XCTAssertEqual(shape.sections.count, 6, "one section per file")
        XCTAssertEqual(
            shape.sections.map(\.status), ["fail", "error", "pass", "pass", "pass", "pass"],
            "failures first, then errors")
        for section in shape.sections {
            XCTAssertEqual(
                expected[section.name], section.status, "\(section.name): the page's verdict is the report's")
            XCTAssertEqual(section.verdict, section.status?.uppercased(), "the verdict is written out")
            XCTAssertEqual(section.nameAttribute, section.name)
        }
        XCTAssertTrue(
            shape.sections.contains { $0.name.hasSuffix("/odd/" + Self.hostileName) }, "the hostile name round-trips")
        XCTAssertEqual(shape.tags["b"], nil, "no <b> element came from a file name")

        // Every picture: 5 read files × (sheet + frame), each resolving next to the moved page.
        XCTAssertEqual(shape.images.count, 10)
        for source in shape.images {
            let reference = try XCTUnwrap(source, "an <img> without src")
            XCTAssertFalse(reference.hasPrefix("/") || reference.contains(":"), "\(reference) is relative")
            let resolved = try XCTUnwrap(URL(string: reference, relativeTo: movedPage)).standardizedFileURL
            XCTAssertTrue(
                fm.fileExists(atPath: resolved.path), "\(reference) resolves to \(resolved.path), which exists")
        }
        // Luma for each of the 5 read files; light for pq.mov; alpha for 4444.mov.
        XCTAssertEqual(shape.svgs, 7, "per-frame graphs")

        // The status filter with JavaScript off: each filter link's anchor in
        // a sandboxed iframe (scripts blocked, same origin so the harness can
        // read it), each section's computed display read back.
        let filters = ["", "only-fail", "only-error", "only-warn", "only-pass"]
        let harness = moved.appendingPathComponent("harness.html")
        try Self.filterHarness(page: "check.html", anchors: filters).write(
            to: harness, atomically: true, encoding: .utf8)
        let (shown, harnessLog) = try Chromium.dumpDOM(
            harness, extra: ["--allow-file-access-from-files", "--virtual-time-budget=10000"])
        XCTAssertEqual(
            Chromium.consoleMessages(harnessLog).filter { !$0.contains("Blocked script execution") }, [],
            "nothing but the page's script being blocked, as asked")
        let statuses = shape.sections.compactMap(\.status)
        for anchor in filters {
            let visible = anchor.isEmpty ? statuses : statuses.filter { "only-" + $0 == anchor }
            XCTAssertTrue(
                shown.contains("#\(anchor): \(visible.joined(separator: ",")) inputs 0;"),
                "#\(anchor) shows only \(visible) without script: \(shown.components(separatedBy: "<pre id=\"out\">").last?.prefix(400) ?? "")"
            )
        }

        let png = dir.appendingPathComponent("check.png")
        let shotLog = try Chromium.screenshot(movedPage, to: png)
        XCTAssertEqual(Chromium.consoleMessages(shotLog), [])
        XCTAssertGreaterThan(try Chromium.distinctColours(png), 8, "the screenshot is not blank")
    }

    /// A page of sandboxed iframes (`allow-same-origin` only: the framed
    /// page's scripts do not run), one per anchor; once all have loaded it
    /// writes `#ANCHOR: status,status inputs N;` per frame into `<pre id="out">`:
    /// the statuses of the sections displayed, and how many inputs the page's
    /// own script added (0 when scripts are off).
    static func filterHarness(page: String, anchors: [String]) -> String {
        let frames = anchors.map {
            "<iframe sandbox=\"allow-same-origin\" data-anchor=\"\($0)\" src=\"\(page)#\($0)\"></iframe>"
        }
        return """
            <!DOCTYPE html><html><body><pre id="out">waiting</pre>
            \(frames.joined(separator: "\n"))
            <script>
            // The window's load waits for every frame's: counting the frames'
            // own load events could miss one that fired before this script ran.
            window.addEventListener('load', function () {
              var frames = document.querySelectorAll('iframe'), lines = [];
              frames.forEach(function (f) {
                var d = f.contentDocument, shown = [];
                d.querySelectorAll('section').forEach(function (s) {
                  if (getComputedStyle(s).display !== 'none') shown.push(s.getAttribute('data-status'));
                });
                lines.push('#' + f.getAttribute('data-anchor') + ': ' + shown.join(',') + ' inputs ' + d.querySelectorAll('input').length + ';');
              });
              document.getElementById('out').textContent = lines.join('\\n');
            });
            </script></body></html>
            """
    }

    /// File names are text: whatever they hold, the page gets no element
    /// from them, and the browser reads back exactly the name.
    func testAFileNameCannotInjectMarkup() throws {
        let dir = try makeTemporaryDirectory(self)
        let names = [
            Self.hostileName, "<img src=x onerror=console.error(1)><script>console.error(2)<script>.mov",
            "a&amp;b &lt;c&gt; \"'.mov",
        ]
        for name in names {
            try FileManager.default.copyItem(
                atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent(name).path)
        }
        let page = dir.appendingPathComponent("page.html")
        let result = try runTool(["check", dir.path, "--html", page.path, "--decoder", "cpu", "--exclude", "*.html"])
        XCTAssertEqual(result.status, 0, result.stderr)

        let (dom, log) = try Chromium.dumpDOM(page)
        XCTAssertEqual(Chromium.consoleMessages(log), [], "no script from a file name ran")
        let shape = try PageShape(dom: dom)
        XCTAssertEqual(
            shape.sections.map(\.name).sorted(), names.map { dir.path + "/" + $0 }.sorted(),
            "each name round-trips as text")
        XCTAssertEqual(shape.sections.map(\.status), ["pass", "pass", "pass"])
        XCTAssertEqual(shape.tags["script"], 1, "only the page's own script")
        XCTAssertEqual(shape.tags["b"], nil)
        XCTAssertEqual(shape.tags["img"], nil)
        XCTAssertEqual(shape.tags["section"], 3)

        // Like the other reports: replaced by a rerun, kept with -n.
        let before = try Data(contentsOf: page)
        let refused = try runTool([
            "check", dir.path, "--html", page.path, "--decoder", "cpu", "--exclude", "*.html", "-n",
        ])
        XCTAssertEqual(refused.status, 6, refused.stderr)
        XCTAssertEqual(try Data(contentsOf: page), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.hasPrefix(".pd-") || $0.hasSuffix(".part")
            }, [])
    }

    /// What is not a timing log is refused with the line that is wrong, and no SVG is left.
    func testPlotRefusesWhatIsNotATimingLog() throws {
        let dir = try makeTemporaryDirectory(self)
        let log = dir.appendingPathComponent("t.jsonl")
        let svg = dir.appendingPathComponent("t.svg")
        try "{\"frame\":0,\"pts\":0,\"status\":\"ok\",\"decode_us\":5}\nnot json\n".write(
            to: log, atomically: true, encoding: .utf8)
        let bad = try runTool(["plot", log.path, "-o", svg.path])
        XCTAssertEqual(bad.status, 3, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("line 2"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: svg.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["t.jsonl"], "no temporary left")
        let missing = try runTool(["plot", dir.appendingPathComponent("none.jsonl").path, "-o", svg.path])
        XCTAssertEqual(missing.status, 3, missing.stderr)
        let noOutput = try runTool(["plot", log.path])
        XCTAssertEqual(noOutput.status, 2, noOutput.stderr)
    }

    /// `bench --html` and `--svg` on the CPU decoder: one section per input
    /// with its decoders' rows, the charts inline, and the SVG file drawn.
    func testBenchPageAndSVGInTheBrowser() throws {
        let dir = try makeTemporaryDirectory(self)
        let page = dir.appendingPathComponent("bench.html")
        let svg = dir.appendingPathComponent("bench.svg")
        let result = try runTool(
            [
                "bench", Repo.fixture("hq.mov"), Repo.fixture("4444.mov"), "--decoders", "cpu", "--frames", "12",
                "--threads", "2", "--html", page.path, "--svg", svg.path,
            ], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let again = try runTool([
            "bench", Repo.fixture("hq.mov"), "--decoders", "cpu", "--frames", "1", "--html", page.path,
        ])
        XCTAssertEqual(again.status, 6, "an existing page is kept without -y")

        let (dom, log) = try Chromium.dumpDOM(page)
        XCTAssertEqual(Chromium.consoleMessages(log), [])
        let shape = try PageShape(dom: dom)
        XCTAssertEqual(shape.sections.count, 2, "one section per input")
        // Throughput, then per input: the cpu stages and the latency timeline.
        XCTAssertEqual(shape.svgs, 5)
        XCTAssertEqual(shape.images.count, 0)

        let png = dir.appendingPathComponent("bench.png")
        XCTAssertEqual(Chromium.consoleMessages(try Chromium.screenshot(page, to: png)), [])
        XCTAssertGreaterThan(try Chromium.distinctColours(png), 8)
        let svgPNG = dir.appendingPathComponent("bench-svg.png")
        XCTAssertEqual(Chromium.consoleMessages(try Chromium.screenshot(svg, to: svgPNG)), [])
        XCTAssertGreaterThan(try Chromium.distinctColours(svgPNG), 8)
    }

    /// `plot` on a `--realtime` timing log: an SVG the browser draws, the
    /// late and dropped frames the log names in their lanes.
    func testPlotOfATimingLogInTheBrowser() throws {
        let dir = try makeTemporaryDirectory(self)
        let log = dir.appendingPathComponent("timing.jsonl")
        let svg = dir.appendingPathComponent("timing.svg")
        let decode = try runTool([Repo.fixture("hq.mov"), "--realtime", "--timing", log.path, "--quiet"])
        XCTAssertEqual(decode.status, 0, decode.stderr)
        // A stall the pacer saw: frames 1–2 late, 3 dropped (the log's own format).
        var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let last = try XCTUnwrap(lines.popLast())
        XCTAssertTrue(
            last.hasPrefix("{\"realtime\":") && last.contains("\"late_frames\":[")
                && last.contains("\"dropped_frames\":["), last)
        lines.append(
            "{\"realtime\":{\"rate\":25,\"ticks\":5,\"presented\":4,\"late\":2,\"dropped\":1,\"late_frames\":[[1,2]],\"dropped_frames\":[[3,3]]}}"
        )
        try (lines.joined(separator: "\n") + "\n").write(to: log, atomically: true, encoding: .utf8)

        let plot = try runTool(["plot", log.path, "-o", svg.path, "--title", "<hq> & \"timing\""])
        XCTAssertEqual(plot.status, 0, plot.stderr)
        let text = try String(contentsOf: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("&lt;hq&gt; &amp; &quot;timing&quot;"), "the title is escaped")
        for lane in [">late<", ">dropped<", ">latency<", ">decode<", "p99"] {
            XCTAssertTrue(text.contains(lane), "\(lane) in the plot")
        }

        let png = dir.appendingPathComponent("plot.png")
        XCTAssertEqual(Chromium.consoleMessages(try Chromium.screenshot(svg, to: png, width: 900, height: 420)), [])
        XCTAssertGreaterThan(try Chromium.distinctColours(png), 8)
    }
}
