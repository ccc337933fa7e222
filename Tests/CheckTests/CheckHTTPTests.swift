import Foundation
import XCTest

@testable import TestSupport

/// `check` over http(s): the fixtures served by a real nginx give the
/// verdicts and hashes they give from disk, on both decoders; transient
/// failures are tried again and reported; 404 and 403 are errors that say so.
final class CheckHTTPTests: XCTestCase {
    func testVerdictsOverHTTPEqualVerdictsFromDisk() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let nginx = try NginxServer(root: dir, test: self)
        let out = try makeTemporaryDirectory(self)
        // Every container fixture; a raw elementary stream (sub/hq.prores) is
        // read by our own reader from a local path only, not by libavformat.
        let keys = CheckFixtures.good.map { "good/" + $0 } + CheckFixtures.bad
        let list = out.appendingPathComponent("urls.txt")
        try keys.map { nginx.base + "/" + $0 + "\n" }.joined().write(to: list, atomically: true, encoding: .utf8)
        for decoder in ["cpu", "gpu"] {
            let diskGolden = out.appendingPathComponent("disk-\(decoder).golden")
            let httpGolden = out.appendingPathComponent("http-\(decoder).golden")
            let disk = try runTool([
                "check", dir.path, "--decoder", decoder, "--report", "-", "--write-golden", diskGolden.path,
            ])
            let http = try runTool([
                "check", "--list", list.path, "--decoder", decoder, "--report", "-", "--write-golden", httpGolden.path,
            ])
            let fromDisk = try CheckFixtures.files(disk.stdout)
            let overHTTP = try CheckFixtures.files(http.stdout)
            XCTAssertEqual(overHTTP.count, keys.count, http.stderr)
            let diskStatus = Dictionary(
                uniqueKeysWithValues: fromDisk.map { ($0["key"] as! String, $0["status"] as! String) })
            for file in overHTTP {
                let key = String((file["key"] as! String).dropFirst(nginx.base.count + 1))
                XCTAssertEqual(
                    file["status"] as? String, diskStatus[key], "\(decoder): \(key) over HTTP: \(file["reason"] ?? "")")
            }
            XCTAssertEqual(http.status, disk.status, "\(decoder): the exit status")
            XCTAssertEqual(diskStatus["sub/hq.prores"], "pass")
            // The golden lines, the URL's key written as the disk's.
            let diskLines = Set(
                try String(contentsOf: diskGolden, encoding: .utf8).split(separator: "\n").dropFirst()
                    .filter { !$0.hasSuffix(" sub/hq.prores") })
            let httpLines = Set(
                try String(contentsOf: httpGolden, encoding: .utf8)
                    .replacingOccurrences(of: nginx.base + "/", with: "").split(separator: "\n").dropFirst())
            XCTAssertEqual(httpLines, diskLines, "\(decoder): frame hashes over HTTP")
            XCTAssertGreaterThan(diskLines.count, 10)
        }
        // The files were read with range requests, answered in part.
        let ranged = nginx.requests.filter { $0.hasPrefix("206 bytes=") }
        XCTAssertFalse(ranged.isEmpty, "no range request was answered with 206: \(nginx.requests.prefix(5))")
    }

    func testTransientFailuresAreRetriedAndReported() throws {
        let root = try makeTemporaryDirectory(self)
        for name in ["hq.mov", "4444.mov"] {
            try FileManager.default.copyItem(atPath: Repo.fixture(name), toPath: root.appendingPathComponent(name).path)
        }
        for decoder in ["cpu", "gpu"] {
            let server = try FlakyHTTPServer(root: root)
            let urls = [
                "ok/hq.mov", "flaky503/hq.mov", "drop/4444.mov", "redirect/hq.mov", "missing/hq.mov",
                "forbidden/hq.mov",
            ]
            .map { server.base + "/" + $0 }
            let result = try runTool(["check"] + urls + ["--decoder", decoder, "--report", "-"])
            XCTAssertEqual(result.status, 11, result.stderr)
            let files = Dictionary(
                uniqueKeysWithValues: try CheckFixtures.files(result.stdout).map {
                    (String(($0["key"] as! String).dropFirst(server.base.count + 1)), $0)
                })
            for name in ["ok/hq.mov", "flaky503/hq.mov", "drop/4444.mov", "redirect/hq.mov"] {
                XCTAssertEqual(files[name]?["status"] as? String, "pass", "\(decoder): \(name): \(result.stderr)")
            }
            let retries = files["flaky503/hq.mov"]?["retries"] as? [String] ?? []
            XCTAssertEqual(retries.count, 2, "\(decoder): two 503s, two tries again: \(retries)")
            XCTAssertTrue(retries.allSatisfy { $0.contains("5XX") }, "\(retries)")
            XCTAssertTrue(
                result.stderr.contains("PASS \(server.base)/flaky503/hq.mov (opened after 2 failed tries)"),
                result.stderr)
            XCTAssertNil(files["ok/hq.mov"]?["retries"], "a file opened at once has no retries")
            XCTAssertEqual(files["missing/hq.mov"]?["status"] as? String, "error")
            XCTAssertTrue(
                (files["missing/hq.mov"]?["reason"] as? String ?? "").contains("404"),
                "\(files["missing/hq.mov"] ?? [:])")
            XCTAssertEqual(files["forbidden/hq.mov"]?["status"] as? String, "error")
            XCTAssertTrue(
                (files["forbidden/hq.mov"]?["reason"] as? String ?? "").contains("403"),
                "\(files["forbidden/hq.mov"] ?? [:])")
            XCTAssertNil(files["missing/hq.mov"]?["retries"], "a 404 is an answer, not tried again")
        }
    }

    /// A server that never recovers: the file is tried a bounded number of
    /// times, each try is reported, and it ends an ERROR naming the status
    /// within the waits' sum, on both decoders.
    func testRetriesStopAndTheFileIsAnError() throws {
        let root = try makeTemporaryDirectory(self)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: root.appendingPathComponent("hq.mov").path)
        for decoder in ["cpu", "gpu"] {
            let server = try FlakyHTTPServer(root: root)
            let started = Date()
            let result = try runTool(
                ["check", server.base + "/down/hq.mov", "--decoder", decoder, "--report", "-"], timeout: 60)
            XCTAssertLessThan(Date().timeIntervalSince(started), 20, "\(decoder): the tries are bounded")
            XCTAssertEqual(result.status, 11, result.stderr)
            let file = try XCTUnwrap(try CheckFixtures.files(result.stdout).first)
            XCTAssertEqual(file["status"] as? String, "error")
            XCTAssertTrue((file["reason"] as? String ?? "").contains("5XX"), "FFmpeg's words for a 503: \(file)")
            let retries = file["retries"] as? [String] ?? []
            XCTAssertEqual(retries.count, 3, "\(decoder): 4 tries, 3 of them followed by another: \(retries)")
            let count = try runExternal([
                "python3", "-c",
                "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                server.base + "/count/down/hq.mov",
            ])
            XCTAssertEqual(count.text, "4\n", "\(decoder): the server saw every try and no more")
        }
    }
}
