import Foundation
import XCTest

@testable import TestSupport

/// Outputs that fail while the GPU path runs (`--decoder gpu`, with and
/// without `--vulkan`): a full disk (a 64 KiB tmpfs, mounted when the tests
/// run as root) and a reader that closes the pipe early (`| head -c 1000`).
/// Each ends with exit 6 and one line naming the output, leaves nothing
/// partial (no file, no `--save` directory, no staging), and never crashes.
final class GPUOutputFailureTests: XCTestCase {
    /// hq.prores 200 times over (1000 frames): more than the disk or the
    /// pipe takes, whatever the output.
    private func longInput() throws -> URL {
        let dir = try makeTemporaryDirectory(self)
        let long = dir.appendingPathComponent("long.prores")
        let once = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        try Data((0..<200).flatMap { _ in once }).write(to: long)
        return long
    }

    /// A 64 KiB tmpfs at a fresh directory, unmounted when the test ends;
    /// skipped (with the reason) where the tests cannot mount one.
    private func tinyDisk() throws -> URL {
        let mountPoint = try makeTemporaryDirectory(self).appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard getuid() == 0 else {
            throw XCTSkip("full-disk cases need root to mount a tmpfs (running as uid \(getuid()))")
        }
        let mount = try Self.status("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint.path])
        guard mount == 0 else { throw XCTSkip("cannot mount a tmpfs here (mount exited \(mount)): no CAP_SYS_ADMIN?") }
        addTeardownBlock { _ = try? Self.status("/bin/umount", [mountPoint.path]) }
        return mountPoint
    }

    func testFullDiskEndsGPURunsWithExit6AndNothingLeft() throws {
        let long = try longInput()
        let disk = try tinyDisk()
        let cases: [(String, [String], String)] = [
            ("-o", ["-o", "DISK/out.raw"], "out.raw"),
            ("--vulkan -o", ["--vulkan", "-o", "DISK/out.raw"], "out.raw"),
            ("--vulkan --save", ["--vulkan", "--save", "DISK/frames"], "frames"),
            ("--save", ["--save", "DISK/frames", "--save-format", "png"], "frames"),
            ("--vulkan --framemd5", ["--vulkan", "--framemd5", "DISK/f.md5"], "f.md5"),
            ("--framehash", ["--framehash", "DISK/f.b3"], "f.b3"),
        ]
        for (name, arguments, output) in cases {
            // All but one page taken, so that even a checksum file runs out.
            let filler = disk.appendingPathComponent("filler")
            try Data(count: 60 << 10).write(to: filler)
            defer { try? FileManager.default.removeItem(at: filler) }
            let result = try runTool(
                [long.path, "--decoder", "gpu", "--quiet"]
                    + arguments.map { $0.replacingOccurrences(of: "DISK", with: disk.path) }, timeout: 180)
            Hostile.assertExit(result, 6, name)
            XCTAssertEqual(Hostile.errorLines(result).count, 1, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("No space left on device"), "\(name): \(result.stderr)")
            // The error names the file as the user asked for it, not the hidden staging directory.
            XCTAssertTrue(result.stderr.contains("'\(disk.path)/\(output)"), "\(name): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains(".prores-decode-save"), "\(name): \(result.stderr)")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: disk.path), ["filler"],
                "\(name): \(output) or a temporary was left on the full disk")
        }
    }

    func testClosedPipeEndsGPURunsWithExit6() throws {
        let long = try longInput()
        let dir = try makeTemporaryDirectory(self)
        let cases: [(String, [String])] = [
            ("-o -", ["-o", "-"]),
            ("--vulkan -o -", ["--vulkan", "-o", "-"]),
            ("--framemd5 -", ["--framemd5", "-"]),
            ("--vulkan --framemd5 -", ["--vulkan", "--framemd5", "-"]),
            (
                "--framehash - with --save",
                ["--framehash", "-", "--vulkan", "--save", dir.appendingPathComponent("frames").path]
            ),
        ]
        for (name, arguments) in cases {
            let script = "\"$0\" \"$@\" | head -c 1000 >/dev/null; exit ${PIPESTATUS[0]}"
            let result = try Self.shell(
                script, [Repo.executable.path, long.path, "--decoder", "gpu", "--quiet"] + arguments)
            XCTAssertEqual(result.status, 6, "\(name): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("cannot write 'stdout': the reader closed the pipe"), "\(name): \(result.stderr)"
            )
            XCTAssertFalse(
                result.stderr.contains("Fatal error") || result.stderr.contains("Attempted to read"),
                "\(name): \(result.stderr)")
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: dir.appendingPathComponent("frames").path),
                "\(name): the frames of a failed --save were left")
        }
    }

    /// The exit status of `path arguments` (its output discarded).
    private static func status(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs bash `script` with `arguments` as $0 $1 ...; its status and stderr.
    private static func shell(_ script: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script] + arguments
        let err = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
