import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The GPU options as a user meets them: flags, errors, exit codes, files.
final class VulkanCLITests: XCTestCase {
    func testVulkanRunReportsGPUTimingPerFrame() throws {
        let dir = try makeTemporaryDirectory(self)
        let timing = dir.appendingPathComponent("t.jsonl").path
        let result = try runTool([Repo.fixture("pq.mov"), "--vulkan", "--validate", "--timing", timing, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("validation:"), result.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let stages = try XCTUnwrap(summary["stages_us"] as? [String: Any])
        XCTAssertNotNil(stages["gpu_convert"], "the summary must carry GPU time")
        let gpu = try XCTUnwrap(summary["gpu"] as? [String: Any])
        XCTAssertEqual(gpu["validation_messages"] as? Int, 0)
        XCTAssertEqual(gpu["copied_frames"] as? Int, 0)
        let lines = try String(contentsOfFile: timing, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 5)
        for (i, line) in lines.enumerated() {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(object["frame"] as? Int, i)
            XCTAssertNotNil(object["gpu_convert_us"], String(line))
            XCTAssertNotNil(object["gpu_upload_us"], String(line))
        }
    }

    func testSaveWritesOneEXRPerFrameAndImpliesVulkan() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = dir.appendingPathComponent("new/sub").path  // created if missing
        let result = try runTool([Repo.fixture("hlg.mov"), "--save", out, "--start", "2", "--frames", "2", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["frame-000002.exr", "frame-000003.exr"])
        // An existing directory is reused; same-named frames are replaced.
        let again = try runTool([
            Repo.fixture("hlg.mov"), "--save", out, "--frames", "3", "--save-format", "png", "--quiet",
        ])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted(),
            ["frame-000000.png", "frame-000001.png", "frame-000002.exr", "frame-000002.png", "frame-000003.exr"])
    }

    func testShadersAreFoundFromAnyDirectory() throws {
        let elsewhere = try makeTemporaryDirectory(self)
        let result = try runTool(
            [Repo.fixture("bt709.mov"), "--vulkan", "--save", "out", "--frames", "1", "--quiet"], in: elsewhere)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("out/frame-000000.exr").path))
    }

    func testSaveIntoAFileIsAnOutputError() throws {
        let dir = try makeTemporaryDirectory(self)
        let file = dir.appendingPathComponent("plain")
        try Data("keep".utf8).write(to: file)
        let result = try runTool([Repo.fixture("hq.mov"), "--save", file.path])
        XCTAssertEqual(result.status, 6, result.stderr)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "keep")
    }

    func testNoVulkanDriverIsAClearErrorWithItsOwnCode() throws {
        let dir = try makeTemporaryDirectory(self)
        let output = dir.appendingPathComponent("out.raw").path
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--vulkan", "-o", output],
            environment: ["VK_ICD_FILENAMES": "/nonexistent/icd.json", "VK_DRIVER_FILES": "/nonexistent/icd.json"])
        XCTAssertEqual(result.status, 8, result.stderr)
        XCTAssertEqual(result.reason, .exit, "must not crash")
        XCTAssertTrue(result.stderr.contains("error: no usable Vulkan device"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "no partial output")
        let devices = try runTool(
            ["devices"],
            environment: ["VK_ICD_FILENAMES": "/nonexistent/icd.json", "VK_DRIVER_FILES": "/nonexistent/icd.json"])
        XCTAssertEqual(devices.status, 8, devices.stderr)
    }

    func testDeviceSelectionErrorsNameTheDevices() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--vulkan", "--device", "no-such-gpu"])
        XCTAssertEqual(result.status, 8)
        XCTAssertTrue(result.stderr.contains("--device no-such-gpu matches none of: 0:"), result.stderr)
        let byIndex = try runTool([Repo.fixture("hq.mov"), "--vulkan", "--device", "0", "--quiet"])
        XCTAssertEqual(byIndex.status, 0, byIndex.stderr)
    }

    func testGPUFlagsWithoutVulkanOrWithNativeAreUsageErrors() throws {
        for arguments in [
            ["--device", "0", "--decoder", "cpu"], ["--device", "0", "--no-hardware"], ["--reference-white", "100"],
            ["--validate", "--decoder", "cpu"], ["--validate", "--no-hardware"], ["--vulkan", "--format", "native"],
            ["--save-format", "exr"], ["--vulkan", "--reference-white", "-3"],
            ["--save", "/tmp/x", "--save-format", "tiff"],
        ] {
            let result = try runTool([Repo.fixture("hq.mov")] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
        }
    }

    func testDevicesListsLavapipeAsNotHardware() throws {
        let result = try runTool(["devices", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let devices = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        XCTAssertFalse(devices.isEmpty)
        for device in devices {
            for key in [
                "name", "type", "driver", "device_local_bytes", "timeline_semaphores", "host_memory_import",
                "subgroup_size",
            ] {
                XCTAssertNotNil(device[key], "devices --json lacks \(key)")
            }
            if (device["driver"] as? String) == "llvmpipe" {
                XCTAssertEqual(device["hardware"] as? Bool, false)
                // Lavapipe offers no VK_EXT_pci_bus_info, so no NUMA placement either.
                XCTAssertTrue(device["pci_address"] is NSNull && device["thread_cpus"] is NSNull, "\(device)")
            }
        }
    }

    func testReferenceWhiteScalesPQ() throws {
        // Twice the reference white halves every PQ value.
        let dir = try makeTemporaryDirectory(self)
        for (white, name) in [("203", "a"), ("406", "b")] {
            let result = try runTool([
                Repo.fixture("pq.mov"), "--save", dir.appendingPathComponent(name).path, "--frames", "1",
                "--reference-white", white, "--quiet",
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        func floats(_ name: String) throws -> [Float] {
            let planes = try exrPlanes(dir.appendingPathComponent("\(name)/frame-000000.exr").path)
            return planes.g + planes.b + planes.r + planes.a
        }
        let a = try floats("a")
        let b = try floats("b")
        XCTAssertEqual(a.count, b.count)
        XCTAssertGreaterThan(a.max() ?? 0, 1, "PQ highlights must exceed 1.0")
        let colourValues = a.count / 4 * 3  // G, B, R planes; alpha does not scale
        for i in stride(from: 0, to: colourValues, by: 13) where abs(a[i]) > 1e-3 {
            XCTAssertEqual(Double(b[i]) / Double(a[i]), 0.5, accuracy: 2e-3, "value \(i)")
        }
    }
}

final class ShaderCompilerTests: XCTestCase {
    func testSecondCompileComesFromTheCache() throws {
        let cache = try makeTemporaryDirectory(self)
        let first = try ShaderCompiler(cacheDirectory: cache)
        let words = try first.spirv(ConversionKernel.interface(.y416, pairs: true))
        XCTAssertEqual(words.first, 0x0723_0203, "SPIR-V magic number")
        XCTAssertEqual(first.compiledCount, 1)
        let second = try ShaderCompiler(cacheDirectory: cache)
        XCTAssertEqual(try second.spirv(ConversionKernel.interface(.y416, pairs: true)), words)
        XCTAssertEqual(second.compiledCount, 0, "a second run must compile nothing")
    }

    func testCompileErrorNamesTheShaderAndNumbersLines() throws {
        let shaders = try makeTemporaryDirectory(self)
        try "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n    float x = undefined_thing;\n}\n"
            .write(to: shaders.appendingPathComponent("broken.comp"), atomically: true, encoding: .utf8)
        let compiler = try ShaderCompiler(shaderDirectory: shaders, cacheDirectory: nil)
        XCTAssertThrowsError(try compiler.spirv("broken.comp")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("broken.comp"), text)
            XCTAssertTrue(text.contains("undefined_thing"), text)
            XCTAssertTrue(text.contains("   4 |     float x = undefined_thing;"), text)
        }
    }

    func testConversionPushBlockFitsAndIsGenerated() throws {
        // The shader declares no interface of its own: the block comes from
        // ConversionKernel.push (KernelInterfaceTests checks it on the GPU).
        let source = try XCTUnwrap(EmbeddedShaders.sources["convert_to_p3.comp"])
        XCTAssertFalse(source.contains("push_constant"), "the shader must not declare its push block by hand")
        XCTAssertEqual(
            ConversionKernel.push.bytes(
                ConversionKernel.values(
                    ConversionParameters(
                        try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video)),
                    width: 3, height: 2, layout: .v216, sourceBytesPerRow: 16)
            ).count, 128)
    }
}
