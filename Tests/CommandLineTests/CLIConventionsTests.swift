import Foundation
import XCTest

@testable import TestSupport

/// The conventions video tools expect, with the CLI run as a process:
/// ffmpeg's short spellings (-i, -y, -n, -v, -q), `--version` naming the
/// libraries, `-` and `file:` URLs wherever a file goes, and `--save`
/// honouring the overwrite rule.
final class CLIConventionsTests: XCTestCase {

    // MARK: - Short aliases

    func testDashIIsTheInputAsFFmpegTakesIt() throws {
        let expected = try ffmpegFrameMD5s("hq.mov")
        let result = try runTool(["-i", Repo.fixture("hq.mov"), "--format", "native", "--framemd5", "-"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(md5Column(result.stdoutText), expected)
        let info = try runTool(["info", "-i", Repo.fixture("hq.mov")])
        XCTAssertEqual(info.status, 0, "info -i: \(info.stderr)")
        XCTAssertTrue(info.stdoutText.contains("192x112"), info.stdoutText)

        let both = try runTool([Repo.fixture("hq.mov"), "-i", Repo.fixture("lt.mov")])
        XCTAssertEqual(both.status, 2)
        assertSingleError(both, mentions: ["two inputs", "lt.mov"], "INPUT and -i")
    }

    func testYesReplacesAndNoRefusesBeforeDoingAnything() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = dir.appendingPathComponent("out.raw")
        let md5 = dir.appendingPathComponent("new.md5")
        let timing = dir.appendingPathComponent("timing.jsonl")
        try Data("old".utf8).write(to: out)
        try Data("old".utf8).write(to: timing)

        // The timing file is opened after the other two: theirs must vanish.
        let refused = try runTool([Repo.fixture("hq.mov"), "-n", "--framemd5", md5.path, "--timing", timing.path])
        XCTAssertEqual(refused.status, 6, "-n with an existing output: exit 6; stderr: \(refused.stderr)")
        assertSingleError(refused, mentions: ["timing.jsonl", "already exists"], "-n")
        XCTAssertEqual(try Data(contentsOf: timing), Data("old".utf8), "-n changed the existing file")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["out.raw", "timing.jsonl"],
            "-n left another output or a temporary behind")

        let replaced = try runTool([Repo.fixture("hq.mov"), "-y", "--format", "v216", "-o", out.path])
        XCTAssertEqual(replaced.status, 0, "-y: \(replaced.stderr)")
        XCTAssertEqual(try Data(contentsOf: out).count, 5 * CLITests.v216FrameSize, "-y must replace the file")

        let contradiction = try runTool([Repo.fixture("hq.mov"), "-y", "-n", "-o", out.path])
        XCTAssertEqual(contradiction.status, 2)
        assertSingleError(contradiction, mentions: ["-y/--overwrite", "-n/--no-overwrite"], "-y -n")
        let checkContradiction = try runTool(["check", Repo.fixture("hq.mov"), "-n", "--overwrite"])
        XCTAssertEqual(checkContradiction.status, 2, checkContradiction.stderr)
    }

    func testVerboseAndQuietShortSpellings() throws {
        let verbose = try runTool([Repo.fixture("hq.mov"), "-v", "--decoder", "cpu"])
        XCTAssertEqual(verbose.status, 0, verbose.stderr)
        XCTAssertTrue(verbose.stderr.contains("prores-decode: decoder: "), "-v names the decoder:\n\(verbose.stderr)")
        let quiet = try runTool([Repo.fixture("422.mov"), "-q", "--format", "y416"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "-q: nothing on stderr")
    }

    func testHelpShowsTheShortSpellings() throws {
        let help = try runTool(["--help"]).stdoutText
        for label in ["-i INPUT", "-y, --overwrite", "-n, --no-overwrite", "-q, --quiet", "-v, --verbose"] {
            XCTAssertTrue(help.contains("  " + label), "--help lacks '\(label)':\n\(help)")
        }
        let check = try runTool(["check", "--help"]).stdoutText
        for label in ["-y, --overwrite", "-n, --no-overwrite", "-v, --verbose"] {
            XCTAssertTrue(check.contains("  " + label), "check --help lacks '\(label)'")
        }
    }

    // MARK: - --version

    /// The libraries and their versions, runtime checked against what the
    /// ffmpeg CLI (linked against the same shared libraries) says.
    func testVersionNamesFFmpegVulkanAndShaderc() throws {
        let result = try runTool(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("prores-decode ") ?? false, result.stdoutText)
        let ffmpeg = String(
            decoding: try FrameTools.runProcess("/usr/bin/ffmpeg", ["-version"]), as: UTF8.self)
        for library in ["libavcodec", "libavformat", "libavutil"] {
            // ffmpeg -version: "libavcodec     59. 37.100 / 59. 37.100" (compiled / runtime).
            let row = ffmpeg.split(separator: "\n").first { $0.hasPrefix(library + " ") }
            let runtime = row?.split(separator: "/").last?.replacingOccurrences(of: " ", with: "")
            let expected = "\(library) \(runtime ?? "?") (compiled against "
            XCTAssertTrue(lines.contains { $0.hasPrefix(expected) }, "no '\(expected)' line:\n\(result.stdoutText)")
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("FFmpeg ") }, result.stdoutText)
        // Tests run with a loader (lavapipe); without one the line says "none".
        let vulkan = lines.first { $0.hasPrefix("Vulkan loader ") }
        XCTAssertNotNil(
            vulkan.flatMap { $0.range(of: #"^Vulkan loader 1\.\d+\.\d+$"#, options: .regularExpression) },
            "\(vulkan ?? "no loader line")")
        XCTAssertTrue(
            lines.contains { $0.range(of: #"^shaderc .*SPIR-V 1\.\d+"#, options: .regularExpression) != nil },
            result.stdoutText)
    }

    // MARK: - `-` for every file argument

    func testGoldenFromStdin() throws {
        let hq = Repo.fixture("hq.mov")
        let written = try runTool(["check", hq, "--write-golden", "-"])
        XCTAssertEqual(written.status, 0, written.stderr)
        let pass = try runTool(["check", hq, "--golden", "-"], stdin: written.stdout)
        XCTAssertEqual(pass.status, 0, "--golden - with the right hashes passes: \(pass.stderr)")
        XCTAssertTrue(pass.stderr.hasPrefix("PASS "), pass.stderr)

        // One changed hash digit: the frame's hash no longer matches.
        var text = written.stdoutText
        let line = text.split(separator: "\n").first { !$0.hasPrefix("#") }!
        let hash = line.split(separator: " ")[1]
        text = text.replacingOccurrences(of: hash, with: (hash.first == "0" ? "1" : "0") + hash.dropFirst())
        let fail = try runTool(["check", hq, "--golden", "-"], stdin: Data(text.utf8))
        XCTAssertEqual(fail.status, 10, "--golden - with a wrong hash fails: \(fail.stderr)")

        let both = try runTool(["check", "-", "--golden", "-"], stdin: written.stdout)
        XCTAssertEqual(both.status, 2)
        assertSingleError(both, mentions: ["not stdin", "--golden -"], "check - --golden -")
        let benchTwice = try runTool(["bench", "-", "-"])
        XCTAssertEqual(benchTwice.status, 2)
        assertSingleError(benchTwice, mentions: ["stdin"], "bench - -")
    }

    // MARK: - file: URLs

    func testFileURLsOpenTheLocalFile() throws {
        let dir = try makeTemporaryDirectory(self).appendingPathComponent("a b")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let clip = dir.appendingPathComponent("hq.mov")
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: clip.path)
        let expected = try ffmpegFrameMD5s("hq.mov")
        let escaped = clip.path.replacingOccurrences(of: " ", with: "%20")
        for url in ["file://" + escaped, "file:" + escaped, "file://localhost" + escaped, "file:" + clip.path] {
            let result = try runTool([url, "--format", "native", "--framemd5", "-"])
            XCTAssertEqual(result.status, 0, "\(url): \(result.stderr)")
            XCTAssertEqual(md5Column(result.stdoutText), expected, url)
        }
        let check = try runTool(["check", "file://" + escaped])
        XCTAssertEqual(check.status, 0, check.stderr)
        let elsewhere = try runTool(["info", "file://example.com" + escaped])
        XCTAssertNotEqual(elsewhere.status, 0, "a file: URL naming another host is not a local file")
    }

    // MARK: - --save follows -o's overwrite rule

    func testSaveDoesNotReplaceFrameFilesWithoutOverwrite() throws {
        let out = try makeTemporaryDirectory(self)
        let first = try runTool([
            Repo.fixture("hlg.mov"), "--save", out.path, "--start", "1", "--frames", "1", "--save-format", "png", "-q",
        ])
        XCTAssertEqual(first.status, 0, first.stderr)
        let frame = out.appendingPathComponent("frame-000001.png")
        try Data("mine".utf8).write(to: frame)

        let refused = try runTool([
            Repo.fixture("hlg.mov"), "--save", out.path, "--frames", "3", "--save-format", "png",
        ])
        XCTAssertEqual(refused.status, 6, "an existing frame file: exit 6; stderr: \(refused.stderr)")
        assertSingleError(refused, mentions: ["frame-000001.png", "already exists"], "--save over a frame")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out.path), ["frame-000001.png"], "nothing else written")
        XCTAssertEqual(try Data(contentsOf: frame), Data("mine".utf8), "the refused run replaced the frame")

        // Frames the run does not write, or another format, are no obstacle.
        let others = try runTool([
            Repo.fixture("hlg.mov"), "--save", out.path, "--start", "2", "--frames", "1", "--save-format", "png", "-q",
        ])
        XCTAssertEqual(others.status, 0, others.stderr)
        let exr = try runTool([Repo.fixture("hlg.mov"), "--save", out.path, "--frames", "2", "-q"])
        XCTAssertEqual(exr.status, 0, exr.stderr)

        let replaced = try runTool([
            Repo.fixture("hlg.mov"), "--save", out.path, "--frames", "3", "--save-format", "png", "-y", "-q",
        ])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertNotEqual(try Data(contentsOf: frame), Data("mine".utf8), "-y replaces the frame")
    }

    // MARK: - Colour fallbacks said once

    func testEachColourFallbackIsReportedOnceWithVulkan() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--vulkan", "--frames", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let notes = result.stderr.split(separator: "\n").filter { $0.contains("untagged") }
        // One line per distinct assumption: 192x112 is 525-line SD, so primaries and matrix share smpte170m.
        XCTAssertEqual(
            notes.map(String.init),
            [
                "prores-decode: primaries and matrix untagged: assuming smpte170m (documented fallback; "
                    + "outputs leave them unspecified; --assume-primaries and --assume-matrix set them)",
                "prores-decode: transfer untagged: assuming bt709 (documented fallback; "
                    + "outputs leave it unspecified; --assume-transfer sets it)",
            ], result.stderr)
        XCTAssertFalse(
            result.stderr.contains("colour: "), "the conversion's fallbacks repeat the stream's here:\n\(result.stderr)"
        )
    }

    /// An untagged HD clip assumes bt709 for all three tags: one line, once a run.
    func testOneLineForOneAssumption() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = dir.appendingPathComponent("untagged-hd.mov").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=25", "-frames:v", "3", "-pix_fmt",
                "yuv422p10le", "-c:v", "prores_ks", clip,
            ])
        let result = try runTool([clip, "--vulkan", "--frames", "3", "--format", "y416", "--framemd5", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.stderr.split(separator: "\n").filter { $0.contains("untagged") }.map(String.init),
            [
                "prores-decode: primaries, transfer and matrix untagged: assuming bt709 (documented fallback; "
                    + "outputs leave them unspecified; --assume-primaries, --assume-transfer and --assume-matrix "
                    + "set them)"
            ], result.stderr)
    }
}
