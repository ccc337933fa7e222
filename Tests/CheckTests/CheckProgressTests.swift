import Foundation
import XCTest

@testable import TestSupport

/// `check` on a terminal shows progress inside a file (frames, %, fps,
/// ETA), and nothing of it when stderr is a pipe. The terminal is
/// util-linux's `script`, which runs the command on a pseudo-terminal.
final class CheckProgressTests: XCTestCase {
    private func longClip() throws -> String {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("long.mov").path
        let run = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
            "-frames:v", "300", "-c:v", "prores_ks", "-profile:v", "0", path,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        return path
    }

    func testATerminalSeesFramesPercentRateAndETA() throws {
        let clip = try longClip()
        let command = "'\(Repo.executable.path)' check '\(clip)' --decoder cpu --policy none"
        let run = try runExternal(["script", "-qec", command, "/dev/null"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).map(String.init)
        let progress = lines.filter { $0.contains("frame ") }
        XCTAssertFalse(progress.isEmpty, run.text)
        let pattern = #"file 0/1 frame [0-9]+/300 [0-9]+% [0-9.]+ fps ETA [0-9]+:[0-9]{2}"#
        XCTAssertTrue(
            progress.contains { $0.range(of: pattern, options: .regularExpression) != nil },
            progress.joined(separator: "\n"))
        XCTAssertTrue(run.text.contains("PASS \(clip)"), run.text)
    }

    func testAPipeSeesNoProgress() throws {
        let clip = try longClip()
        let result = try runTool(["check", clip, "--decoder", "cpu"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("\r"), result.stderr)
        XCTAssertFalse(result.stderr.contains("frame "), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").first.map(String.init), "PASS \(clip)")
    }
}
