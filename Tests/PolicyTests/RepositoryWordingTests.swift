import Foundation
import XCTest

@testable import TestSupport

/// The repository speaks of the product in the present tense. Every tracked
/// text file is scanned for phrases that speak of the work on it instead:
/// numbered work sessions and periods, issue numbers, measurement "calls",
/// machines on loan, pointers into a history file. The phrase list lives
/// here; the matcher is checked against planted lines first, so an empty
/// scan cannot pass for a clean tree.
final class RepositoryWordingTests: XCTestCase {
    /// Each pattern with what it catches. Case-insensitive.
    static let phrases: [(pattern: String, speaks: String)] = {
        let ordinals = [
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
            "eighteenth", "nineteenth", "twentieth", "[0-9]+(st|nd|rd|th)",
        ].joined(separator: "|")
        return [
            ("\\b(\(ordinals))\\s+sessions?\\b", "a numbered work session"),
            ("\\bsessions?\\s+[0-9]+", "a numbered work session"),
            ("\\bissues?\\s+#?[0-9]+", "an issue number"),
            ("(^|[^A-Za-z0-9_&#%+])#[0-9]{1,2}\\b([^A-Za-z0-9_-]|$)", "an issue reference"),
            ("\\bthe issue'?s\\b", "the issue a change came from"),
            ("\\bcalls?\\s*[-#]?[0-9]+", "a numbered run on the GPU machine"),
            ("\\bdevice[- ]calls?\\b", "a run on the GPU machine"),
            ("\\blent\\b", "a machine on loan"),
            ("\\bborrowed\\s+machines?\\b", "a machine on loan"),
            ("\\bwork\\s+periods?\\b", "a numbered stretch of work"),
            ("\\bBENCHMARKS(\\.md)?\\s*§", "a section of a history file"),
            ("\\bthis\\s+brief\\b", "the brief of a piece of work"),
            (
                "\\bused\\s+to\\s+(be\\s+[a-z]+ed|fill|allocate|hand|crash|leave|write|report|return|print|take|read|open|exit|lose|"
                    + "replace|overwrite|ignore|accept|refuse|pass|fail|hang|skip|drop|keep|give)\\b",
                "what the code did before a change"
            ),
        ]
    }()

    /// Files left out of the scan (none).
    static let excluded: [String] = []

    func testTheMatcherCatchesPlantedLines() throws {
        let matcher = try WordingMatcher(Self.phrases)
        // Planted lines are assembled from pieces so that this file itself
        // holds none of the phrases it looks for.
        let planted = [
            "/// measured in the " + "seventeenth" + " session on the H200",
            "// the " + "12th" + " session's figures",
            "see " + "session" + " 14 for the numbers",
            "# " + "Issue" + " #" + "11's test folder",
            "decoded as in (" + "issue" + " 4)",
            "fixed by #" + "14, see there",
            "the " + "issue" + "'s command end to end",
            "device " + "call" + " 3 measured it",
            "(" + "calls" + " 1–4)",
            "a " + "device" + " call there",
            "on the " + "le" + "nt" + " H200 host",
            "a " + "borrowed" + " machine's driver",
            "the 52 numbered " + "work" + " periods",
            "(" + "BENCHMARKS" + ".md §7)",
            "as " + "this" + " brief says",
            "`--save \"\"` " + "used" + " to fill the current directory",
            "which are not media and " + "used to" + " be reported as ERRORs",
            "it " + "used" + " to allocate the whole GiB",
        ]
        for line in planted {
            XCTAssertNotNil(matcher.firstMatch(in: line), "not caught: \(line)")
        }
        let clean = [
            "the first frames do not wait for the device",
            "a decode session per file; the session's threads",
            "HandoverSession: the opening session hands over to the GPU",
            "stroke: \"#888888\", color:#444, -read_intervals %+#1",
            "silent, excellent, relentless",
            "one call to vkQueueSubmit a batch",
            "#if os(Linux)",
            "the pool used to hold the frames is made once",
            "a buffer is used to stage each upload",
        ]
        for line in clean {
            XCTAssertNil(matcher.firstMatch(in: line), "caught, but speaks of the product: \(line)")
        }
    }

    func testNoTrackedTextFileSpeaksOfTheWork() throws {
        let matcher = try WordingMatcher(Self.phrases)
        let listing = try runExternal(["git", "-C", Repo.root.path, "ls-files", "-z"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let paths = listing.stdout.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertGreaterThan(paths.count, 100, "git ls-files listed too few files to be the repository")
        var found: [String] = []
        for path in paths where !Self.excluded.contains(where: { fnmatch($0, path, 0) == 0 }) {
            guard let data = FileManager.default.contents(atPath: Repo.root.appendingPathComponent(path).path),
                !data.contains(0), let text = String(data: data, encoding: .utf8)
            else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if let match = matcher.firstMatch(in: String(line)) {
                    found.append("\(path):\(number + 1): \(match.speaks) (\"\(match.text)\")")
                }
            }
        }
        XCTAssertTrue(
            found.isEmpty, "tracked files speak of the work, not the product:\n" + found.joined(separator: "\n"))
    }
}

/// The phrase list compiled once.
struct WordingMatcher {
    private let expressions: [(NSRegularExpression, String)]

    init(_ phrases: [(pattern: String, speaks: String)]) throws {
        expressions = try phrases.map {
            (try NSRegularExpression(pattern: $0.pattern, options: [.caseInsensitive]), $0.speaks)
        }
    }

    func firstMatch(in line: String) -> (text: String, speaks: String)? {
        let range = NSRange(line.startIndex..., in: line)
        for (expression, speaks) in expressions {
            if let match = expression.firstMatch(in: line, range: range), let found = Range(match.range, in: line) {
                return (String(line[found]), speaks)
            }
        }
        return nil
    }
}
