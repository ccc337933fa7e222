import Foundation
import XCTest

@testable import TestSupport

/// `--decoder`, `--require-hardware`, `--no-hardware` and `bench`, run as a
/// user runs them (lavapipe is this machine's only Vulkan device).
final class GPUDecoderCLITests: XCTestCase {
    private func frameMD5s(_ arguments: [String]) throws -> [String] {
        let result = try runTool(arguments + ["--framemd5", "-", "--quiet"])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        return result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The GPU decoder's promise: `--decoder gpu --framemd5 -` equals
    /// `--decoder ffmpeg --framemd5 -` on every fixture, in every layout.
    func testGPUFrameMD5sEqualTheCPUsOnEveryFixture() throws {
        for clip in GPUDecoderTests.fixtures + ["hq.prores"] {
            for format in ["native", "v216", "y416"] {
                let arguments = [Repo.fixture(clip), "--format", format]
                let cpu = try frameMD5s(arguments + ["--decoder", "ffmpeg"])
                XCTAssertGreaterThan(cpu.count, 0)
                XCTAssertEqual(try frameMD5s(arguments + ["--decoder", "gpu"]), cpu, "\(clip) \(format)")
            }
        }
    }

    /// The native layout is also FFmpeg's own: the checked-in framemd5 of
    /// `ffmpeg -f framemd5` (Fixtures/ref), an independent decode.
    func testGPUNativeFramesEqualFFmpegsReference() throws {
        for clip in ["hq.mov", "4444.mov", "interlaced-tff.mov", "odd-size-444.mov"] {
            let reference = try String(contentsOfFile: Repo.reference("\(clip).framemd5"), encoding: .utf8)
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                    $0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)
                }
            let gpu = try frameMD5s([Repo.fixture(clip), "--decoder", "gpu", "--format", "native"])
                .map { $0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(gpu, reference, clip)
        }
    }

    func testDamagedInputReportsLikeTheCPUPath() throws {
        for clip in ["bad/corrupt-slice.mov", "bad/bad-header.mov", "bad/truncated-faststart.mov"] {
            let cpu = try runTool([Repo.fixture(clip), "--decoder", "ffmpeg", "--framemd5", "-", "--quiet"])
            let gpu = try runTool([Repo.fixture(clip), "--decoder", "gpu", "--framemd5", "-", "--quiet"])
            XCTAssertEqual(gpu.status, 5, "\(clip): \(gpu.stderr)")
            XCTAssertEqual(gpu.status, cpu.status, clip)
            XCTAssertEqual(gpu.stdoutText, cpu.stdoutText, "\(clip): the frames written and their md5s")
            XCTAssertEqual(
                gpu.stderr.contains("damaged"), cpu.stderr.contains("damaged"),
                "\(clip)\ncpu: \(cpu.stderr)\ngpu: \(gpu.stderr)")
            XCTAssertEqual(
                gpu.stderr.contains("not decoded"), cpu.stderr.contains("not decoded"),
                "\(clip)\ncpu: \(cpu.stderr)\ngpu: \(gpu.stderr)")
        }
    }

    func testValidateAppliesToTheGPUDecoderWithoutVulkan() throws {
        let result = try runTool([Repo.fixture("4444.mov"), "--decoder", "gpu", "--validate", "--framemd5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("vulkan validation"), result.stderr)
        XCTAssertEqual(
            String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 5
        )
    }

    func testRequireHardwareFailsOnLavapipeWithItsOwnExitCode() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--require-hardware", "-o", "/dev/null", "--overwrite"])
        XCTAssertEqual(result.status, 13, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("not hardware"), result.stderr)
    }

    func testAutoPicksTheCPUOnLavapipeAndGPUIsForced() throws {
        func decoder(_ arguments: [String]) throws -> String {
            let result = try runTool([Repo.fixture("hq.mov"), "--json", "--quiet"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            return json?["decoder"] as? String ?? "missing"
        }
        XCTAssertEqual(try decoder([]), "cpu")
        XCTAssertEqual(try decoder(["--no-hardware"]), "cpu")
        XCTAssertTrue(try decoder(["--decoder", "gpu"]).hasPrefix("gpu ("))
        let verbose = try runTool([
            Repo.fixture("hq.mov"), "--decoder", "auto", "--verbose", "-o", "/dev/null", "--overwrite",
        ])
        XCTAssertTrue(verbose.stderr.contains("decoder: cpu (no hardware Vulkan device"), verbose.stderr)
    }

    func testContradictoryDecoderFlagsAreUsageErrors() throws {
        for arguments in [
            ["--decoder", "fpga"], ["--require-hardware", "--no-hardware"], ["--require-hardware", "--decoder", "cpu"],
            ["--no-hardware", "--decoder", "gpu"], ["--decoder"],
        ] {
            let result = try runTool([Repo.fixture("hq.mov")] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
        }
    }

    func testBenchReportsEachDecoderAndTheRatio() throws {
        let result = try runTool(
            [
                "bench", Repo.fixture("hq.mov"), Repo.fixture("4444.mov"), "--frames", "12",
                "--decoders", "ffmpeg,cpu,gpu,gpu-host,gpu-check", "--json",
            ], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        XCTAssertEqual(reports.count, 2)
        for report in reports {
            let results = try XCTUnwrap(report["results"] as? [[String: Any]])
            XCTAssertEqual(results.map { $0["decoder"] as? String }, ["ffmpeg", "cpu", "gpu", "gpu-host", "gpu-check"])
            for path in results {
                XCTAssertEqual(path["frames"] as? Int, 12)
                XCTAssertGreaterThan(path["fps"] as? Double ?? 0, 0)
                // Decoding costs the host something on every path (lavapipe's GPU is the CPU).
                XCTAssertGreaterThan(path["cpu_us_per_frame"] as? Double ?? 0, 0, "the host's CPU time per frame")
            }
            let gpuStages = try XCTUnwrap(results[2]["stages_us"] as? [String: Any])
            XCTAssertEqual(
                Set(gpuStages.keys),
                ["decode", "cpu_parse", "cpu_stage", "upload", "zero_fill", "entropy", "transform", "gpu_total"])
            let ratios = try XCTUnwrap(report["ratios"] as? [String: Double])
            XCTAssertEqual(Set(ratios.keys), ["cpu/ffmpeg", "gpu/ffmpeg", "gpu-host/ffmpeg", "gpu-check/ffmpeg"])
        }
        // gpu-check fails the run when a frame lacks its hash or statistics,
        // or they differ from FFmpeg's frame's measured on the CPU: here with
        // a hash or statistics kernel that writes nothing, so the results
        // are whatever the buffer held (often zeros, the same every loop).
        for kernel in ["frame_hash.comp", "frame_stats.comp"] {
            let empty = try temporaryShaders(replacing: kernel) {
                $0[..<$0.range(of: "void main()")!.lowerBound] + "void main() {}\n"
            }
            defer { try? FileManager.default.removeItem(atPath: empty) }
            let unmeasured = try runTool(
                ["bench", Repo.fixture("hq.mov"), "--frames", "40", "--decoders", "gpu-check"],
                environment: ["PRORES_DECODE_SHADERS": empty], timeout: 120)
            XCTAssertEqual(unmeasured.status, 2, "\(kernel): \(unmeasured.stderr)")
            XCTAssertTrue(
                unmeasured.stderr.contains("measured otherwise (hash or statistics) than FFmpeg's frame"),
                "\(kernel): \(unmeasured.stderr)")
        }
        for arguments in [
            ["bench"], ["bench", Repo.fixture("hq.mov"), "--decoders", "cpu,tpu"],
            ["bench", Repo.fixture("hq.mov"), "--decoders", "gpu,gpu"],
        ] {
            let bad = try runTool(arguments)
            XCTAssertEqual(bad.status, 2, "\(arguments): \(bad.stderr)")
        }
    }
}

/// A copy of the repository's shaders with `name` rewritten by `change`, for
/// `PRORES_DECODE_SHADERS`; the caller removes the directory.
func temporaryShaders(replacing name: String, _ change: (String) -> String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "shaders-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: Repo.root.appendingPathComponent("Shaders"), to: directory)
    let file = directory.appendingPathComponent(name)
    try change(try String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
    return directory.path
}

/// `--decoder gpu --vulkan`: the conversion reads the decoder's device-local
/// surfaces in place, and what it saves is what the CPU decoder's path saves.
final class GPUDecoderConversionTests: XCTestCase {
    private func saved(_ arguments: [String]) throws -> [String: Data] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gpu-save-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runTool(arguments + ["--save", directory.path, "--quiet", "--validate"])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    func testConversionOfDeviceSurfacesEqualsTheCPUDecodersPath() throws {
        for (clip, extra) in [
            ("pq.mov", [String]()), ("4444.mov", []), ("odd-size.mov", []), ("interlaced-bff.mov", []),
            ("hq.mov", ["--effect", "chroma-key:color=0,1,0", "--effect", "exposure:1"]),
        ] {
            let cpu = try saved([Repo.fixture(clip), "--decoder", "ffmpeg"] + extra)
            XCTAssertEqual(cpu.count, 5, clip)
            XCTAssertEqual(try saved([Repo.fixture(clip), "--decoder", "gpu"] + extra), cpu, clip)
        }
    }

    func testDeviceSurfacesAreNotCopiedThroughTheHost() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--decoder", "gpu", "--vulkan", "--json", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let gpu = try XCTUnwrap(json["gpu"] as? [String: Any])
        XCTAssertEqual(
            gpu["imported_surfaces"] as? Int, 0,
            "the converter imported host surfaces: the frames went through the host")
        XCTAssertEqual(gpu["copied_frames"] as? Int, 0)
        XCTAssertEqual(json["frames_written"] as? Int, 5)
    }
}
