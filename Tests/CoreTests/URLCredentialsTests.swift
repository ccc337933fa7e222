import HostSupport
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// Passwords in URLs are hidden by one function, on whole URLs and on text
/// that quotes them; relative redirects resolve as a client follows them.
final class URLCredentialsTests: XCTestCase {
    func testPasswordsAreReplacedAndEverythingElseKept() {
        let cases: [(String, String)] = [
            ("http://user:pass@host/a.mov", "http://user:***@host/a.mov"),
            ("https://user:pass@host:8443/a/b.mov?x=1", "https://user:***@host:8443/a/b.mov?x=1"),
            // A bare user part is a token: wholly hidden.
            ("https://ghp_token@host/a.mov", "https://***@host/a.mov"),
            // An unescaped '@' in the password: the authority's last '@' ends it.
            ("http://u:p@ss@host/a.mov", "http://u:***@host/a.mov"),
            ("http://u:@host/", "http://u:***@host/"),
            // No user part: the '@' is in the path or the query.
            ("http://host/a@b.mov", "http://host/a@b.mov"),
            ("http://host/a.mov?to=x@y", "http://host/a.mov?to=x@y"),
            ("clips/a@b.mov", "clips/a@b.mov"),
            // Text quoting two URLs, as FFmpeg's lines may.
            (
                "opening 'http://a:b@h1/x' then 'http://c:d@h2/y'",
                "opening 'http://a:***@h1/x' then 'http://c:***@h2/y'"
            ),
        ]
        for (given, shown) in cases {
            XCTAssertEqual(URLCredentials.redacted(given), shown, given)
        }
    }

    func testALocalNameIsShownAsItIs() throws {
        let dir = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(
            atPath: dir.appendingPathComponent("a:").path, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dir.appendingPathComponent("a:/u:p@b.mov").path, contents: Data([0]))
        let before = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(dir.path))
        defer { FileManager.default.changeCurrentDirectoryPath(before) }
        // `a://u:p@b.mov` names that file (`a:`, then `u:p@b.mov`): a name, not a URL.
        XCTAssertEqual(URLCredentials.shown("a://u:p@b.mov"), "a://u:p@b.mov")
        XCTAssertEqual(URLCredentials.shown("http://u:p@host/x.mov"), "http://u:***@host/x.mov")
    }

    func testRedirectsResolveAgainstTheURLTheyCameFrom() {
        let base = "http://u:p@host:8080/dir/a.mov?q=1"
        XCTAssertEqual(HTTPActivity.resolve("/b.mov", against: base), "http://u:p@host:8080/b.mov")
        XCTAssertEqual(HTTPActivity.resolve("c.mov", against: base), "http://u:p@host:8080/dir/c.mov")
        XCTAssertEqual(HTTPActivity.resolve("//other/d.mov", against: base), "http://other/d.mov")
        XCTAssertEqual(HTTPActivity.resolve("https://x/e.mov", against: base), "https://x/e.mov")
    }
}
