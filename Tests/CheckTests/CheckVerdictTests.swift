import Foundation
import XCTest

@testable import ProResCheck
@testable import TestSupport

/// The WARN verdict and the policies: what a warn rule does to every
/// report, to the exit status and to `merge`; the default policy's limits;
/// policy files and their mistakes; the two policies docs/policies ships.
/// Facts about the fixtures come from ffprobe (hq.mov: 5 frames of
/// 192x112 at 25 fps, no colour tags; pq.mov: PQ, BT.2020, no HDR metadata).
final class CheckVerdictTests: XCTestCase {
    private func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func probe(_ path: String) throws -> [String: String] {
        let run = try runExternal(
            ["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_streams", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        var values: [String: String] = [:]
        for line in run.text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, values[parts[0]] == nil { values[parts[0]] = parts[1] }
        }
        return values
    }

    /// A broken warn rule: WARN on stderr, in the JSON report, the JUnit
    /// testcase (passing, with properties) and the page; exit 15, or what
    /// `--on-warning` asks.
    func testAWarnRuleMakesAWarnInEveryReport() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = Repo.fixture("hq.mov")
        let frames = try XCTUnwrap(probe(clip)["nb_read_frames"])
        let policy = try write("# short clips are looked at\nwarn frames>=24\n", "short.policy", in: dir)
        let report = dir.appendingPathComponent("r.json").path
        let junit = dir.appendingPathComponent("j.xml").path
        let page = dir.appendingPathComponent("p.html").path
        let run = try runTool(
            [
                "check", clip, "--decoder", "cpu", "--policy", policy, "--report", report, "--junit", junit,
                "--html", page,
            ])
        XCTAssertEqual(run.status, 15, run.stderr)
        XCTAssertTrue(run.stderr.contains("WARN \(clip) (1 warning)\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("  warning: expected frames>=24, got \(frames)\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("TOTAL 1 file: 0 passed, 1 warned, 0 failed, 0 errors"), run.stderr)

        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let file = try XCTUnwrap(try CheckFixtures.files(data).first)
        XCTAssertEqual(file["status"] as? String, "warn")
        XCTAssertTrue(file["reason"] is NSNull, "a warn has no reason to fail")
        XCTAssertEqual(file["warnings"] as? [String], ["expected frames>=24, got \(frames)"])
        XCTAssertEqual(
            file["warned_rules"] as? [[String: String]], [["rule": "frames>=24", "actual": frames]])
        let summary = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["summary"] as? [String: Any])
        XCTAssertEqual(summary["warned"] as? Int, 1)
        XCTAssertEqual(summary["passed"] as? Int, 0)

        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertFalse(xml.contains("<failure") || xml.contains("<error"), "a WARN is a passing testcase: \(xml)")
        XCTAssertTrue(xml.contains("<property name=\"verdict\" value=\"warn\"/>"), xml)
        XCTAssertTrue(xml.contains("<system-out>warning: expected frames&gt;=24, got \(frames)</system-out>"), xml)

        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("<section class=\"file warn\""), "the page's section is a warn")
        XCTAssertTrue(html.contains("<h1>prores-decode check: <span class=\"verdict warn\">WARN</span></h1>"))
        XCTAssertTrue(html.contains("<a href=\"#only-warn\">warnings (1)</a>"))

        let pass = try runTool(["check", clip, "--decoder", "cpu", "--policy", policy, "--on-warning", "pass"])
        XCTAssertEqual(pass.status, 0, pass.stderr)
        XCTAssertTrue(pass.stderr.contains("WARN \(clip)"), "the verdict stays WARN: \(pass.stderr)")
        let fail = try runTool(["check", clip, "--decoder", "cpu", "--policy", policy, "--on-warning", "fail"])
        XCTAssertEqual(fail.status, 10, fail.stderr)
        let bad = try runTool(["check", clip, "--policy", policy, "--on-warning", "maybe"])
        XCTAssertEqual(bad.status, 2, bad.stderr)

        // A fail rule broken as well: a FAIL, its warning still told.
        let both = try runTool(["check", clip, "--decoder", "cpu", "--policy", policy, "--expect", "frames>=100"])
        XCTAssertEqual(both.status, 10, both.stderr)
        XCTAssertTrue(both.stderr.contains("FAIL \(clip): expected frames>=100, got \(frames)\n"), both.stderr)
        XCTAssertTrue(both.stderr.contains("  warning: expected frames>=24"), both.stderr)
    }

    /// `merge` keeps WARN, exits 15, and refuses a report whose status word
    /// its warnings contradict, even with the digest recomputed.
    func testMergeKeepsWarnAndRefusesAStatusItsWarningsContradict() throws {
        let dir = try makeTemporaryDirectory(self)
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        for name in ["hq.mov", "lt.mov", "422.mov"] {
            try FileManager.default.copyItem(
                atPath: Repo.fixture(name), toPath: clips.appendingPathComponent(name).path)
        }
        let policy = try write("warn frames>=24\n", "short.policy", in: dir)
        var reports: [String] = []
        for shard in 1...2 {
            let report = dir.appendingPathComponent("r\(shard).json").path
            let run = try runTool(
                [
                    "check", clips.path, "--decoder", "cpu", "--policy", policy, "--shard", "\(shard)/2", "--report",
                    report,
                ])
            XCTAssertTrue([0, 15].contains(run.status), run.stderr)
            reports.append(report)
        }
        let merged = dir.appendingPathComponent("all.json").path
        let junit = dir.appendingPathComponent("all.xml").path
        let merge = try runTool(["merge"] + reports + ["--report", merged, "--junit", junit])
        XCTAssertEqual(merge.status, 15, merge.stderr)
        XCTAssertTrue(merge.stderr.contains("3 files: 0 passed, 3 warned, 0 failed, 0 errors"), merge.stderr)
        let files = try CheckFixtures.files(Data(contentsOf: URL(fileURLWithPath: merged)))
        XCTAssertEqual(files.map { $0["status"] as? String }, ["warn", "warn", "warn"])
        XCTAssertTrue(try String(contentsOfFile: junit, encoding: .utf8).contains("warning: expected frames&gt;=24"))
        XCTAssertEqual(try runTool(["merge"] + reports + ["--on-warning", "pass"]).status, 0)
        let page = try runTool(["merge"] + reports + ["--html", "-"])
        XCTAssertTrue(page.stdoutText.contains("<section class=\"file warn\""), "the merged page's sections warn")
        XCTAssertTrue(page.stdoutText.contains("<h3>Warnings</h3>"), "the merged page lists the warnings")

        // --resume carries a WARN as it carries a pass.
        let whole = dir.appendingPathComponent("whole.json").path
        let first = try runTool(["check", clips.path, "--decoder", "cpu", "--policy", policy, "--report", whole])
        XCTAssertEqual(first.status, 15, first.stderr)
        let resumed = try runTool(
            ["check", clips.path, "--decoder", "cpu", "--policy", policy, "--resume", whole, "--junit", junit])
        XCTAssertEqual(resumed.status, 15, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("WARN \(clips.path)/hq.mov (carried)"), resumed.stderr)
        XCTAssertTrue(
            try String(contentsOfFile: junit, encoding: .utf8).contains("<property name=\"verdict\" value=\"warn\"/>"))

        // A report edited so that a warn reads as a pass, its digest made again.
        let withFiles = try XCTUnwrap(
            reports.first { (try? CheckFixtures.files(Data(contentsOf: URL(fileURLWithPath: $0))).isEmpty) == false })
        for (from, to, derived) in [
            ("\"status\":\"warn\"", "\"status\":\"pass\"", "warn"),
            ("\"warnings\":[", "\"warnings_gone\":[", "pass"),
        ] {
            let text = try String(contentsOfFile: withFiles, encoding: .utf8)
            var lines = text.components(separatedBy: "\n")
            let index = try XCTUnwrap(lines.firstIndex { $0.contains(from) })
            lines[index] = lines[index].replacingOccurrences(of: from, with: to)
            if from.hasPrefix("\"warnings") {
                // Leaves the line a warn without warnings: the unknown field
                // is taken out again, the warnings with it.
                lines[index] = lines[index].replacingOccurrences(
                    of: #","warnings_gone":\[[^\]]*\],"decoders_may_differ":\[[^\]]*\],"warned_rules":\[[^\]]*\]"#,
                    with: "", options: .regularExpression)
            }
            let fileLines = lines.filter { $0.hasPrefix("{\"path\"") }.map {
                $0.hasSuffix(",") ? String($0.dropLast()) : $0
            }
            let digest = CheckReport.filesDigest(fileLines.map { Array($0.utf8) })
            let edited = lines.map { $0.hasPrefix("\"files_digest\":") ? "\"files_digest\":\"\(digest)\"}" : $0 }
            let path = dir.appendingPathComponent("edited.json").path
            try edited.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let refused = try runTool(["merge", path] + reports.filter { $0 != withFiles })
            XCTAssertEqual(refused.status, 3, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("make it \(derived)"), "\(from): \(refused.stderr)")
        }
    }

    /// The default policy's limits, at their edges: interior black up to
    /// 0.5 s, a held picture up to 1 s pass; a frame more of each warns.
    /// The clips' picture is testsrc2 held inside the video range.
    func testTheDefaultPolicyWarnsPastItsLimits() throws {
        let dir = try makeTemporaryDirectory(self)
        func clip(_ name: String, black: Int, repeats: Int) throws -> String {
            let path = dir.appendingPathComponent(name).path
            // Picture, black, picture, one frame held, picture.
            let legal = "lutyuv=y='clip(val,80,900)':u='clip(val,80,940)':v='clip(val,80,940)'"
            let graph =
                "[0:v]\(legal),split=4[a][b][c][d];"
                + "[1:v]lutyuv=y=64:u=512:v=512,trim=end_frame=\(black),setpts=PTS-STARTPTS[k];"
                + "[a]trim=end_frame=10,setpts=PTS-STARTPTS[a1];"
                + "[b]trim=start_frame=10:end_frame=20,setpts=PTS-STARTPTS[b1];"
                + "[c]trim=start_frame=20:end_frame=21,setpts=PTS-STARTPTS,loop=loop=\(repeats):size=1:start=0[c1];"
                + "[d]trim=start_frame=21:end_frame=26,setpts=PTS-STARTPTS[d1];"
                + "[a1][k][b1][c1][d1]concat=n=5:v=1,setpts=N/25/TB[out]"
            let run = try runExternal(
                [
                    "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=192x108:rate=25,format=yuv422p10le", "-f", "lavfi", "-i",
                    "color=c=black:size=192x108:rate=25,format=yuv422p10le", "-filter_complex", graph, "-map",
                    "[out]", "-c:v", "prores_ks", "-profile:v", "3", path,
                ])
            XCTAssertEqual(run.status, 0, run.stderr)
            return path
        }
        let within = try clip("within.mov", black: 12, repeats: 25)
        let past = try clip("past.mov", black: 13, repeats: 26)
        let ok = try runTool(["check", within, "--decoder", "cpu", "--policy", "default"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stderr.hasPrefix("PASS \(within)\n"), ok.stderr)
        let warned = try runTool(["check", past, "--decoder", "cpu", "--policy", "default"])
        XCTAssertEqual(warned.status, 15, warned.stderr)
        XCTAssertTrue(warned.stderr.contains("WARN \(past) (2 warnings)"), warned.stderr)
        XCTAssertTrue(
            warned.stderr.contains("  warning: expected black-run<=0.5s, got 0.52 s (13 frames)"), warned.stderr)
        XCTAssertTrue(
            warned.stderr.contains("  warning: expected frozen-run<=1s, got 1.04 s (26 frames)"), warned.stderr)

        // Without --policy the default policy applies (run as any program is: runTool adds --policy none).
        let plain = try runExternal([Repo.executable.path, "check", past, "--decoder", "cpu"])
        XCTAssertEqual(plain.status, 15, plain.stderr)

        // PQ without mastering display and content light level warns; with them, not.
        let pq = try runTool(["check", Repo.fixture("pq.mov"), "--decoder", "cpu", "--policy", "default"])
        XCTAssertTrue(
            pq.stderr.contains(
                "  warning: expected hdr-metadata=true, got no mastering display, no content light level (transfer smpte2084)"
            ), pq.stderr)
        let tagged = try Self.pqWithMetadata(in: dir)
        let withMetadata = try runTool(["check", tagged, "--decoder", "cpu", "--policy", "default"])
        XCTAssertFalse(withMetadata.stderr.contains("hdr-metadata"), withMetadata.stderr)
    }

    /// pq.mov in Matroska with the mastering display and content light
    /// level set by mkvpropedit (as ffprobe reads them back).
    static func pqWithMetadata(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("pq-metadata.mkv").path
        let copy = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", Repo.fixture("pq.mov"), "-c", "copy", path,
        ])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let set = [
            "chromaticity-coordinates-red-x=0.708", "chromaticity-coordinates-red-y=0.292",
            "chromaticity-coordinates-green-x=0.17", "chromaticity-coordinates-green-y=0.797",
            "chromaticity-coordinates-blue-x=0.131", "chromaticity-coordinates-blue-y=0.046",
            "white-coordinates-x=0.3127", "white-coordinates-y=0.329", "max-luminance=1000", "min-luminance=0.0001",
            "max-content-light=1000", "max-frame-light=400",
        ].flatMap { ["--set", $0] }
        let edit = try runExternal(["mkvpropedit", path, "--edit", "track:v1"] + set)
        XCTAssertEqual(edit.status, 0, edit.stderr)
        return path
    }

    /// A policy file that cannot be read, or a line that is not a rule: a
    /// usage error naming the file (and the line); nothing is checked.
    func testPolicyFileMistakesAreUsageErrors() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = Repo.fixture("hq.mov")
        let missing = dir.appendingPathComponent("missing.policy").path
        for (policy, words) in [
            (missing, "--policy '\(missing)': no such file"),
            (dir.path, "--policy '\(dir.path)': a directory, not a policy file"),
            (
                try write("# ok\nwarn frames>=1\n\nwarn blak-run<=1\n", "typo.policy", in: dir),
                "line 4: rule 'blak-run<=1': unknown key 'blak-run'"
            ),
            (try write("frames>=1,width=2\n", "comma.policy", in: dir), "line 1: one rule a line"),
            (try write("warn black-run<=0.5x\n", "unit.policy", in: dir), "line 1: rule 'black-run<=0.5x'"),
            (try write("warn\n", "empty.policy", in: dir), "line 1: rule 'warn': no comparison"),
        ] {
            let run = try runTool(["check", clip, "--policy", policy])
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertTrue(run.stderr.contains(words), "\(words): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("TOTAL"), "nothing is checked: \(run.stderr)")
        }

        // CRLF line ends read as LF.
        let windows = try write("# saved on Windows\r\nwarn frames>=24\r\n", "crlf.policy", in: dir)
        let crlf = try runTool(["check", clip, "--decoder", "cpu", "--policy", windows])
        XCTAssertEqual(crlf.status, 15, crlf.stderr)

        // `default` brings the default policy in; --expect adds fail rules to the file's.
        let withDefault = try write("default  # the default policy\nfail width=192\n", "d.policy", in: dir)
        let run = try runTool([
            "check", Repo.fixture("pq.mov"), "--decoder", "cpu", "--policy", withDefault, "--expect", "height=1",
        ])
        XCTAssertEqual(run.status, 10, run.stderr)
        XCTAssertTrue(run.stderr.contains(": expected height=1, got 112\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("  warning: expected hdr-metadata=true"), run.stderr)
    }

    /// The shipped policies, each on a fixture: the fail rules it breaks
    /// are the ones ffprobe's facts about the fixture break.
    func testShippedPoliciesJudgeAsTheyState() throws {
        let dir = try makeTemporaryDirectory(self)
        let sdr = Repo.root.appendingPathComponent("docs/policies/sdr-broadcast.policy").path
        let hdr = Repo.root.appendingPathComponent("docs/policies/hdr10.policy").path

        let hq = Repo.fixture("hq.mov")
        let facts = try probe(hq)
        let size = "\(facts["width"] ?? "?")x\(facts["height"] ?? "?")"
        var expected = ["size=1920x1080"]
        // Unstated colour is a fallback, which bt709 never matches.
        for (rule, key) in [
            ("primaries=bt709", "color_primaries"), ("transfer=bt709", "color_transfer"),
            ("matrix=bt709", "color_space"),
        ]
        where facts[key] != "bt709" {
            expected.append(rule)
        }
        let sdrRun = try runTool(["check", hq, "--decoder", "cpu", "--policy", sdr, "--report", "-"])
        XCTAssertEqual(sdrRun.status, 10, sdrRun.stderr)
        let sdrFile = try XCTUnwrap(try CheckFixtures.files(sdrRun.stdout).first)
        let broken = (sdrFile["failed_rules"] as? [[String: String]] ?? []).compactMap { $0["rule"] }
        XCTAssertTrue(broken.contains("size=1920x1080"))
        XCTAssertEqual(
            (sdrFile["failed_rules"] as? [[String: String]])?.first { $0["rule"] == "size=1920x1080" }?["actual"], size)
        XCTAssertEqual(Set(broken.filter { !$0.hasPrefix("out-of-range") }), Set(expected), sdrRun.stderr)

        let pq = try Self.pqWithMetadata(in: dir)
        let pqFacts = try probe(pq)
        let hdrRun = try runTool(["check", pq, "--decoder", "cpu", "--policy", hdr, "--report", "-"])
        XCTAssertEqual(hdrRun.status, 10, hdrRun.stderr)
        let hdrFile = try XCTUnwrap(try CheckFixtures.files(hdrRun.stdout).first)
        let hdrBroken = (hdrFile["failed_rules"] as? [[String: String]] ?? []).compactMap { $0["rule"] }
        var hdrExpected = ["size=3840x2160"]
        if pqFacts["color_primaries"] != "bt2020" { hdrExpected.append("primaries=bt2020") }
        if pqFacts["color_space"] != "bt2020nc" { hdrExpected.append("matrix=bt2020nc") }
        XCTAssertEqual(Set(hdrBroken), Set(hdrExpected), hdrRun.stderr)

        // The light measured against the light stated: MaxCLL and MaxFALL as
        // ffprobe reads them, the peak and frame average as the report gives them.
        let stats = try XCTUnwrap(hdrFile["stats"] as? [String: Any])
        let light = try XCTUnwrap(stats["light"] as? [String: Any])
        let peak = try XCTUnwrap(light["max_nits"] as? Double)
        let average = try XCTUnwrap(light["max_frame_average_nits"] as? Double)
        let side = try runExternal(
            ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data", pq]).text
        func stated(_ key: String) throws -> Double {
            let line = try XCTUnwrap(side.split(separator: "\n").first { $0.hasPrefix(key + "=") }, side)
            return try XCTUnwrap(Double(line.dropFirst(key.count + 1)))
        }
        let warned = (hdrFile["warned_rules"] as? [[String: String]] ?? []).compactMap { $0["rule"] }
        XCTAssertEqual(warned.contains("max-cll<=stated"), peak > (try stated("max_content")), hdrRun.stderr)
        XCTAssertEqual(warned.contains("max-fall<=stated"), average > (try stated("max_average")), hdrRun.stderr)
        let plain = try runTool(["check", Repo.fixture("pq.mov"), "--decoder", "cpu", "--expect", "max-cll<=stated"])
        XCTAssertTrue(plain.stderr.contains("got n/a (the file states no content light level)"), plain.stderr)
    }

    /// `-v` lists every broken rule, one a line; without it the first and a count.
    func testVerboseListsEveryBrokenRule() throws {
        let clip = Repo.fixture("hq.mov")
        let rules = "frames>=24,size=1x1,fps=30"
        let plain = try runTool(["check", clip, "--decoder", "cpu", "--expect", rules])
        XCTAssertEqual(plain.status, 10)
        XCTAssertTrue(plain.stderr.contains("FAIL \(clip): expected frames>=24, got 5 (+2 more)\n"), plain.stderr)
        let verbose = try runTool(["check", clip, "--decoder", "cpu", "--expect", rules, "-v"])
        XCTAssertEqual(verbose.status, 10)
        XCTAssertTrue(verbose.stderr.contains("FAIL \(clip): expected frames>=24, got 5\n"), verbose.stderr)
        XCTAssertTrue(verbose.stderr.contains("  also: expected size=1x1, got 192x112\n"), verbose.stderr)
        XCTAssertTrue(verbose.stderr.contains("  also: expected fps=30, got 25\n"), verbose.stderr)
    }
}
