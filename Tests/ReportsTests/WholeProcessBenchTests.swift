import Foundation
import XCTest

@testable import TestSupport

/// `bench --whole-process`: decode command lines timed as whole processes in
/// interleaved rounds. Timings vary; the tests hold the report's structure
/// and its arithmetic (the summary and the ratio follow from the rounds it
/// reports), not any duration.
final class WholeProcessBenchTests: XCTestCase {
    private let decode = [Repo.fixture("hq.mov"), "--decoder", "cpu", "--frames", "2", "--quiet"]

    private var compareLine: String { ([Repo.executable.path] + decode).joined(separator: " ") }

    private func json(_ result: ToolResult) throws -> [String: Any] {
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.stdoutText)
    }

    /// The median written out by hand: the middle value, or the mean of the middle two.
    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    func testTwoCommandsInRoundsWithSummariesAndTheRatioOfTheirMedians() throws {
        let report = try json(
            runTool(
                ["bench", "--whole-process", "--rounds", "3", "--json", "--compare", compareLine, "--"] + decode,
                timeout: 120))
        XCTAssertEqual(report["rounds"] as? Int, 3)
        let commands = try XCTUnwrap(report["commands"] as? [[String: Any]])
        XCTAssertEqual(commands.map { $0["label"] as? String }, ["A", "B"])
        // A is this executable with the operands after --; B is --compare's words.
        let a = try XCTUnwrap(commands[0]["argv"] as? [String])
        XCTAssertEqual(
            URL(fileURLWithPath: a[0]).resolvingSymlinksInPath().path, Repo.executable.resolvingSymlinksInPath().path)
        XCTAssertEqual(Array(a.dropFirst()), decode)
        XCTAssertEqual(commands[1]["argv"] as? [String], [Repo.executable.path] + decode)
        var medians: [Double] = []
        for command in commands {
            let seconds = try XCTUnwrap(command["seconds"] as? [Double])
            XCTAssertEqual(seconds.count, 3, "one time per round")
            XCTAssertTrue(seconds.allSatisfy { $0 > 0 && $0 < 60 }, "\(seconds)")
            let reported = try XCTUnwrap(command["median"] as? Double)
            XCTAssertEqual(reported, median(seconds), accuracy: 2e-6)
            XCTAssertEqual(try XCTUnwrap(command["min"] as? Double), seconds.min()!, accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(command["max"] as? Double), seconds.max()!, accuracy: 1e-9)
            medians.append(reported)
        }
        let ratio = try XCTUnwrap(report["ratio"] as? Double)
        XCTAssertEqual(ratio, medians[1] / medians[0], accuracy: 1e-3 * ratio)
    }

    func testTextReportHasEveryRoundAndAnEvenCountsMedian() throws {
        let result = try runTool(
            ["bench", "--whole-process", "--rounds", "2", "--compare", compareLine, "--"] + decode, timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("round ") }.count, 2, result.stdoutText)
        // Each round line: "round N:  A x.xxx s  B y.yyy s"; the summary's median of two is their mean.
        func times(_ label: String) -> [Double] {
            lines.filter { $0.hasPrefix("round ") }.compactMap { line in
                let words = line.split(separator: " ")
                return words.firstIndex(of: Substring(label)).flatMap { Double(words[$0 + 1]) }
            }
        }
        for label in ["A", "B"] {
            let summary = try XCTUnwrap(lines.first { $0.hasPrefix("\(label): min ") }, result.stdoutText)
            let words = summary.split(separator: " ")
            let reported = try XCTUnwrap(words.firstIndex(of: "median").flatMap { Double(words[$0 + 1]) })
            XCTAssertEqual(reported, median(times(label)), accuracy: 0.0011, summary)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("ratio B/A of the medians: ") }, result.stdoutText)
    }

    func testOneCommandAloneHasNoRatioAndAPageWhenAsked() throws {
        let directory = try makeTemporaryDirectory(self)
        let page = directory.appendingPathComponent("bench.html").path
        let report = try json(
            runTool(
                ["bench", "--whole-process", "--rounds", "1", "--json", "--html", page, "--"] + decode,
                timeout: 120))
        XCTAssertEqual((report["commands"] as? [Any])?.count, 1)
        XCTAssertTrue(report["ratio"] is NSNull, "\(report)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        XCTAssertEqual(html.components(separatedBy: "<td class=\"num\">1</td>").count - 1, 1, "one round row")
    }

    func testAFailingCommandEndsTheBenchNamingItsCommand() throws {
        let failing = try runTool(
            ["bench", "--whole-process", "--rounds", "2", "--compare", "false", "--"] + decode, timeout: 120)
        XCTAssertEqual(failing.status, 7)
        assertSingleError(failing, mentions: ["'false'", "exited 1", "warm-up"], "--compare false")

        let missing = try runTool(["bench", "--whole-process", "--", "/no/such/clip.mov"], timeout: 60)
        XCTAssertEqual(missing.status, 7)
        assertSingleError(missing, mentions: ["/no/such/clip.mov", "exited 3"], "a decode that cannot read its input")

        let absent = try runTool(
            ["bench", "--whole-process", "--compare", "/no/such/program", "--"] + decode, timeout: 60)
        XCTAssertEqual(absent.status, 7)
        assertSingleError(absent, mentions: ["cannot run '/no/such/program'"], "a program that does not exist")
    }

    /// With --phases each round's rows (the time before main, the decode's
    /// own phases, the time after its report) add up to the round's wall time.
    func testPhasesAddUpToEachRound() throws {
        let gpu = [Repo.fixture("hq.mov"), "--decoder", "gpu", "--frames", "1", "--quiet"]
        let report = try json(
            runTool(["bench", "--whole-process", "--phases", "--rounds", "2", "--json", "--"] + gpu, timeout: 120))
        let command = try XCTUnwrap((report["commands"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            command["argv"] as? [String], [Repo.executable.path] + gpu,
            "the report's path is bench's, not the command's")
        let seconds = try XCTUnwrap(command["seconds"] as? [Double])
        let rounds = try XCTUnwrap(command["phases_ms"] as? [[String: Double]])
        XCTAssertEqual(rounds.count, seconds.count)
        for (round, rows) in rounds.enumerated() {
            for name in ["before_main", "vulkan_instance", "first_decode", "teardown", "unattributed", "after_report"] {
                XCTAssertNotNil(rows[name], "\(name) in \(rows)")
            }
            XCTAssertTrue(rows.values.allSatisfy { $0 >= 0 }, "\(rows)")
            // Rows rounded to a microsecond, seconds to one.
            XCTAssertEqual(
                rows.values.reduce(0, +), seconds[round] * 1000, accuracy: 0.0005 * Double(rows.count) + 0.001,
                "round \(round + 1)")
        }
        let text = try runTool(["bench", "--whole-process", "--phases", "--rounds", "1", "--"] + gpu, timeout: 120)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdoutText.contains("A's phases, median ms of 1 round ("), text.stdoutText)
        XCTAssertTrue(text.stdoutText.contains("  whole process"), text.stdoutText)
    }

    func testOptionsThatDoNotBelongAreRefused() throws {
        let cases: [([String], String)] = [
            (["bench", "--rounds", "2", "clip.mov"], "--rounds needs --whole-process"),
            (["bench", "--compare", "ffmpeg", "clip.mov"], "--compare needs --whole-process"),
            (
                ["bench", "--whole-process", "--decoders", "gpu", "--", "clip.mov"],
                "--decoders is for the in-memory bench"
            ),
            (["bench", "--whole-process", "--compare", "ffmpeg 'unclosed", "--", "clip.mov"], "invalid value"),
            (["bench", "--whole-process", "--rounds", "0", "--", "clip.mov"], "--rounds"),
            (["bench", "--whole-process"], "needs a decode command line"),
            (["bench", "--phases", "clip.mov"], "--phases needs --whole-process"),
        ]
        for (arguments, words) in cases {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            assertSingleError(result, mentions: [words], "\(arguments)")
        }
    }
}
