import Foundation
import XCTest

@testable import TestSupport

/// `prores-decode play` on a private Xvfb with Mesa lavapipe, checked from
/// outside: the window found by its title (xdotool), its pixels read by
/// `xwd` and compared in Python/numpy with the `--save-format png` preview
/// of the same frame, keys sent by xdotool. The Khronos validation layer is
/// on throughout and must stay silent.
final class PlayWindowTests: XCTestCase {
    static let validation = ["PRORES_DECODE_VALIDATION": "1"]

    func testPQFrameStepsAndQuits() throws { try checkWindow(fixture: "pq.mov") }

    /// 4444 with alpha: composited over black in linear light, after BT.709.
    func testAlphaFrameStepsAndQuits() throws { try checkWindow(fixture: "4444.mov") }

    func testTenFramesUnattended() throws {
        let xvfb = try XvfbServer(self)
        let directory = try makeTemporaryDirectory(self)
        // Twelve frames made by the ffmpeg CLI: the fixtures have five.
        let clip = directory.appendingPathComponent("twelve.mov").path
        let made = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25",
            "-frames:v", "12", "-c:v", "prores_ks", "-profile:v", "3", clip,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let run = try runTool(
            ["play", clip, "--frames", "10", "--json"],
            environment: Self.validation.merging(["DISPLAY": xvfb.display]) { $1 })
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("alidation"), run.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.stdoutText)
        XCTAssertEqual(summary["presented"] as? Int, 10)
        XCTAssertEqual(summary["validation_messages"] as? Int, 0)
        let realtime = try XCTUnwrap(summary["realtime"] as? [String: Any])
        // The window shows exactly what the pacer presents.
        XCTAssertEqual(realtime["presented"] as? Int, 10, "\(realtime)")
    }

    /// Playing in a loop with the HUD in the title; h hides it; destroying
    /// the window quits with exit 0.
    func testHUDLoopAndClose() throws {
        let xvfb = try XvfbServer(self)
        let player = try startPlayer(
            ["play", Repo.fixture("pq.mov"), "--loop", "--frames", "2", "--hud", "--json"], on: xvfb)
        let window = try findWindow("pq.mov", on: xvfb, player: player)
        func title() throws -> String {
            try xvfb.client(["xdotool", "getwindowname", window]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The HUD names each frame shown: frame 1, then frame 0 again, is
        // the loop seen from outside (no sleep that a loaded machine outruns).
        var sawSecondFrame = false
        _ = try waitFor("the HUD showing the loop back to frame 0") { () -> Bool? in
            let shown = try title()
            if shown.contains("  frame 1  ") { sawSecondFrame = true }
            return sawSecondFrame && shown.contains("  frame 0  ") ? true : nil
        }
        _ = try xvfb.client(["xdotool", "key", "--window", window, "h"])
        _ = try waitFor("the plain title after h") { try title() == "prores-decode — pq.mov" ? true : nil }
        _ = try xvfb.client(["xdotool", "windowclose", window])
        let (status, stdout, stderr) = try waitForExit(player)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertFalse(stderr.contains("alidation"), stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: stdout) as? [String: Any], stderr)
        XCTAssertGreaterThan(summary["presented"] as? Int ?? 0, 2, "it looped")
    }

    /// The X server stopping mid-play, or the player's client killed
    /// (`xkill`): exit 14 and one line saying the display went away, never
    /// exit 0 in silence.
    func testTheDisplayGoingAwayEndsPlayWithExit14() throws {
        for how in ["the server stops", "xkill"] {
            let xvfb = try XvfbServer(self)
            let player = try startPlayer(["play", Repo.fixture("pq.mov"), "--loop", "--hud"], on: xvfb)
            let window = try findWindow("pq.mov", on: xvfb, player: player)
            // Playing: the HUD names a frame shown.
            _ = try waitFor("a frame on screen") { () -> Bool? in
                try xvfb.client(["xdotool", "getwindowname", window]).text.contains("  frame ") ? true : nil
            }
            if how == "xkill" {
                _ = try xvfb.client(["xkill", "-id", window])
            } else {
                xvfb.stop()
            }
            let (status, _, stderr) = try waitForExit(player)
            XCTAssertEqual(status, 14, "\(how): \(stderr)")
            let errors = stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error: ") }
            XCTAssertEqual(errors.count, 1, "\(how): \(stderr)")
            XCTAssertTrue(errors.first?.contains("the display went away") == true, "\(how): \(stderr)")
        }
    }

    /// A PAL 4:3 clip (720×576, sample aspect 16:15, made by the ffmpeg CLI)
    /// opens 768 wide, as xwininfo measures the window: 720 × 16/15.
    func testTheWindowOpensAtTheDisplaySize() throws {
        let xvfb = try XvfbServer(self)
        let clip = try makeTemporaryDirectory(self).appendingPathComponent("pal.mov").path
        let made = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25",
            "-frames:v", "2", "-vf", "setsar=16/15", "-c:v", "prores_ks", "-profile:v", "0", clip,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let player = try startPlayer(["play", clip, "--paused"], on: xvfb)
        let window = try findWindow("pal.mov", on: xvfb, player: player)
        let info = try xvfb.client(["xwininfo", "-id", window]).text
        XCTAssertTrue(info.contains("Width: 768\n"), info)
        XCTAssertTrue(info.contains("Height: 576\n"), info)
        _ = try xvfb.client(["xdotool", "key", "--window", window, "q"])
        XCTAssertEqual(try waitForExit(player).status, 0)
    }

    func testNoDisplayIsItsOwnExitCode() throws {
        let run = try runTool(["play", Repo.fixture("pq.mov")], environment: ["DISPLAY": ""])
        XCTAssertEqual(run.status, 14, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("no display"), run.stderr)
    }

    /// `play FIXTURE --paused --start 1` shows frame 1; Right shows frame 2;
    /// q exits 0.
    private func checkWindow(fixture: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let xvfb = try XvfbServer(self)
        let directory = try makeTemporaryDirectory(self)
        let previews = try (1...2).map { try preview(fixture, frame: $0, in: directory) }

        let player = try startPlayer(["play", Repo.fixture(fixture), "--paused", "--start", "1"], on: xvfb)
        let window = try findWindow(fixture, on: xvfb, player: player)
        let shot = directory.appendingPathComponent("shot.xwd").path
        func matches(_ preview: String) throws -> Double {
            let grab = try xvfb.client(["xwd", "-silent", "-id", window, "-out", shot])
            XCTAssertEqual(grab.status, 0, grab.stderr, file: file, line: line)
            let compare = try runExternal(["/usr/bin/python3", "-c", PlayScreenshotReference.script, shot, preview])
            XCTAssertEqual(compare.status, 0, compare.stderr, file: file, line: line)
            return Double(
                compare.text.split(separator: " ").first.map(String.init)?.trimmingCharacters(
                    in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        _ = try waitFor("frame 1 on screen") { try matches(previews[0]) >= 0.995 ? true : nil }
        XCTAssertLessThan(
            try matches(previews[1]), 0.995, "frames 1 and 2 look alike: the step would prove nothing", file: file,
            line: line)

        XCTAssertEqual(try xvfb.client(["xdotool", "key", "--window", window, "Right"]).status, 0)
        _ = try waitFor("frame 2 on screen after Right") { try matches(previews[1]) >= 0.995 ? true : nil }

        // xdotool's own status is not checked: the window may be gone
        // (the player quit on the press) before it sends the release.
        _ = try xvfb.client(["xdotool", "key", "--window", window, "q"])
        let (status, _, stderr) = try waitForExit(player)
        XCTAssertEqual(status, 0, stderr, file: file, line: line)
        XCTAssertFalse(stderr.contains("alidation"), stderr, file: file, line: line)
    }

    /// `prores-decode ARGUMENTS` on `xvfb` with the validation layer on; its
    /// output is read by `waitForExit`.
    private func startPlayer(_ arguments: [String], on xvfb: XvfbServer) throws -> Process {
        let player = Process()
        player.executableURL = Repo.executable
        player.arguments = arguments
        player.environment = ProcessInfo.processInfo.environment.merging(
            Self.validation.merging(["DISPLAY": xvfb.display]) { $1 }
        ) { $1 }
        player.standardError = Pipe()
        player.standardOutput = Pipe()
        try player.run()
        addTeardownBlock { if player.isRunning { player.terminate() } }
        return player
    }

    /// The window whose title starts `prores-decode — NAME`; a player that
    /// exits first fails the test with what it said.
    private func findWindow(_ name: String, on xvfb: XvfbServer, player: Process) throws -> String {
        try waitFor("the window of \(name)") { () -> String? in
            if !player.isRunning {
                let (status, _, stderr) = try waitForExit(player)
                throw ExternalToolMissing(
                    description: "the player exited (\(status)) before its window appeared: \(stderr)")
            }
            let search = try xvfb.client(["xdotool", "search", "--name", "prores-decode — \(name)"])
            return search.text.split(separator: "\n").first.map(String.init)
        }
    }

    /// Waits for the player to end (its output is small: the pipes cannot fill).
    private func waitForExit(_ player: Process) throws -> (status: Int32, stdout: Data, stderr: String) {
        _ = try waitFor("the player to exit") { player.isRunning ? nil : true }
        let stdout = (player.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        let stderr = String(
            decoding: (player.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (
            player.terminationReason == .uncaughtSignal ? -player.terminationStatus : player.terminationStatus, stdout,
            stderr
        )
    }

    /// The `--save-format png` preview of one frame (our decoder's CPU path).
    private func preview(_ fixture: String, frame: Int, in directory: URL) throws -> String {
        let out = directory.appendingPathComponent("preview-\(frame)")
        let run = try runTool([
            Repo.fixture(fixture), "--start", "\(frame)", "--frames", "1", "--save", out.path, "--save-format", "png",
            "--quiet",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        return out.appendingPathComponent(String(format: "frame-%06d.png", frame)).path
    }

    /// Polls `probe` for up to 60 s; fails the test if it never answers.
    /// (A guard against a hang, not a speed limit: on a loaded 2-core CI
    /// machine lavapipe's first window once took more than 20 s.)
    private func waitFor<T>(_ what: String, _ probe: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(60)
        repeat {
            if let value = try probe() { return value }
            usleep(100_000)
        } while Date() < deadline
        throw ExternalToolMissing(description: "timed out waiting for \(what)")
    }
}
