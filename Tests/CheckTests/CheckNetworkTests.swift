import Foundation
import XCTest

@testable import TestSupport

/// `check` against servers that misbehave (Fixtures/tools/flaky_http_server.py):
/// `--timeout` bounds a URL's whole time — a server that never answers, one
/// that sends a byte a second, a body falsely labelled gzip — and the verdict
/// names what the server did not do; redirect loops are named; a password in
/// a URL reaches no report, golden file or line on stderr; `--resume` keeps
/// the validators of the replies whose bodies were checked.
final class CheckNetworkTests: XCTestCase {
    private func served() throws -> (FlakyHTTPServer, URL) {
        let root = try makeTemporaryDirectory(self)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: root.appendingPathComponent("hq.mov").path)
        return (try FlakyHTTPServer(root: root), root)
    }

    /// One URL checked with `--timeout 2`: its report entry and the process's wall time.
    private func checkTimed(_ url: String) throws -> (file: [String: Any], seconds: Double, stderr: String) {
        let started = Date()
        let result = try runTool(["check", url, "--decoder", "cpu", "--timeout", "2", "--report", "-"], timeout: 120)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 11, result.stderr)
        return (try XCTUnwrap(try CheckFixtures.files(result.stdout).first), seconds, result.stderr)
    }

    func testSilentAndSlowServersEndWithinTheTimeoutNamingTheCause() throws {
        let (server, _) = try served()
        let cases = [
            ("silent", "the server sent no reply header in 2"),
            ("trickle", "the server sent no reply header in 2"),
            ("slowbody", "the server sent data too slowly"),
            ("gzip", "does not decompress as its Content-Encoding says"),
        ]
        for (kind, words) in cases {
            let (file, seconds, stderr) = try checkTimed(server.base + "/\(kind)/hq.mov")
            XCTAssertEqual(file["status"] as? String, "error", "\(kind): \(file)")
            let reason = file["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains(words), "\(kind): \(reason)")
            // The whole process, start and report included: the timeout and a second.
            XCTAssertLessThanOrEqual(seconds, 3, "\(kind): \(reason); \(stderr)")
        }
    }

    func testRedirectLoopsAreNamed() throws {
        let (server, _) = try served()
        let started = Date()
        let result = try runTool(
            [
                "check", server.base + "/loop/hq.mov", server.base + "/chain/0/hq.mov", "--decoder", "cpu",
                "--report", "-",
            ], timeout: 120)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "a loop is not tried again")
        XCTAssertEqual(result.status, 11, result.stderr)
        let files = try CheckFixtures.files(result.stdout)
        XCTAssertEqual(files.count, 2)
        let loop = files.first { ($0["key"] as? String)?.contains("/loop/") == true }?["reason"] as? String ?? ""
        XCTAssertTrue(loop.contains("redirect loop at \(server.base)/loop/hq.mov"), loop)
        XCTAssertNil(files.first?["retries"], "a redirect loop is an answer, not tried again")
        let chain = files.first { ($0["key"] as? String)?.contains("/chain/") == true }?["reason"] as? String ?? ""
        XCTAssertTrue(chain.contains("too many redirects"), chain)
        XCTAssertFalse(result.stderr.contains("Input/output error"), result.stderr)
    }

    func testPasswordsInURLsReachNoOutput() throws {
        let (server, _) = try served()
        let out = try makeTemporaryDirectory(self)
        let secret = "s3cr3t-pw"
        let authority = "http://qc:\(secret)@127.0.0.1:\(server.port)"
        let urls = ["ok", "missing", "loop"].map { authority + "/\($0)/hq.mov" }
        let report = out.appendingPathComponent("r.json")
        let junit = out.appendingPathComponent("r.xml")
        let html = out.appendingPathComponent("r.html")
        let golden = out.appendingPathComponent("r.golden")
        let result = try runTool(
            ["check"] + urls + [
                "--decoder", "cpu", "--verbose", "--report", report.path, "--junit", junit.path,
                "--html", html.path, "--write-golden", golden.path,
            ], timeout: 120)
        XCTAssertEqual(result.status, 11, result.stderr)
        let json = try String(contentsOf: report, encoding: .utf8)
        for (name, text) in [
            ("stderr", result.stderr), ("stdout", result.stdoutText), ("JSON", json),
            ("JUnit", try String(contentsOf: junit, encoding: .utf8)),
            ("HTML", try String(contentsOf: html, encoding: .utf8)),
            ("golden", try String(contentsOf: golden, encoding: .utf8)),
        ] {
            XCTAssertFalse(text.contains(secret), "\(name) holds the password: \(text.prefix(2000))")
        }
        // Named with the user and *** instead, and still checked with the credentials.
        let files = try CheckFixtures.files(Data(json.utf8))
        XCTAssertEqual(
            files.first { ($0["key"] as? String) == "http://qc:***@127.0.0.1:\(server.port)/ok/hq.mov" }?["status"]
                as? String,
            "pass", json)
        XCTAssertTrue(result.stderr.contains("qc:***@127.0.0.1"), result.stderr)
        // Other commands name the URL the same way.
        let info = try runTool(["info", authority + "/missing/hq.mov"])
        XCTAssertNotEqual(info.status, 0)
        XCTAssertFalse(info.stderr.contains(secret), info.stderr)
        XCTAssertTrue(info.stderr.contains("qc:***@"), info.stderr)
    }

    /// The object is replaced just after a HEAD would have asked for its
    /// validators: the report records those of the GET replies whose body
    /// was checked, and a resume carries the verdict while the server still
    /// serves that object.
    func testResumeRecordsTheValidatorsOfTheBodyChecked() throws {
        let (server, _) = try served()
        let out = try makeTemporaryDirectory(self)
        let url = server.base + "/replaced/hq.mov"
        let first = out.appendingPathComponent("first.json")
        let second = out.appendingPathComponent("second.json")
        let checked = try runTool(["check", url, "--decoder", "cpu", "--report", first.path], timeout: 120)
        XCTAssertEqual(checked.status, 0, checked.stderr)
        let file = try XCTUnwrap(try CheckFixtures.files(try Data(contentsOf: first)).first)
        let source = file["source"] as? [String: Any]
        XCTAssertEqual(source?["etag"] as? String, "\"new\"", "\(file)")
        XCTAssertEqual(source?["last_modified"] as? String, "Tue, 02 Jan 2024 00:00:00 GMT", "\(file)")
        XCTAssertEqual(
            (source?["length"] as? NSNumber)?.intValue,
            try FileManager.default.attributesOfItem(atPath: Repo.fixture("hq.mov"))[.size] as? Int, "\(file)")
        let resumed = try runTool(
            ["check", url, "--decoder", "cpu", "--resume", first.path, "--report", second.path], timeout: 120)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let again = try XCTUnwrap(try CheckFixtures.files(try Data(contentsOf: second)).first)
        XCTAssertEqual(again["carried"] as? Bool, true, "\(again); \(resumed.stderr)")
    }

    /// Replies whose validators disagree (the object changed while it was
    /// read): no source is recorded, and a resume checks the file again.
    func testAnObjectChangingWhileReadRecordsNoSource() throws {
        let (server, _) = try served()
        let out = try makeTemporaryDirectory(self)
        let url = server.base + "/changing/hq.mov"
        let first = out.appendingPathComponent("first.json")
        let second = out.appendingPathComponent("second.json")
        let checked = try runTool(["check", url, "--decoder", "cpu", "--report", first.path], timeout: 120)
        XCTAssertEqual(checked.status, 0, checked.stderr)
        let file = try XCTUnwrap(try CheckFixtures.files(try Data(contentsOf: first)).first)
        XCTAssertTrue(file["source"] is NSNull, "the replies disagree: \(file["source"] ?? "absent")")
        let resumed = try runTool(
            ["check", url, "--decoder", "cpu", "--resume", first.path, "--report", second.path], timeout: 120)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertNil(try XCTUnwrap(try CheckFixtures.files(try Data(contentsOf: second)).first)["carried"])
    }

    /// A resume asks a URL's server for its validators with a HEAD request:
    /// one trickling its reply a byte a second is given up after 10 s in
    /// all, and the file is checked again.
    func testAResumesHeadRequestIsBoundedInAll() throws {
        let (server, _) = try served()
        let out = try makeTemporaryDirectory(self)
        let url = server.base + "/slowhead/hq.mov"
        let first = out.appendingPathComponent("first.json")
        let second = out.appendingPathComponent("second.json")
        let checked = try runTool(["check", url, "--decoder", "cpu", "--report", first.path], timeout: 120)
        XCTAssertEqual(checked.status, 0, checked.stderr)
        let started = Date()
        let resumed = try runTool(
            ["check", url, "--decoder", "cpu", "--resume", first.path, "--report", second.path], timeout: 60)
        XCTAssertLessThan(Date().timeIntervalSince(started), 12, "the HEAD's 10 s and the check")
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertNil(try XCTUnwrap(try CheckFixtures.files(try Data(contentsOf: second)).first)["carried"])
    }

    /// A listener whose queue is full takes no more connections: a connect
    /// to it waits (its SYNs dropped) until the deadline, which names it.
    func testAConnectThatNeverCompletesIsNamed() throws {
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [
            "-c",
            """
            import socket, time
            l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(0)
            held = []
            for _ in range(4):
                c = socket.socket(); c.setblocking(False)
                try: c.connect(l.getsockname())
                except BlockingIOError: pass
                held.append(c)
            time.sleep(0.5)
            print(l.getsockname()[1], flush=True)
            time.sleep(600)
            """,
        ]
        let out = Pipe()
        listener.standardOutput = out
        try listener.run()
        defer {
            listener.terminate()
            listener.waitUntilExit()
        }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try XCTUnwrap(
            Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "the listener printed no port")
        let (file, seconds, stderr) = try checkTimed("http://127.0.0.1:\(port)/hq.mov")
        XCTAssertEqual(file["status"] as? String, "error", "\(file)")
        XCTAssertTrue(
            (file["reason"] as? String ?? "").hasPrefix("timed out after 2 s: connect timed out after 2"), "\(file)")
        XCTAssertLessThanOrEqual(seconds, 3, stderr)
    }
}
