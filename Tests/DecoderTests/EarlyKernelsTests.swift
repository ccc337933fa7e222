import Foundation
import XCTest

@testable import GPUKit
@testable import ProResGPU
@testable import TestSupport

/// Kernels built at the same time: each variant once, whoever asks first,
/// and a decode that builds its kernels early decodes the same bits.
final class EarlyKernelsTests: XCTestCase {
    func testEachVariantIsBuiltOnceWhateverTheThreadsAsking() throws {
        let context = try VulkanContext()
        let compiler = try ShaderCompiler(cacheDirectory: nil)
        let kernels = KernelCache(context: context, compiler: compiler)
        let interfaces = GPUFrameConverter.kernelInterfaces(.v216, width: 192)
        XCTAssertEqual(Set(interfaces.map(\.variantKey)).count, 2, "the shared variant and the frames' own")
        // The same two asked for three times over, at once.
        kernels.prepare(interfaces + interfaces + interfaces)
        XCTAssertEqual(compiler.compiledCount, 2, "each variant compiled once")
        let made = Guarded<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            guard let kernel = try? kernels.kernel(interfaces[1]) else { return }
            made.mutate { $0.append(ObjectIdentifier(kernel)) }
        }
        let identities = made.value
        XCTAssertEqual(identities.count, 8)
        XCTAssertEqual(Set(identities).count, 1, "every caller gets the one kernel")
        XCTAssertEqual(compiler.compiledCount, 2)
    }

    /// Counted in the trace: built early, each of the run's kernels is
    /// built once (the decoder's two and its hash pass, the converter's
    /// two), on the thread that prepares them or by the session waiting for
    /// it; the frames' hashes are the same as when the session builds them.
    func testADecodeBuildsItsKernelsEarlyAndOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var hashes: [String] = []
        for early in ["1", "0"] {
            let trace = directory.appendingPathComponent("trace-\(early).json").path
            let result = try runTool(
                [
                    Repo.fixture("hq.mov"), "--vulkan", "--decoder", "gpu", "--frames", "3", "--quiet", "--framehash",
                    "-",
                ],
                environment: [
                    "PRORES_DECODE_TRACE": trace, "PRORES_DECODE_EARLY_KERNELS": early,
                    "PRORES_DECODE_PIPELINE_CACHE": "0",
                ], timeout: 120)
            XCTAssertEqual(result.status, 0, result.stderr)
            hashes.append(result.stdoutText)
            let events = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: trace))) as? [String: Any])
            let names = (events["traceEvents"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            XCTAssertEqual(names.filter { $0 == "kernel built" }.count, 5, "early \(early): \(names)")
            XCTAssertEqual(names.filter { $0 == "kernels prepared" }.count, early == "1" ? 1 : 0, "early \(early)")
        }
        XCTAssertEqual(hashes[0], hashes[1])
        XCTAssertEqual(hashes[0].split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 3)
    }
}
