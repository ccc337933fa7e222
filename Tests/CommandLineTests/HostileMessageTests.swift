import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// Damage named for what it is, and user-controlled text (file names, bytes
/// of a file) printed escaped: no control character reaches the terminal.
final class HostileMessageTests: XCTestCase {

    func testCorruptSampleTablesAreNamed() throws {
        let first = try runTool([Hostile.fixture("stsz-size-first.mov"), "--quiet"], timeout: 30)
        Hostile.assertExit(first, 3, "stsz-size-first.mov")
        assertSingleError(
            first, mentions: ["damaged container header", "Sample size 1073741824 is too large"], "stsz-size-first.mov")

        let third = try runTool([Hostile.fixture("stsz-size-third.mov"), "--quiet"], timeout: 30)
        Hostile.assertExit(third, 5, "stsz-size-third.mov")
        assertSingleError(
            third, mentions: ["frames 2–4 of 5 are missing", "Sample size 1073741824 is too large"],
            "stsz-size-third.mov")

        let count = try runTool([Hostile.fixture("stts-count.mov"), "--quiet"], timeout: 30)
        Hostile.assertExit(count, 3, "stts-count.mov")
        assertSingleError(count, mentions: ["damaged container header"], "stts-count.mov")
        XCTAssertFalse(count.stderr.contains("frame -1"), count.stderr)

        let size = try runTool([Hostile.fixture("stsz-count.mov"), "--quiet"], timeout: 30)
        Hostile.assertExit(size, 3, "stsz-count.mov")
        assertSingleError(size, mentions: ["damaged container header"], "stsz-count.mov")
        XCTAssertFalse(size.stderr.contains("not a recognised media file"), size.stderr)
    }

    func testAMovieCutInsideItsMoovIsTruncatedNotForeign() throws {
        let result = try runTool([Hostile.fixture("cut-in-moov.mov"), "--quiet"], timeout: 30)
        Hostile.assertExit(result, 3, "cut-in-moov.mov")
        assertSingleError(result, mentions: ["truncated", "'moov' box"], "cut-in-moov.mov")
        XCTAssertFalse(result.stderr.contains("not ProRes"), result.stderr)
    }

    func testALUTThatIsADeviceIsNamedSo() throws {
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--vulkan", "--effect", "lut:/dev/zero", "-o", "/dev/null"], timeout: 30)
        Hostile.assertExit(result, 12, "lut:/dev/zero")
        assertSingleError(result, mentions: ["/dev/zero", "is a device"], "lut:/dev/zero")
        XCTAssertFalse(result.stderr.contains("permissions"), result.stderr)
    }

    func testBinaryJunkFromALUTIsEscaped() throws {
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--vulkan", "--effect", "lut:\(Hostile.fixture("junk.cube"))", "-o", "/dev/null"],
            timeout: 30)
        Hostile.assertExit(result, 12, "junk.cube")
        assertSingleError(result, mentions: ["junk.cube", "line 1", "\\x1B]0;owned\\x07"], "junk.cube")
        XCTAssertFalse(
            result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
            "a control character reached stderr")
    }

    func testFileNamesAreEscaped() throws {
        let dir = try makeTemporaryDirectory(self)
        let name = dir.appendingPathComponent("evil\u{1B}[2Jname\nsecond.mov").path
        for arguments in [[name], ["info", name], ["check", name]] {
            let result = try runTool(arguments, timeout: 30)
            XCTAssertEqual(result.reason, .exit, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("evil\\x1B[2Jname\\x0Asecond.mov"), result.stderr)
            XCTAssertFalse(
                result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
                "a control character reached stderr")
        }
    }

    func testEscaping() {
        XCTAssertEqual(TerminalText.escaped("plain é ü 日本"), "plain é ü 日本")
        XCTAssertEqual(TerminalText.escaped("a\u{1B}[31mb\u{7}\u{0}\t\n"), "a\\x1B[31mb\\x07\\x00\\x09\\x0A")
        XCTAssertEqual(TerminalText.escaped("\u{9B}2J \u{202E}txt"), "\\u{9B}2J \\u{202E}txt")
    }

    /// An empty name (an unset shell variable) is a usage error: taken as a
    /// folder, `--save ""` would fill the current directory with EXRs.
    func testEmptyOutputNamesAreUsageErrors() throws {
        let dir = try makeTemporaryDirectory(self)
        for option in ["--save", "-o", "--framemd5", "--timing"] {
            let result = try runTool([Repo.fixture("hq.mov"), option, ""], in: dir, timeout: 30)
            Hostile.assertExit(result, 2, "\(option) \"\"")
            assertSingleError(result, mentions: [option, "empty"], "\(option) \"\"")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "\(option) \"\" wrote something")
        }
    }
}
