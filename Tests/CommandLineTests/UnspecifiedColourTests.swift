import Foundation
import XCTest

@testable import TestSupport

/// A source that states no colour stays unstated in what we write: the
/// conversion's fallback is a guess, and `-o out.mov` must not turn it into
/// a tag. `--assume-*` (FFmpeg's names) says what to assume instead: the
/// conversion uses it and the outputs carry it. ffprobe reads the files.
final class UnspecifiedColourTests: XCTestCase {
    private func probe(_ path: String) throws -> [String] {
        let out = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=color_primaries,color_transfer,color_space", "-of",
                "default=nw=1", path,
            ])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    func testUntaggedStaysUntaggedInAMOV() throws {
        let dir = try makeTemporaryDirectory(self)
        // hq.mov states nothing (ffprobe: unknown), as the conversion's fallback knows.
        XCTAssertEqual(
            try probe(Repo.fixture("hq.mov")),
            ["color_primaries=unknown", "color_space=unknown", "color_transfer=unknown"])
        let out = dir.appendingPathComponent("out.mov").path
        let run = try runTool([Repo.fixture("hq.mov"), "-o", out, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try probe(out), ["color_primaries=unknown", "color_space=unknown", "color_transfer=unknown"])
        // What a file states is kept.
        let pq = dir.appendingPathComponent("pq.mov").path
        XCTAssertEqual(try runTool([Repo.fixture("pq.mov"), "-o", pq, "--quiet"]).status, 0)
        XCTAssertEqual(try probe(pq), try probe(Repo.fixture("pq.mov")))
    }

    func testAssumptionsAreWrittenAndSaidOnce() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = dir.appendingPathComponent("out.mov").path
        let run = try runTool([
            Repo.fixture("hq.mov"), "-o", out, "--assume-primaries", "bt709", "--assume-transfer", "bt709",
            "--assume-matrix", "bt709",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try probe(out), ["color_primaries=bt709", "color_space=bt709", "color_transfer=bt709"])
        XCTAssertEqual(
            run.stderr.components(
                separatedBy:
                    "primaries, transfer and matrix untagged: bt709 as --assume-primaries, --assume-transfer and "
                    + "--assume-matrix say"
            ).count, 2, run.stderr)
        XCTAssertFalse(run.stderr.contains("documented fallback"), run.stderr)
        // Without them the note says what is assumed and what the outputs do.
        let plain = try runTool([Repo.fixture("hq.mov"), "-o", dir.appendingPathComponent("plain.mov").path])
        XCTAssertTrue(
            plain.stderr.contains(
                "primaries and matrix untagged: assuming smpte170m (documented fallback; outputs leave them unspecified"
            ),
            plain.stderr)
        let bad = try runTool([Repo.fixture("hq.mov"), "--assume-transfer", "nope"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }

    /// The conversion under `--assume-*` is the conversion of the same
    /// frames tagged so by the ffmpeg CLI (`-c copy`, its prores_metadata
    /// filter writing the frame headers' colour codes).
    func testTheConversionUsesTheAssumption() throws {
        let dir = try makeTemporaryDirectory(self)
        let tagged = dir.appendingPathComponent("tagged.mov").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", Repo.fixture("hq.mov"), "-c", "copy",
                "-bsf:v", "prores_metadata=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc",
                tagged,
            ])
        XCTAssertEqual(
            try probe(tagged), ["color_primaries=bt2020", "color_space=bt2020nc", "color_transfer=smpte2084"])
        func exr(_ arguments: [String], _ name: String) throws -> Data {
            let save = dir.appendingPathComponent(name)
            let run = try runTool(arguments + ["--frames", "1", "--save", save.path, "--quiet"], timeout: 120)
            XCTAssertEqual(run.status, 0, run.stderr)
            return try Data(contentsOf: save.appendingPathComponent("frame-000000.exr"))
        }
        let assumed = try exr(
            [
                Repo.fixture("hq.mov"), "--assume-primaries", "bt2020", "--assume-transfer", "pq", "--assume-matrix",
                "bt2020nc",
            ],
            "assumed")
        XCTAssertEqual(assumed, try exr([tagged], "tagged"))
        XCTAssertNotEqual(assumed, try exr([Repo.fixture("hq.mov")], "fallback"))
    }

    func testReportsSayUnspecified() throws {
        let info = try runTool(["info", Repo.fixture("hq.mov")])
        XCTAssertTrue(
            info.stdoutText.contains("primaries:    unspecified; conversions assume smpte170m (fallback)\n"),
            info.stdoutText)
        let page = try runTool(["check", Repo.fixture("hq.mov"), "--html", "-"])
        XCTAssertTrue(
            page.stdoutText.contains("<td>unspecified; conversions assume bt709</td>"), "check --html: the transfer row"
        )
    }
}
