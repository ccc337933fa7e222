import Foundation
import XCTest

@testable import TestSupport

/// A MOV read where the reader cannot go back — a server without byte
/// ranges, stdin — gets the local file's verdict, or one error naming the
/// transport problem (exit 3, `check` exit 11), never "damaged container"
/// or "not ProRes". Clips are made by the `ffmpeg` CLI.
final class TransportTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
        for (name, flags) in [("faststart.mov", ["-movflags", "+faststart"]), ("index-last.mov", [])] {
            _ = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=25", "-frames:v", "20",
                    "-pix_fmt", "yuv422p10le", "-c:v", "prores_ks",
                ] + flags + [directory.appendingPathComponent(name).path])
        }
        // A moov-last recording cut inside its media: no index at all.
        let whole = try Data(contentsOf: directory.appendingPathComponent("index-last.mov"))
        try whole.prefix(whole.count / 2).write(to: directory.appendingPathComponent("cut.mov"))
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The verdict line without the input's name.
    private func verdict(_ result: ToolResult, _ input: String) -> String {
        (result.stderr.split(separator: "\n").first.map(String.init) ?? "").replacingOccurrences(of: input, with: "X")
    }

    func testServerWithoutRangesGivesTheLocalVerdictOrSaysWhy() throws {
        let server = try NoRangeHTTPServer(root: directory)
        for name in ["faststart.mov", "cut.mov"] {
            let local = try runTool(["check", path(name), "--decoder", "cpu"])
            let remote = try runTool(["check", "\(server.base)/\(name)", "--decoder", "cpu"])
            XCTAssertEqual(remote.status, local.status, "\(name): \(remote.stderr)")
            XCTAssertEqual(verdict(remote, "\(server.base)/\(name)"), verdict(local, path(name)), name)
        }
        let words =
            "the server does not support byte ranges (Range requests): the MOV index (moov) is at the end of the "
            + "file, after the frames; serve it from a server that does, or remux it with -movflags +faststart"
        let url = "\(server.base)/index-last.mov"
        let remote = try runTool(["check", url, "--decoder", "cpu"])
        XCTAssertEqual(remote.status, 11, remote.stderr)
        XCTAssertEqual(verdict(remote, url), "ERROR X: cannot read: " + words)
        let info = try runTool(["info", url])
        XCTAssertEqual(info.status, 3, info.stderr)
        XCTAssertEqual(info.stderr, "prores-decode: error: cannot read '\(url)': \(words)\n")
    }

    /// A server with ranges (nginx) reads the same file to a PASS.
    func testServerWithRangesReadsTheIndexAtTheEnd() throws {
        let server = try NginxServer(root: directory, test: self)
        let result = try runTool(["check", "\(server.base)/index-last.mov", "--decoder", "cpu"])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testStdinSaysWhyAMOVWithItsIndexLastCannotBeRead() throws {
        let faststart = try runTool(["info", "-"], stdinPath: path("faststart.mov"))
        XCTAssertEqual(faststart.status, 0, faststart.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path("index-last.mov")))
        for arguments in [["info", "-"], ["-i", "-", "--framemd5", "-"]] {
            let result = try runTool(arguments, stdin: bytes)
            XCTAssertEqual(result.status, 3, result.stderr)
            XCTAssertEqual(
                result.stderr,
                "prores-decode: error: cannot read 'stdin': read as a stream (stdin, a pipe), which cannot go back: the MOV index "
                    + "(moov) is at the end of the file, after the frames; remux it with -movflags +faststart, or give "
                    + "its path\n")
            XCTAssertTrue(result.stdout.isEmpty)
        }
    }
}
