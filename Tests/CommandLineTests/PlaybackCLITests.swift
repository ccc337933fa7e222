import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// `--realtime` and `--effect` as a user meets them: the documented command
/// end to end, the reports, the usage errors and a malformed .cube.
final class PlaybackCLITests: XCTestCase {
    /// Three 25 fps frames of a pure green screen (sRGB 0,255,0) with a grey
    /// box in the middle, made by the ffmpeg CLI: RGB converted once to
    /// BT.709 video-range 4:4:4 10-bit, tagged BT.709, ProRes 4444.
    private func greenScreenClip(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("green.mov").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-v", "error", "-f", "lavfi", "-i",
            "color=c=0x00FF00:s=64x48:r=25,format=rgb24[bg];color=c=0x808080:s=32x24:r=25,format=rgb24[fg];"
                + "[bg][fg]overlay=16:12:format=rgb,scale=out_color_matrix=bt709:out_range=tv,format=yuv444p10le",
            "-frames:v", "3", "-c:v", "prores_ks", "-profile:v", "4444",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", path,
        ]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "ffmpeg could not make the green-screen clip")
        return path
    }

    private func json(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The documented pacing example: `clip.mov --vulkan --realtime --effect chroma-key:color=0,1,0 --save out`.
    func testRealtimeChromaKeyToEXR() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = try greenScreenClip(in: dir)
        let out = dir.appendingPathComponent("out").path
        let timing = dir.appendingPathComponent("t.jsonl").path
        let result = try runTool([
            clip, "--vulkan", "--realtime", "--effect", "chroma-key:color=0,1,0", "--save", out,
            "--validate", "--json", "--timing", timing,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("validation:"), result.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted(),
            ["frame-000000.exr", "frame-000001.exr", "frame-000002.exr"], "--save gets every frame")
        for name in try FileManager.default.contentsOfDirectory(atPath: out) {
            let planes = try exrPlanes(out + "/" + name)
            XCTAssertEqual(planes.a.count, 64 * 48)
            for (x, y) in [(2, 2), (61, 2), (2, 45), (61, 45), (10, 24)] {
                XCTAssertEqual(planes.a[y * 64 + x], 0, "\(name): the green screen at (\(x), \(y)) is keyed out")
                XCTAssertGreaterThan(planes.g[y * 64 + x], 0.9, "\(name): the colour stays (straight alpha)")
            }
            for (x, y) in [(24, 18), (32, 24), (40, 30)] {
                XCTAssertEqual(planes.a[y * 64 + x], 1, "\(name): the grey box at (\(x), \(y)) stays opaque")
            }
        }
        let summary = try json(result.stdout)
        let realtime = try XCTUnwrap(summary["realtime"] as? [String: Any], "the summary reports the pacing")
        let presented = try XCTUnwrap(realtime["presented"] as? Int)
        let late = try XCTUnwrap(realtime["late"] as? Int)
        let dropped = try XCTUnwrap(realtime["dropped"] as? Int)
        let ticks = try XCTUnwrap(realtime["ticks"] as? Int)
        XCTAssertEqual(presented + dropped, 3)
        XCTAssertEqual(presented + late, ticks)
        XCTAssertEqual(realtime["rate"] as? Double, 25, "the media's own rate")
        let jitter = try XCTUnwrap(realtime["jitter_us"] as? [String: Any])
        XCTAssertNotNil(jitter["p50"])
        XCTAssertNotNil(jitter["p99"])
        let effects = try XCTUnwrap(summary["effects_us"] as? [[String: Any]])
        XCTAssertEqual(effects.map { $0["effect"] as? String }, ["chroma-key:color=0,1,0,tolerance=0.1,softness=0.1"])
        XCTAssertNotNil((summary["stages_us"] as? [String: Any])?["gpu_effects"])

        let lines = try String(contentsOfFile: timing, encoding: .utf8).split(separator: "\n").map {
            try json(Data($0.utf8))
        }
        XCTAssertEqual(lines.count, 4, "three frames, then the pacing")
        for line in lines.prefix(3) {
            XCTAssertEqual((line["effects_us"] as? [Double])?.count, 1, "\(line)")
            XCTAssertNotNil(line["gpu_effects_us"], "\(line)")
        }
        let last = try XCTUnwrap(lines.last?["realtime"] as? [String: Any])
        XCTAssertEqual(last["presented"] as? Int, presented)
        XCTAssertEqual(last["dropped"] as? Int, dropped)
        XCTAssertEqual(last["late"] as? Int, late)
    }

    func testRealtimePacesTheCPUPathToo() throws {
        let dir = try makeTemporaryDirectory(self)
        let timing = dir.appendingPathComponent("t.jsonl").path
        let result = try runTool([
            Repo.fixture("hq.mov"), "--realtime", "--rate", "250", "--json", "--timing", timing,
            "--format", "native", "--framemd5", "-",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            md5Column(result.stdoutText), try ffmpegFrameMD5s("hq.mov"), "pacing never changes what is written")
        let summary = try json(
            Data(try XCTUnwrap(result.stderr.split(separator: "\n").last { $0.hasPrefix("{") }).utf8))
        let realtime = try XCTUnwrap(summary["realtime"] as? [String: Any])
        XCTAssertEqual((realtime["presented"] as? Int ?? 0) + (realtime["dropped"] as? Int ?? 0), 5)
        XCTAssertEqual(realtime["rate"] as? Double, 250)
        let lastLine = try XCTUnwrap(try String(contentsOfFile: timing, encoding: .utf8).split(separator: "\n").last)
        XCTAssertTrue(lastLine.hasPrefix("{\"realtime\":{\"rate\":250,"), String(lastLine))
    }

    func testTheTextSummaryNamesEffectsAndPacing() throws {
        let result = try runTool([
            Repo.fixture("pq.mov"), "--vulkan", "--effect", "exposure:-1", "--effect", "sepia",
            "--realtime", "--rate", "100", "--frames", "2",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("gpu_effects ") }, result.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("exposure ") }, result.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("sepia ") }, result.stderr)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("realtime at 100 fps: ") && $0.contains(" presented, ") && $0.contains("jitter p50 ")
            },
            result.stderr)
    }

    func testBadPlaybackOptionsAreOneLineUsageErrors() throws {
        let never = try makeTemporaryDirectory(self).appendingPathComponent("never").path
        for (arguments, words) in [
            (["--rate", "25"], "--rate needs --realtime"),
            (["--realtime", "--rate", "0"], "invalid value '0' for --rate"),
            (["--realtime", "--rate", "fast"], "invalid value 'fast' for --rate"),
            (["--effect", "sepia"], "--effect needs --vulkan"),
            (["--vulkan", "--effect", "blur"], "unknown effect 'blur'"),
            (["--vulkan", "--effect", "exposure"], "exposure needs a value"),
            (["--vulkan", "--effect", "chroma-key:color=0,1"], "three values"),
            (["--save", never, "--effect", "lut:x.cube,shaper=log"], "unknown shaper 'log'"),
        ] {
            let result = try runTool([Repo.fixture("hq.mov")] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: never))
        // A raw elementary stream states no frame rate: --realtime needs --rate.
        let stream = try runTool([Repo.fixture("hq.prores"), "--realtime"])
        XCTAssertEqual(stream.status, 2, stream.stderr)
        XCTAssertTrue(stream.stderr.contains("states no frame rate; give --rate FPS"), stream.stderr)
        let given = try runTool([Repo.fixture("hq.prores"), "--realtime", "--rate", "500", "--quiet"])
        XCTAssertEqual(given.status, 0, given.stderr)
    }

    func testMalformedCubeNamesFileAndLineExitsTwelveAndWritesNothing() throws {
        let dir = try makeTemporaryDirectory(self)
        let cube = dir.appendingPathComponent("look.cube")
        try "TITLE \"look\"\nLUT_3D_SIZE 2\n0 0 0\n1 0\n".write(to: cube, atomically: true, encoding: .utf8)
        let result = try runTool([
            Repo.fixture("hq.mov"), "--vulkan", "--effect", "sepia", "--effect", "lut:\(cube.path)",
            "-o", dir.appendingPathComponent("out.raw").path, "--timing", dir.appendingPathComponent("t.jsonl").path,
            "--save", dir.appendingPathComponent("saved").path,
        ])
        XCTAssertEqual(result.status, 12, result.stderr)
        XCTAssertEqual(
            result.stderr,
            "prores-decode: error: LUT '\(cube.path)' line 4: a table line (R G B) needs 3 numbers, found 2\n")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path), ["look.cube"], "no partial output")
        let missing = try runTool([Repo.fixture("hq.mov"), "--vulkan", "--effect", "lut:\(dir.path)/none.cube"])
        XCTAssertEqual(missing.status, 12, missing.stderr)
        XCTAssertTrue(missing.stderr.hasSuffix("none.cube': no such file\n"), missing.stderr)
    }

    /// At 1 fps the decode ends long before the last tick; SIGINT while the
    /// presenter still shows frames must cancel the run like any other.
    func testSIGINTWhilePresentingIsAnInterruption() throws {
        let dir = try makeTemporaryDirectory(self)
        let process = Process()
        process.executableURL = Repo.executable
        process.arguments = [
            Repo.fixture("hq.mov"), "--realtime", "--rate", "1", "-o", dir.appendingPathComponent("out.raw").path,
        ]
        let err = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let errData = ToolPipeBytes()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        // The temporary output appears before decoding starts. Frames 0-2 fill
        // the queue at once, 3 and 4 follow ticks 0 and 1: 1.3 s later the
        // decode is over and only the presenter is still at work.
        let started = Date()
        while try process.isRunning && FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty
            && Date().timeIntervalSince(started) < 10
        { usleep(10_000) }
        usleep(1_300_000)
        XCTAssertTrue(process.isRunning, "5 frames at 1 fps take 5 s")
        let sent = Date()
        process.interrupt()
        process.waitUntilExit()
        drained.wait()
        XCTAssertLessThan(
            Date().timeIntervalSince(sent), 1.9, "the presenter stops at its next tick, before the 2 s fallback")
        XCTAssertEqual(process.terminationStatus, 9, String(decoding: errData.data, as: UTF8.self))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing partial is left")
    }

    func testHelpDocumentsPlaybackAndExitCodeTwelve() throws {
        let text = try runTool(["--help"]).stdoutText
        for words in [
            "--realtime", "--rate FPS", "--effect SPEC", "chroma-key:color=R,G,B", "lut:FILE.cube",
            "  12   --effect lut",
        ] {
            XCTAssertTrue(text.contains(words), "--help lacks '\(words)'")
        }
    }
}
