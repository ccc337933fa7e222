import Foundation
import XCTest

@testable import TestSupport

/// Any name the file system allows is a file name to every command: a
/// local name that looks like a URL is the file (`./` or `file:` force it),
/// and an empty name is a usage error that says so.
final class LegalNameTests: XCTestCase {
    /// `a://b.mov` is the file `b.mov` in the folder `a:` when it exists.
    func testALocalNameThatLooksLikeAURLIsTheFile() throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("a:"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: directory.appendingPathComponent("a:/b.mov").path)
        let reference = try runTool([Repo.fixture("hq.mov"), "--framemd5", "-", "-q"])
        // As a file: URL, percent-escapes decoded (`a%3A` is `a:`).
        let fileURL = "file://" + directory.path + "/a%3A/b.mov"
        for name in ["a://b.mov", "./a://b.mov", fileURL] {
            let info = try runTool(["info", name], in: directory)
            XCTAssertEqual(info.status, 0, "\(name): \(info.stderr)")
            let decoded = try runTool([name, "--framemd5", "-", "-q"], in: directory)
            XCTAssertEqual(decoded.status, 0, "\(name): \(decoded.stderr)")
            XCTAssertEqual(md5Column(decoded.stdoutText), md5Column(reference.stdoutText), name)
            let checked = try runTool(["check", name], in: directory)
            XCTAssertEqual(checked.status, 0, "\(name): \(checked.stderr)")
        }
        // A name that does not exist locally is still a URL for libavformat.
        let missing = try runTool(["info", "nosuchscheme://b.mov"], in: directory)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertFalse(missing.stderr.contains("no such file"), "a URL, not a missing file: \(missing.stderr)")
    }

    /// A clip whose name is NAME_MAX (255) bytes gets previews: their name
    /// keeps the first 228 bytes, then `~` and 16 hex digits of the whole
    /// name's SHA-256 (by sha256sum), so `.sheet.png` still fits.
    func testAClipWithALongestNameGetsPreviews() throws {
        let directory = try makeTemporaryDirectory(self)
        let clips = directory.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        let name = String(repeating: "n", count: 251) + ".mov"
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: clips.appendingPathComponent(name).path)
        let result = try runTool(
            ["check", clips.path, "--previews", directory.appendingPathComponent("p").path], in: directory)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("no previews"), result.stderr)
        let hash = try FrameTools.runProcess("/bin/sh", ["-c", "printf %s \"$0\" | sha256sum", name])
        let base = String(name.prefix(255 - 10 - 17)) + "~" + String(decoding: hash.prefix(16), as: UTF8.self)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("p").path).sorted(),
            [base + ".frame.png", base + ".sheet.png"])
    }

    /// '' (an unset shell variable) names no file: one usage line, not
    /// "ERROR : cannot read".
    func testAnEmptyNameIsAUsageErrorThatSaysSo() throws {
        for arguments in [
            ["check", ""], ["check", Repo.fixture("hq.mov"), ""], [""], ["info", ""],
            ["info", Repo.fixture("hq.mov"), ""],
            ["bench", ""], ["plot", "", "-o", "-"], ["-i", ""],
        ] {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            assertSingleError(result, mentions: ["empty", "''"], "\(arguments)")
        }
    }
}
