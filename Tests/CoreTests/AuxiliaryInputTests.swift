import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCheck
@testable import ProResCore
@testable import ProResPipeline
@testable import TestSupport

/// Golden files, LUTs and timing logs read through one bounded reader
/// (docs/inputs.md): a directory, device or socket is refused by type, an
/// endless or binary stream at its first line, a file past the size bound
/// before it is read; one error line, exit 3 (12 for a LUT), nothing written.
final class AuxiliaryInputTests: XCTestCase {

    func testAGoldenFileThatIsADirectoryIsRefused() throws {
        let dir = try makeTemporaryDirectory(self)
        let byName = try runTool(["check", Repo.fixture("hq.mov"), "--golden", dir.path], timeout: 30)
        Hostile.assertExit(byName, 3, "--golden DIR")
        assertSingleError(byName, mentions: [dir.lastPathComponent, "golden file", "is a directory"], "--golden DIR")

        let onStdin = try runTool(["check", Repo.fixture("hq.mov"), "--golden", "-"], stdinPath: dir.path, timeout: 30)
        Hostile.assertExit(onStdin, 3, "--golden - < DIR")
        assertSingleError(onStdin, mentions: ["stdin", "golden file", "is a directory"], "--golden - < DIR")
    }

    func testEndlessDevicesAsGoldenFilesAreRefusedAtOnce() throws {
        for device in ["/dev/zero", "/dev/urandom"] {
            let result = try runTool(["check", Repo.fixture("hq.mov"), "--golden", device], timeout: 10)
            Hostile.assertExit(result, 3, "--golden \(device)")
            assertSingleError(result, mentions: [device, "is a device"], "--golden \(device)")
        }
    }

    /// Zeros and random bytes on stdin: refused at line 1. (From a file: a
    /// pipe closed early would stop this test process with SIGPIPE; the
    /// endless pipe is `testAnEndlessPipeIsRefusedAtItsFirstLine`.)
    func testBinaryOnStdinIsRefusedAtTheFirstLine() throws {
        let dir = try makeTemporaryDirectory(self)
        var random = SystemRandomNumberGenerator()
        let noise = Data((0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        for (what, bytes) in [("zeros", Data(count: 4 << 20)), ("random bytes", noise)] {
            let file = dir.appendingPathComponent(what)
            try bytes.write(to: file)
            let result = try runTool(
                ["check", Repo.fixture("hq.mov"), "--golden", "-"], stdinPath: file.path, timeout: 30)
            Hostile.assertExit(result, 3, "--golden - < \(what)")
            assertSingleError(result, mentions: ["stdin", "golden file", "line 1"], "--golden - < \(what)")
        }
    }

    func testATimingLogThatIsADirectoryLeavesNothing() throws {
        let dir = try makeTemporaryDirectory(self)
        let logs = dir.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: false)
        for (arguments, stdinPath) in [
            (["plot", "-", "-o", "out.svg"], logs.path), (["plot", "logs", "-o", "out.svg"], nil),
        ] {
            let result = try runTool(arguments, stdinPath: stdinPath, in: dir, timeout: 30)
            Hostile.assertExit(result, 3, "\(arguments)")
            assertSingleError(result, mentions: ["is a directory"], "\(arguments)")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: dir.path), ["logs"],
                "\(arguments) left a file behind")
        }
    }

    /// A named pipe fed forever: the reader stops at the first line that
    /// cannot be a golden line (its memory is one line, not the stream).
    func testAnEndlessPipeIsRefusedAtItsFirstLine() throws {
        let dir = try makeTemporaryDirectory(self)
        let fifo = dir.appendingPathComponent("golden.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "exec cat /dev/zero > \"$0\"", fifo]
        try writer.run()
        defer {
            if writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
            writer.waitUntilExit()
        }
        XCTAssertThrowsError(try GoldenFile.input.read(fifo)) { error in
            XCTAssertEqual((error as? AuxiliaryInput.Refusal)?.line, 1, "\(error)")
        }
    }

    func testLineAndSizeBounds() throws {
        let dir = try makeTemporaryDirectory(self)
        let long = dir.appendingPathComponent("long.golden")
        try Data(("0 " + String(repeating: "a", count: 64) + " " + String(repeating: "x", count: 70_000) + "\n").utf8)
            .write(to: long)
        XCTAssertThrowsError(try GoldenFile.input.read(long.path)) { error in
            XCTAssertEqual((error as? AuxiliaryInput.Refusal)?.line, 1)
            XCTAssertTrue("\(error)".contains("longer than 65536 bytes"), "\(error)")
        }
        // A sparse file one byte past the bound: refused by its size, before a byte is read.
        let huge = dir.appendingPathComponent("huge.jsonl")
        XCTAssertTrue(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(TimingLog.input.maximumBytes + 1))
        try handle.close()
        XCTAssertThrowsError(try TimingLog.input.read(huge.path)) { error in
            XCTAssertNil((error as? AuxiliaryInput.Refusal)?.line)
            XCTAssertTrue("\(error)".contains("more than a --timing log may hold"), "\(error)")
        }
        // The second line is the first that cannot be a golden line.
        let mixed = dir.appendingPathComponent("mixed.golden")
        try Data("# header\nnot a golden line\n".utf8).write(to: mixed)
        XCTAssertThrowsError(try GoldenFile.input.read(mixed.path)) { error in
            XCTAssertEqual((error as? AuxiliaryInput.Refusal)?.line, 2)
        }
    }

    /// What a golden file, a LUT and a log look like still passes the reader.
    func testEveryKindReadsItsOwnFiles() throws {
        let dir = try makeTemporaryDirectory(self)
        let golden = dir.appendingPathComponent("g.txt")
        try Data("# prores-decode check golden v2\n0 \(String(repeating: "0f", count: 32)) clip with spaces.mov\n".utf8)
            .write(to: golden)
        XCTAssertEqual(try GoldenFile.input.read(golden.path).count, try Data(contentsOf: golden).count)
        let cube = dir.appendingPathComponent("l.cube")
        try Data("\u{FEFF}TITLE \"t\"\r\nLUT_3D_SIZE 2\r\n# c\r\n0 0 0\r\n-1e-3 .5 1\r\n".utf8).write(to: cube)
        XCTAssertNoThrow(try CubeLUTFile.read(cube.path))
        let log = dir.appendingPathComponent("t.jsonl")
        try Data("{\"frame\":0,\"status\":\"ok\"}\n  \n".utf8).write(to: log)
        XCTAssertNoThrow(try TimingLog.input.read(log.path))
    }
}
