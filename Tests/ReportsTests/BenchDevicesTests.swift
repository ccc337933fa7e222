import Foundation
import XCTest

@testable import TestSupport

/// `bench --device all|N|NAME` on the GPU paths: the devices array of
/// `--json` (one device here: lavapipe, or the one GPU) and what a selector
/// matching nothing does.
final class BenchDevicesTests: XCTestCase {
    private func gpuResult(_ device: String, _ extra: [String] = []) throws -> [String: Any] {
        let result = try runTool(
            ["bench", Repo.fixture("hq.mov"), "--device", device, "--decoders", "gpu", "--frames", "12", "--json"]
                + extra,
            timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        let results = try XCTUnwrap(reports.first?["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 1)
        return results[0]
    }

    func testEveryDeviceAndOneDeviceGiveTheDevicesArray() throws {
        for selector in ["all", "0"] {
            let gpu = try gpuResult(selector)
            XCTAssertEqual(gpu["frames"] as? Int, 12, selector)
            let devices = try XCTUnwrap(gpu["devices"] as? [[String: Any]], selector)
            XCTAssertEqual(devices.count, 1, "one Vulkan device here (\(selector))")
            XCTAssertEqual(devices.compactMap { $0["frames"] as? Int }.reduce(0, +), 12, selector)
            XCTAssertFalse((devices[0]["name"] as? String ?? "").isEmpty, selector)
            XCTAssertGreaterThan(devices[0]["fps"] as? Double ?? 0, 0, selector)
            // The existing keys stay.
            for key in ["decoder", "engine", "seconds", "fps", "batch", "cpu_us_per_frame", "stages_us"] {
                XCTAssertNotNil(gpu[key], key)
            }
        }
    }

    /// A list makes a session per entry, in its order: naming the one
    /// device twice (by index and by name) drives two sessions on it, the
    /// path several GPUs take. Small batches so that both get some.
    func testAListDrivesASessionPerEntry() throws {
        let gpu = try gpuResult("0,llvmpipe", ["--batch", "2"])
        XCTAssertEqual(gpu["frames"] as? Int, 12)
        let devices = try XCTUnwrap(gpu["devices"] as? [[String: Any]])
        XCTAssertEqual(devices.count, 2)
        XCTAssertEqual(
            devices.compactMap { $0["frames"] as? Int }.reduce(0, +), 12, "every frame decoded once: \(devices)")
        XCTAssertTrue(devices.allSatisfy { ($0["frames"] as? Int ?? -1) % 2 == 0 }, "whole batches of 2: \(devices)")
        for bad in ["0,0", "0,", ",llvmpipe"] {
            let result = try runTool([
                "bench", Repo.fixture("hq.mov"), "--device", bad, "--decoders", "gpu", "--frames", "2",
            ])
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
        }
    }

    func testVerboseSaysWhereTheThreadsRun() throws {
        let result = try runTool(
            ["bench", Repo.fixture("hq.mov"), "--device", "all", "--decoders", "gpu", "--frames", "2", "--verbose"],
            timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        // Lavapipe has no PCI address, and this host one NUMA node: either way nothing is pinned.
        XCTAssertTrue(
            result.stderr.contains("gpu device 0 (") && result.stderr.contains("threads not pinned: "), result.stderr)
    }

    func testASelectorMatchingNothingIsTheDeviceError() throws {
        let result = try runTool([
            "bench", Repo.fixture("hq.mov"), "--device", "no-such-gpu", "--decoders", "gpu", "--frames", "2",
        ])
        XCTAssertEqual(result.status, 8, result.stderr)
        XCTAssertTrue(result.stderr.contains("--device no-such-gpu matches none of: 0:"), result.stderr)
        // The input's header line comes first (the input is read before the devices are made); one error line ends it.
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.contains("error:") }.count, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.split(separator: "\n").last?.hasPrefix("prores-decode: error: no usable Vulkan device")
                == true, result.stderr)
    }

    /// Decoding one stream, and `play`, use one device: a list is a usage
    /// error naming why, not quietly its first entry.
    func testCommandsOfOneDeviceRefuseAList() throws {
        for arguments in [
            [Repo.fixture("hq.mov"), "--decoder", "gpu", "--device", "0,llvmpipe"],
            ["play", Repo.fixture("hq.mov"), "--device", "0,1"],
        ] {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("lists several devices"), result.stderr)
        }
    }
}
