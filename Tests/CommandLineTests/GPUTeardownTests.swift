import Foundation
import XCTest

@testable import TestSupport

/// A GPU run that ends early (a signal while frames flow through the GPU
/// decoder and the `--vulkan` conversion) stops cleanly: exit 9, every
/// temporary and every frame `--save` had staged removed, never a crash: the
/// GPU stage's sinks must not outlive the stage through an unowned reference
/// (exit 134, "Attempted to read an unowned reference").
final class GPUTeardownTests: XCTestCase {
    func testSignalsDuringVulkanRunsStopCleanly() throws {
        let inputDir = try makeTemporaryDirectory(self)
        let long = inputDir.appendingPathComponent("long.prores")
        let once = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        var bytes = Data(capacity: once.count * 1000)
        for _ in 0..<1000 { bytes.append(once) }  // 5000 frames
        try bytes.write(to: long)
        let runs: [(String, [String], Int32)] = [
            ("gpu decoder, --vulkan, framemd5", ["--decoder", "gpu", "--vulkan", "--framemd5", "OUT/f.md5"], SIGTERM),
            ("gpu decoder, --vulkan --save", ["--decoder", "gpu", "--vulkan", "--save", "OUT/frames"], SIGINT),
            (
                "cpu decoder, --vulkan --save png",
                ["--decoder", "cpu", "--vulkan", "--save", "OUT/frames", "--save-format", "png"], SIGHUP
            ),
        ]
        // Signals from set-up to full flow: the early ones (the conversion
        // starting while the decoder's first batches arrive) are the ones
        // that crashed, 5 times in 12 on this machine.
        var judged = 0
        for delay in [0.1, 0.2, 0.3, 0.45, 0.6, 0.8] {
            for (name, arguments, signal) in runs {
                let out = try makeTemporaryDirectory(self)
                let result = try runInterrupted(
                    [long.path] + arguments.map { $0.replacingOccurrences(of: "OUT", with: out.path) },
                    after: delay, signal: signal)
                guard let result else { continue }  // finished before the signal: nothing to judge
                judged += 1
                let round = "after \(delay) s"
                XCTAssertEqual(
                    result.reason, .exit, "\(name), round \(round): killed by a signal; stderr:\n\(result.stderr)")
                XCTAssertEqual(result.status, 9, "\(name), round \(round): stderr:\n\(result.stderr)")
                let left = try FileManager.default.subpathsOfDirectory(atPath: out.path).filter {
                    $0.contains(".pd-") || $0.hasSuffix(".part") || $0.contains(".tmp")
                }
                XCTAssertEqual(left, [], "\(name), round \(round): temporaries left behind")
                XCTAssertFalse(
                    FileManager.default.fileExists(atPath: out.appendingPathComponent("f.md5").path),
                    "\(name): a partial framemd5")
                // --save is all or nothing: the directory this run made is gone again.
                XCTAssertFalse(
                    FileManager.default.fileExists(atPath: out.appendingPathComponent("frames").path),
                    "\(name), \(round): frames of an interrupted --save were left")
            }
        }
        XCTAssertGreaterThan(judged, 9, "most runs must still be going when their signal arrives")
    }
}

/// `--save` publishes its frames when the run succeeds: into a directory
/// that already holds other files, alongside them, with no staging left;
/// a run that fails on its input after frames were staged publishes none.
final class SaveStagingTests: XCTestCase {
    func testSavePublishesAllFramesAtTheEndAndLeavesNoStaging() throws {
        let out = try makeTemporaryDirectory(self)
        let frames = out.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: frames.appendingPathComponent("notes.txt"))
        let result = try runTool([Repo.fixture("hq.mov"), "--vulkan", "--save", frames.path, "--quiet"], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        XCTAssertEqual(
            names,
            [
                "frame-000000.exr", "frame-000001.exr", "frame-000002.exr", "frame-000003.exr", "frame-000004.exr",
                "notes.txt",
            ], "the frames beside the user's file, no staging directory")
        XCTAssertEqual(try String(contentsOf: frames.appendingPathComponent("notes.txt"), encoding: .utf8), "mine")
    }

    /// A stream whose third frame is cut inside its header ends with exit 5
    /// (damaged frames: the outputs of a damaged run are kept, docs/formats.md's
    /// exit-code table): the two whole frames are published, nothing staged
    /// is left. (An interrupted run publishing nothing: GPUTeardownTests.)
    func testDamagedRunPublishesItsWholeFramesAndNoStaging() throws {
        let out = try makeTemporaryDirectory(self)
        let frames = out.appendingPathComponent("frames")
        let stream = out.appendingPathComponent("cut.prores")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        let third = FrameTools.frameOffsets(bytes)[2]
        try bytes.prefix(third + 12).write(to: stream)
        let result = try runTool([stream.path, "--vulkan", "--save", frames.path, "--quiet"], timeout: 120)
        XCTAssertEqual(result.status, 5, result.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted(),
            ["frame-000000.exr", "frame-000001.exr"], "the whole frames, and no staging directory")
    }
}
