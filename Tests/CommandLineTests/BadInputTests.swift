import Foundation
import XCTest

@testable import TestSupport

/// The bad-input corpus (Fixtures/bad/, see Fixtures/README.md) and other
/// hostile situations, run through the `prores-decode` executable. Every case
/// checks the exit code, a single clear `prores-decode: error:` line, that the
/// process exited normally (no signal, no crash) within its time limit, and
/// that an aborted run leaves neither output nor temporary file behind.
final class BadInputTests: XCTestCase {

    /// yuv422p10le at 192x112: Y 192*112*2 + Cb, Cr 96*112*2 each.
    static let nativeFrameSize = 192 * 112 * 2 + 2 * (96 * 112 * 2)  // 86016

    // MARK: - Abort cases: nothing may be left behind

    func testMissingFile() throws {
        let dir = try makeTemporaryDirectory(self)
        let missing = dir.appendingPathComponent("no-such-clip.mov").path
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort([missing], outputDirectory: outDir, status: 3, mentions: ["no such file", "no-such-clip.mov"])
    }

    func testDirectoryAsInput() throws {
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort(
            [Repo.fixtures.appendingPathComponent("bad").path], outputDirectory: outDir, status: 3,
            mentions: ["is a directory"])
    }

    func testEmptyFile() throws {
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort(
            [Repo.fixture("bad/empty.mov")], outputDirectory: outDir, status: 3, mentions: ["empty", "empty.mov"])
    }

    func testRandomBytes() throws {
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort(
            [Repo.fixture("bad/random.bin")], outputDirectory: outDir, status: 3,
            mentions: ["not a recognised media file", "random.bin"])
    }

    func testTextFile() throws {
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort(
            [Repo.fixture("bad/text.mov")], outputDirectory: outDir, status: 3,
            mentions: ["not a recognised media file", "text.mov"])
    }

    func testTruncatedMoovAtEnd() throws {
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort(
            [Repo.fixture("bad/truncated.mov")], outputDirectory: outDir, status: 3,
            mentions: ["truncated recording (no movie index)", "truncated.mov"])
    }

    func testH264IsNotProRes() throws {
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort(
            [Repo.fixture("bad/h264.mp4")], outputDirectory: outDir, status: 4, mentions: ["not ProRes", "h264"])
    }

    func testInfoOnBadInputs() throws {
        for (file, status, mention) in [
            ("bad/empty.mov", Int32(3), "empty"), ("bad/random.bin", 3, "not a recognised media file"),
            ("bad/truncated.mov", 3, "truncated recording (no movie index)"), ("bad/h264.mp4", 4, "not ProRes"),
        ] {
            let result = try runTool(["info", Repo.fixture(file)], timeout: 30)
            assertCleanExit(result, status: status, "info \(file)")
            assertSingleError(result, mentions: [mention], "info \(file)")
            XCTAssertTrue(
                result.stdout.isEmpty, "info \(file): stdout must be empty on error, got \(result.stdoutText)")
        }
    }

    // MARK: - Damaged cases: the complete output is kept, exit 5

    func testCorruptSliceKeepsAllFrames() throws {
        // The README's claim: corrupt-slice.mov is hq.mov with bytes changed
        // only inside frame 2's packet, the frame header untouched.
        let clean = try fixtureBytes("hq.mov")
        let damaged = try fixtureBytes("bad/corrupt-slice.mov")
        XCTAssertEqual(
            clean.count, damaged.count, "corrupt-slice.mov should be hq.mov with bytes overwritten, same size")
        let packets = try elementaryPackets()
        let frame2 = try XCTUnwrap(clean.range(of: packets[2]), "frame 2's packet not found in hq.mov")
        let differing = zip(clean.indices, zip(clean, damaged)).filter { $0.1.0 != $0.1.1 }.map { $0.0 }
        XCTAssertFalse(differing.isEmpty, "corrupt-slice.mov is identical to hq.mov")
        let headerSize = Int(packets[2][8]) << 8 | Int(packets[2][9])
        XCTAssertTrue(
            differing.allSatisfy { frame2.contains($0) && $0 >= frame2.lowerBound + 8 + headerSize },
            "corrupt-slice.mov differs from hq.mov outside frame 2's slice data (bytes \(differing.first ?? -1)...\(differing.last ?? -1), frame 2 at \(frame2))"
        )

        let dir = try makeTemporaryDirectory(self)
        let raw = dir.appendingPathComponent("out.raw")
        let md5 = dir.appendingPathComponent("out.md5")
        let result = try runTool(
            [Repo.fixture("bad/corrupt-slice.mov"), "-o", raw.path, "--framemd5", md5.path, "--format", "native"],
            timeout: 30)
        assertCleanExit(result, status: 5, "corrupt-slice.mov")
        XCTAssertEqual(try entries(dir), ["out.md5", "out.raw"], "a damaged run keeps its outputs and no temporaries")
        let reference = try ffmpegFrameMD5s("hq.mov")
        let frames = CLITestMD5.frameHexes(try Data(contentsOf: raw), frameSize: Self.nativeFrameSize)
        XCTAssertEqual(
            frames.count, 5, "all 5 frames should be written (frame 2 concealed), got \(frames.count) frame(s)")
        if frames.count == 5 {
            for index in [0, 1, 3, 4] {
                XCTAssertEqual(
                    frames[index], reference[index], "corrupt-slice frame \(index) is undamaged and must equal hq.mov's"
                )
            }
            XCTAssertNotEqual(frames[2], reference[2], "frame 2 was damaged: it cannot match the clean hq.mov frame")
        }
        XCTAssertEqual(md5Column(try String(contentsOf: md5, encoding: .utf8)), frames, "--framemd5 and -o disagree")

        let reports = result.stderr.split(separator: "\n").filter {
            $0.hasPrefix("prores-decode: error:") || $0.hasPrefix("prores-decode: warning:")
        }
        XCTAssertEqual(reports.count, 1, "expected one report, for frame 2, got:\n\(result.stderr)")
        XCTAssertTrue(
            reports.first.map { $0.contains("frame 2") && $0.contains("damaged") } ?? false,
            "stderr should report frame 2 as damaged:\n\(result.stderr)")
    }

    func testBadHeaderDropsOneFrame() throws {
        // The README's claim: frame 1's 'icpf' overwritten by 'BAD!', nothing else.
        let clean = try fixtureBytes("hq.mov")
        let damaged = try fixtureBytes("bad/bad-header.mov")
        XCTAssertEqual(clean.count, damaged.count)
        let packets = try elementaryPackets()
        let frame1 = try XCTUnwrap(clean.range(of: packets[1]), "frame 1's packet not found in hq.mov")
        let differing = zip(clean.indices, zip(clean, damaged)).filter { $0.1.0 != $0.1.1 }.map { $0.0 }
        XCTAssertTrue(
            differing.allSatisfy { (frame1.lowerBound + 4..<frame1.lowerBound + 8).contains($0) } && !differing.isEmpty,
            "bad-header.mov should differ from hq.mov only in frame 1's 'icpf' tag")
        XCTAssertEqual(damaged[(frame1.lowerBound + 4)..<(frame1.lowerBound + 8)], Data("BAD!".utf8))

        let dir = try makeTemporaryDirectory(self)
        let raw = dir.appendingPathComponent("out.raw")
        let md5 = dir.appendingPathComponent("out.md5")
        let result = try runTool(
            [Repo.fixture("bad/bad-header.mov"), "-o", raw.path, "--framemd5", md5.path, "--format", "native"],
            timeout: 30)
        assertCleanExit(result, status: 5, "bad-header.mov")
        XCTAssertEqual(try entries(dir), ["out.md5", "out.raw"], "a damaged run keeps its outputs and no temporaries")
        let reference = try ffmpegFrameMD5s("hq.mov")
        let frames = CLITestMD5.frameHexes(try Data(contentsOf: raw), frameSize: Self.nativeFrameSize)
        XCTAssertEqual(
            frames, [0, 2, 3, 4].map { reference[$0] },
            "the 4 decodable frames must be written bit-exact, frame 1 left out")
        let md5Text = try String(contentsOf: md5, encoding: .utf8)
        let indices = md5Text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: ",")[2].trimmingCharacters(in: .whitespaces)
        }
        XCTAssertEqual(
            indices, ["0", "2", "3", "4"],
            "--framemd5's pts (frame numbers at 1/fps) should list the frames actually written:\n\(md5Text)")

        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error:") }
        XCTAssertEqual(errors.count, 1, "expected one error line, for frame 1:\n\(result.stderr)")
        XCTAssertTrue(
            errors.first.map { $0.contains("frame 1") && $0.contains("not decoded") } ?? false,
            "stderr should say frame 1 was not decoded:\n\(result.stderr)")
    }

    func testTruncatedFaststartKeepsFirstFrames() throws {
        // The README's claim: frames 0 and 1 are whole, frame 2 is cut.
        let truncated = try fixtureBytes("bad/truncated-faststart.mov")
        let packets = try elementaryPackets()
        XCTAssertNotNil(
            truncated.range(of: packets[0]), "frame 0's packet should be complete in truncated-faststart.mov")
        XCTAssertNotNil(
            truncated.range(of: packets[1]), "frame 1's packet should be complete in truncated-faststart.mov")
        XCTAssertNil(truncated.range(of: packets[2]), "frame 2's packet should be cut in truncated-faststart.mov")
        XCTAssertNotNil(
            truncated.range(of: packets[2].prefix(1024)), "frame 2's packet should start in truncated-faststart.mov")

        let dir = try makeTemporaryDirectory(self)
        let raw = dir.appendingPathComponent("out.raw")
        let result = try runTool(
            [Repo.fixture("bad/truncated-faststart.mov"), "-o", raw.path, "--format", "native"], timeout: 30)
        assertCleanExit(result, status: 5, "truncated-faststart.mov")
        XCTAssertEqual(try entries(dir), ["out.raw"], "a damaged run keeps its output and no temporaries")
        let reference = try ffmpegFrameMD5s("hq.mov")
        XCTAssertEqual(
            CLITestMD5.frameHexes(try Data(contentsOf: raw), frameSize: Self.nativeFrameSize), Array(reference[0...1]),
            "frames 0 and 1 must be written, bit-exact, and nothing else")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error:") }.map(
            String.init)
        XCTAssertTrue(
            errors.contains { $0.contains("frame 2") }, "stderr should name frame 2 (cut short):\n\(result.stderr)")
        XCTAssertTrue(
            errors.contains {
                $0.contains("missing")
                    && ($0.contains("3–4") || $0.contains("3-4") || ($0.contains("3") && $0.contains("4")))
            },
            "stderr should name the missing frames 3 and 4:\n\(result.stderr)")
    }

    // MARK: - Output problems

    /// A missing directory is made (OutputSafetyTests); one that cannot be
    /// made, under a plain file, is an output error that makes nothing.
    func testOutputWhoseDirectoryCannotBeMade() throws {
        let dir = try makeTemporaryDirectory(self)
        try Data("keep".utf8).write(to: dir.appendingPathComponent("plain"))
        let out = dir.appendingPathComponent("plain/does-not-exist/out.raw").path
        let result = try runTool([Repo.fixture("hq.mov"), "-o", out], timeout: 30)
        assertCleanExit(result, status: 6, "-o under a plain file")
        assertSingleError(result, mentions: ["out.raw"], "-o under a plain file")
        XCTAssertTrue(result.stdout.isEmpty, "stdout must be empty")
        XCTAssertEqual(try entries(dir), ["plain"], "nothing may be created")
    }

    func testOutputThatNamesTheInput() throws {
        let dir = try makeTemporaryDirectory(self)
        let input = dir.appendingPathComponent("in.mov")
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: input.path)
        let original = try Data(contentsOf: input)
        let sameFile = dir.appendingPathComponent(".").appendingPathComponent("in.mov").path  // another spelling
        for arguments in [
            [input.path, "-o", input.path], [input.path, "-o", input.path, "--overwrite"],
            [input.path, "-o", sameFile, "--overwrite"], [input.path, "--framemd5", input.path, "--overwrite"],
            [input.path, "--timing", input.path, "--overwrite"],
        ] {
            let result = try runTool(arguments, timeout: 30)
            assertCleanExit(result, status: 2, "\(arguments)")
            assertSingleError(result, mentions: ["input"], "\(arguments)")
            XCTAssertEqual(try Data(contentsOf: input), original, "\(arguments) changed the input file")
            XCTAssertEqual(try entries(dir), ["in.mov"], "\(arguments) left something behind")
        }
    }

    // MARK: - Interrupt

    func testSIGINTWhileBlockedOnStdin() throws {
        try assertInterrupt { $0.interrupt() }
    }

    func testSIGTERMWhileBlockedOnStdin() throws {
        try assertInterrupt { $0.terminate() }
    }

    /// The terminal or SSH session went away: the same clean stop.
    func testSIGHUPWhileBlockedOnStdin() throws {
        try assertInterrupt { kill($0.processIdentifier, SIGHUP) }
    }

    /// SIGINT while frames are flowing (not blocked on a read): the run is
    /// cancelled cleanly, says so, exits 9 and removes its temporaries.
    func testSIGINTDuringActiveDecode() throws {
        let inputDir = try makeTemporaryDirectory(self)
        let dir = try makeTemporaryDirectory(self)
        let long = inputDir.appendingPathComponent("long.prores")
        let once = try fixtureBytes("hq.prores")
        var bytes = Data(capacity: once.count * 1000)
        for _ in 0..<1000 { bytes.append(once) }  // 5000 frames, ~60 MB
        try bytes.write(to: long)

        let process = Process()
        process.executableURL = Repo.executable
        process.arguments = [
            long.path, "-o", dir.appendingPathComponent("out.raw").path, "--framemd5",
            dir.appendingPathComponent("out.md5").path,
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errData = ToolPipeBytes()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        // Wait until the temporary outputs exist, then a little more.
        let started = Date()
        while try process.isRunning && entries(dir).isEmpty && Date().timeIntervalSince(started) < 10 { usleep(10_000) }
        usleep(200_000)
        guard process.isRunning else {
            process.waitUntilExit()
            group.wait()
            throw XCTSkip("the decode finished before it could be interrupted (status \(process.terminationStatus))")
        }
        let sent = Date()
        process.interrupt()
        while process.isRunning && Date().timeIntervalSince(sent) < 5 { usleep(10_000) }
        let stillRunning = process.isRunning
        XCTAssertFalse(stillRunning, "no exit within 5 s of SIGINT")
        if stillRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        group.wait()
        let stderr = String(decoding: errData.data, as: UTF8.self)
        XCTAssertEqual(
            process.terminationReason, .exit, "SIGINT killed the process instead of being handled; stderr:\n\(stderr)")
        XCTAssertEqual(process.terminationStatus, 9, "an interrupted run exits 9; stderr:\n\(stderr)")
        XCTAssertEqual(try entries(dir), [], "an interrupted run must leave no output or temporary file")
        XCTAssertTrue(
            stderr.split(separator: "\n").contains {
                $0.hasPrefix("prores-decode: error:") && $0.contains("interrupted")
            },
            "stderr should say the run was interrupted:\n\(stderr)")
    }

    // MARK: - Patched elementary streams

    func testAbsurdPictureSize() throws {
        let dir = try makeTemporaryDirectory(self)
        var bytes = try fixtureBytes("hq.prores")
        XCTAssertEqual(bytes[4..<8], Data("icpf".utf8), "precondition: hq.prores starts with a frame")
        XCTAssertEqual(Int(bytes[16]) << 8 | Int(bytes[17]), 192, "precondition: width at 8+8")
        XCTAssertEqual(Int(bytes[18]) << 8 | Int(bytes[19]), 112, "precondition: height at 8+10")
        bytes.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let input = dir.appendingPathComponent("huge.prores")
        try bytes.write(to: input)
        let outDir = try makeTemporaryDirectory(self)
        try assertAbort([input.path], outputDirectory: outDir, status: 4, mentions: ["size"])
        let info = try runTool(["info", input.path], timeout: 30)
        assertCleanExit(info, status: 4, "info on a 65535x65535 header")
        assertSingleError(info, mentions: ["size"], "info on a 65535x65535 header")
    }

    func testMissingICPFInFirstFrame() throws {
        let dir = try makeTemporaryDirectory(self)
        var bytes = try fixtureBytes("hq.prores")
        bytes.replaceSubrange(4..<8, with: Data("BAD!".utf8))
        let input = dir.appendingPathComponent("noicpf.prores")
        try bytes.write(to: input)
        let outDir = try makeTemporaryDirectory(self)
        let result = try runTool([input.path, "-o", outDir.appendingPathComponent("out.raw").path], timeout: 30)
        XCTAssertTrue(
            result.status == 3 || result.status == 4,
            "a first frame without 'icpf': expected exit 3 or 4, got \(result.status); stderr: \(result.stderr)")
        assertCleanExit(result, status: result.status, "noicpf.prores")
        assertSingleError(result, mentions: ["noicpf.prores"], "noicpf.prores")
        XCTAssertEqual(try entries(outDir), [], "an aborted run must leave nothing")
    }

    // MARK: - Helpers

    private func assertCleanExit(
        _ result: ToolResult, status: Int32, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertFalse(result.timedOut, "\(what): did not finish within the time limit", file: file, line: line)
        XCTAssertEqual(
            result.reason, .exit, "\(what): killed by signal \(result.status) (a crash); stderr:\n\(result.stderr)",
            file: file, line: line)
        XCTAssertLessThan(
            result.status, 124, "\(what): exit status \(result.status) is not one of the documented codes", file: file,
            line: line)
        XCTAssertEqual(
            result.status, status, "\(what): wrong exit status; stderr:\n\(result.stderr)", file: file, line: line)
    }

    /// An aborted decode: status, one error line, empty stdout, nothing left in `outputDirectory`.
    private func assertAbort(
        _ arguments: [String], outputDirectory: URL, status: Int32, mentions: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let outputs = [
            "-o", outputDirectory.appendingPathComponent("out.raw").path,
            "--framemd5", outputDirectory.appendingPathComponent("out.md5").path,
            "--timing", outputDirectory.appendingPathComponent("out.jsonl").path,
        ]
        let what = arguments.map { ($0 as NSString).lastPathComponent }.joined(separator: " ")
        let result = try runTool(arguments + outputs, timeout: 30)
        assertCleanExit(result, status: status, what, file: file, line: line)
        assertSingleError(result, mentions: mentions, what, file: file, line: line)
        XCTAssertTrue(
            result.stdout.isEmpty, "\(what): stdout must be empty, got \(result.stdout.count) bytes", file: file,
            line: line)
        XCTAssertEqual(
            try entries(outputDirectory), [], "\(what): an aborted run left files behind", file: file, line: line)
    }

    /// Feeds half of hq.prores on a pipe that stays open, so the decoder
    /// blocks waiting for more; then signals it.
    private func assertInterrupt(_ signal: (Process) -> Void, file: StaticString = #filePath, line: UInt = #line) throws
    {
        let dir = try makeTemporaryDirectory(self)
        let bytes = try fixtureBytes("hq.prores")
        let process = Process()
        process.executableURL = Repo.executable
        process.arguments = ["-", "-o", dir.appendingPathComponent("out.raw").path]
        let input = Pipe()
        let out = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { try? input.fileHandleForWriting.close() }
        DispatchQueue.global().async {
            try? input.fileHandleForWriting.write(contentsOf: bytes.prefix(bytes.count / 2))
        }
        let errData = ToolPipeBytes()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }

        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(
            process.isRunning, "the decode should still be waiting for more input after 1 s", file: file, line: line)
        guard process.isRunning else { return }
        let sent = Date()
        signal(process)
        while process.isRunning && Date().timeIntervalSince(sent) < 5 { usleep(10_000) }
        let stillRunning = process.isRunning
        XCTAssertFalse(stillRunning, "no exit within 5 s of the signal", file: file, line: line)
        if stillRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        group.wait()
        let stderr = String(decoding: errData.data, as: UTF8.self)
        XCTAssertEqual(
            process.terminationReason, .exit,
            "the signal killed the process instead of being handled; stderr:\n\(stderr)", file: file, line: line)
        XCTAssertEqual(
            process.terminationStatus, 9, "an interrupted run exits 9; stderr:\n\(stderr)", file: file, line: line)
        XCTAssertEqual(
            try entries(dir), [], "an interrupted run must leave no output or temporary file", file: file, line: line)
    }

    private func entries(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    private func fixtureBytes(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Repo.fixture(name)))
    }

    /// hq.prores split into its frames (each starts with its 4-byte size):
    /// byte-for-byte hq.mov's packets, per Fixtures/README.md.
    private func elementaryPackets() throws -> [Data] {
        let bytes = try fixtureBytes("hq.prores")
        var packets: [Data] = []
        var offset = bytes.startIndex
        while offset + 8 <= bytes.endIndex {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= bytes.endIndex else { break }
            packets.append(Data(bytes[offset..<offset + size]))
            offset += size
        }
        XCTAssertEqual(packets.count, 5, "hq.prores should hold 5 frames")
        XCTAssertEqual(offset, bytes.endIndex, "hq.prores has trailing bytes")
        return packets
    }
}
