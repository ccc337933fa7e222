import Foundation
import XCTest

@testable import TestSupport

/// Commit subjects read `component: what changed` in at most 72 characters. The history before `lastLongSubject` keeps the
/// subjects it was written with; every commit after it holds the rule.
final class CommitSubjectTests: XCTestCase {
    /// The newest commit whose subject is longer.
    static let lastLongSubject = "993b114"

    func testEverySubjectIsAtMost72CharactersAndNamesItsComponent() throws {
        let git = ["git", "-C", Repo.root.path]
        // A shallow clone may not hold that commit: then every commit it holds is newer.
        let known = try runExternal(git + ["cat-file", "-e", Self.lastLongSubject + "^{commit}"]).status == 0
        let log = try runExternal(
            git + ["log", "--no-merges", "--format=%h %s"] + (known ? ["\(Self.lastLongSubject)..HEAD"] : ["HEAD"]))
        XCTAssertEqual(log.status, 0, log.stderr)
        let commits = log.text.split(separator: "\n")
        XCTAssertFalse(commits.isEmpty, "git log listed no commits")
        for commit in commits {
            let subject = commit.drop { $0 != " " }.dropFirst()
            XCTAssertLessThanOrEqual(subject.count, 72, "subject over 72 characters: \(commit)")
            // git's own `Revert "…"` subject names the component inside its quotes.
            XCTAssertNotNil(
                subject.range(of: #"^(Revert ")?[A-Za-z0-9_./ ,+-]+: \S"#, options: .regularExpression),
                "subject does not start 'component: ': \(commit)")
        }
    }
}
