import Foundation
import XCTest

/// Any name the file system allows is a file name to every command: a
/// local name that looks like a URL is the file (`./` or `file:` force it),
/// and an empty name is a usage error that says so.
final class LegalNameTests: XCTestCase {
    /// `a://b.mov` is the file `b.mov` in the folder `a:` when it exists.
    func testALocalNameThatLooksLikeAURLIsTheFile() throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("a:"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: directory.appendingPathComponent("a:/b.mov").path)
        let reference = try runTool([Repo.fixture("hq.mov"), "--framemd5", "-", "-q"])
        for name in ["a://b.mov", "./a://b.mov"] {
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

    /// '' (an unset shell variable) names no file: one usage line, not
    /// "ERROR : cannot read".
    func testAnEmptyNameIsAUsageErrorThatSaysSo() throws {
        for arguments in [["check", ""], ["check", Repo.fixture("hq.mov"), ""], [""], ["info", ""], ["info", Repo.fixture("hq.mov"), ""],
                          ["bench", ""], ["plot", "", "-o", "-"], ["-i", ""]] {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            assertSingleError(result, mentions: ["empty", "''"], "\(arguments)")
        }
    }
}
