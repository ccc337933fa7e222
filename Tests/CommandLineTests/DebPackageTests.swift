import Foundation
import XCTest

@testable import TestSupport

/// `make deb`'s package installed on a clean Debian 12 and used there
/// (scripts/test-deb.sh: a debootstrap'd bookworm kept in .build/deb-root,
/// copied afresh each run; needs root for chroot and mount). The script
/// checks each step against an independent reader (the host's ffmpeg for
/// the frames) and prints an `ok:` line for each; this test holds it to all
/// of them.
final class DebPackageTests: XCTestCase {
    func testPackageInstallsOnCleanDebianAndDecodesThere() throws {
        // The first run builds a release binary and downloads a Debian system.
        let result = try runProgram(Repo.root.appendingPathComponent("scripts/test-deb.sh").path, [], timeout: 3600)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        let version = try XCTUnwrap(try runTool(["--version"]).stdoutText.split(separator: "\n").first)
        for expected in [
            "ok: " + version, "ok: --decoder cpu framemd5 equals ffmpeg's (5 frames)",
            "ok: --decoder gpu framemd5 equals ffmpeg's (5 frames)", "ok: check of an http URL passes",
            "ok: copyright names Apache-2.0 and FFmpeg's LGPL",
        ] {
            XCTAssertTrue(lines.contains(expected), "missing '\(expected)' in:\n\(result.stdoutText)")
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("ok: man prores-decode") }, result.stdoutText)
        let depends = try XCTUnwrap(lines.first { $0.hasPrefix("ok: Depends: ") }, result.stdoutText)
        for package in ["libavformat59", "libavcodec59", "libavutil57", "libc6", "libvulkan1"] {
            XCTAssertTrue(
                depends.contains(package + " ") || depends.contains(package + ",") || depends.hasSuffix(package),
                "\(package): \(depends)")
        }
        XCTAssertFalse(depends.contains("-dev"), "a -dev package at run time: \(depends)")
        XCTAssertFalse(depends.contains("swift"), "the Swift runtime is linked in: \(depends)")
    }
}
