import Foundation
import XCTest

@testable import TestSupport

/// Streams that can be opened only once (a named FIFO, a /dev/fd/N path such
/// as bash's `<(...)`): the input is opened once, sniffed, and the sniffed
/// bytes handed on with the rest, as ffmpeg's `pipe:` reads. Before, a FIFO
/// hung (the second open waited for a writer that had gone) and /dev/fd/N
/// lost its first 8 bytes. Every run here has a time limit.
final class HostilePipeTests: XCTestCase {

    /// The framemd5 lines (without the header) of a direct read of `file`.
    private func reference(_ file: String) throws -> [Substring] {
        let result = try runTool([file, "--framemd5", "-", "--quiet"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// Runs `script` in bash with `$TOOL` set, killed after `timeout` seconds.
    private func bash(_ script: String, timeout: TimeInterval = 30) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = ProcessInfo.processInfo.environment.merging(["TOOL": Repo.executable.path]) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = ToolPipeBytes()
        let errData = ToolPipeBytes()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            outData.data = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            // The whole group: bash, the tool and the writer.
            kill(-process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
            XCTFail("'\(script)' hung")
        }
        process.waitUntilExit()
        group.wait()
        return (
            process.terminationStatus, String(decoding: outData.data, as: UTF8.self),
            String(decoding: errData.data, as: UTF8.self)
        )
    }

    func testNamedFIFOIsOpenedOnce() throws {
        let dir = try makeTemporaryDirectory(self)
        let fifo = dir.appendingPathComponent("input.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for clip in ["hq.mxf", "hq.prores", "bt709.mov"] {
            // The writer blocks until the tool opens the FIFO; `timeout` ends it if the tool never does.
            let result = try bash(
                "timeout 20 cat '\(Repo.fixture(clip))' > '\(fifo)' & timeout 20 \"$TOOL\" '\(fifo)' --framemd5 - --quiet; status=$?; wait; exit $status"
            )
            XCTAssertEqual(result.status, 0, "\(clip) through a FIFO: \(result.stderr)")
            XCTAssertEqual(
                result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }, try reference(Repo.fixture(clip)),
                clip)
        }
    }

    func testDevFdPathIsRead() throws {
        for clip in ["hq.mxf", "hq.prores", "hq.mov"] {
            let result = try bash("timeout 20 \"$TOOL\" <(cat '\(Repo.fixture(clip))') --framemd5 - --quiet")
            XCTAssertEqual(result.status, 0, "\(clip) as <(cat ...): \(result.stderr)")
            XCTAssertEqual(
                result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }, try reference(Repo.fixture(clip)),
                clip)
        }
    }

    func testInfoOnAFIFO() throws {
        let dir = try makeTemporaryDirectory(self)
        let fifo = dir.appendingPathComponent("input.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let result = try bash(
            "timeout 20 cat '\(Repo.fixture("hq.mxf"))' > '\(fifo)' & timeout 20 \"$TOOL\" info '\(fifo)'; status=$?; wait; exit $status"
        )
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("container:    mxf"), result.stdout)
    }
}
