import Foundation
import XCTest

@testable import GPUKit
@testable import TestSupport

/// The SPIR-V and pipeline caches vouch for what they hold (`CacheFile`):
/// entries swapped between shaders, or overwritten with noise, are noted
/// once naming the file, rebuilt, and the decode stays bit-exact with
/// FFmpeg's (the CPU decoder's output, an independent path).
final class CacheVerificationTests: XCTestCase {
    private func decode(_ decoder: String, cache: URL) throws -> ToolResult {
        try runTool(
            [Repo.fixture("hq.mov"), "--decoder", decoder, "--format", "native", "-o", "-"],
            environment: ["XDG_CACHE_HOME": cache.path], timeout: 300)
    }

    private func entries(_ directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.contains(".tmp-") }.sorted { $0.path < $1.path }
    }

    private func assertCorrect(
        _ result: ToolResult, _ expected: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(
            result.reason, .exit, "\(what): killed by a signal; stderr:\n\(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.status, 0, "\(what); stderr:\n\(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stdout == expected, "\(what): the frames differ from FFmpeg's", file: file, line: line)
    }

    func testSwappedAndNoisyEntriesAreNotedAndRebuilt() throws {
        let cache = try makeTemporaryDirectory(self)
        let expected = try decode("cpu", cache: cache).stdout
        XCTAssertFalse(expected.isEmpty)
        assertCorrect(try decode("gpu", cache: cache), expected, "first run")
        let spirv = try entries(cache.appendingPathComponent("prores-decode/spirv"))
        let pipelines = try entries(cache.appendingPathComponent("prores-decode/pipelines"))
        XCTAssertGreaterThanOrEqual(spirv.count, 2)
        XCTAssertEqual(pipelines.count, 1)

        // Two shaders' entries trade places.
        let (a, b) = (try Data(contentsOf: spirv[0]), try Data(contentsOf: spirv[1]))
        try b.write(to: spirv[0])
        try a.write(to: spirv[1])
        let swapped = try decode("gpu", cache: cache)
        assertCorrect(swapped, expected, "swapped entries")
        for entry in spirv.prefix(2) {
            let notes = swapped.stderr.components(separatedBy: "\n").filter { $0.contains("cache file \(entry.path)") }
            XCTAssertEqual(notes.count, 1, "one note for \(entry.lastPathComponent):\n\(swapped.stderr)")
        }
        let rebuilt = try decode("gpu", cache: cache)
        assertCorrect(rebuilt, expected, "after the rebuild")
        XCTAssertFalse(
            rebuilt.stderr.contains("cache file"), "the rebuilt entries are trusted again:\n\(rebuilt.stderr)")

        // Every entry, SPIR-V and the driver's, overwritten with noise of its own length.
        var random = SystemRandomNumberGenerator()
        for entry in spirv + pipelines {
            let count = try Data(contentsOf: entry).count
            try Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: entry)
        }
        let noisy = try decode("gpu", cache: cache)
        assertCorrect(noisy, expected, "noise")
        XCTAssertTrue(noisy.stderr.contains("cache file \(pipelines[0].path)"), noisy.stderr)
        assertCorrect(try decode("gpu", cache: cache), expected, "after noise")
    }

    /// Noise that keeps a valid trailer's shape is caught by the checksum;
    /// a cache directory that cannot be written costs time, not the run.
    func testTheChecksumCatchesAFlippedByteAndAnUnwritableCacheIsNoError() throws {
        let cache = try makeTemporaryDirectory(self)
        let identity = Array("source".utf8)
        let url = cache.appendingPathComponent("entry.spv")
        XCTAssertTrue(CacheFile.store(Data([1, 2, 3, 4]), identity: identity, at: url))
        XCTAssertEqual(CacheFile.load(url, identity: identity, maximumBytes: 64), Data([1, 2, 3, 4]))
        XCTAssertNil(CacheFile.load(url, identity: Array("other".utf8), maximumBytes: 64), "another identity")
        var bytes = try Data(contentsOf: url)
        bytes[0] ^= 1
        try bytes.write(to: url)
        XCTAssertNil(CacheFile.load(url, identity: identity, maximumBytes: 64), "a flipped payload byte")

        let blocker = cache.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        XCTAssertFalse(CacheFile.store(Data([1]), identity: identity, at: blocker.appendingPathComponent("entry.spv")))
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--decoder", "gpu", "-o", "/dev/null"],
            environment: ["XDG_CACHE_HOME": blocker.path], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
    }
}
