import Foundation
import HostSupport
import XCTest

@testable import GPUKit
@testable import TestSupport

/// The GLSL is built into the binary from Shaders/ (Plugins/EmbedShaders);
/// `PRORES_DECODE_SHADERS` names a directory to use instead, and only when
/// it is set to something.
final class ShaderSourceTests: XCTestCase {
    private let shaders = Repo.root.appendingPathComponent("Shaders")

    func testBuiltInShadersAreTheRepositorysFilesByteForByte() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: shaders.path).filter { $0.hasSuffix(".comp") }
        XCTAssertFalse(names.isEmpty)
        XCTAssertEqual(Set(EmbeddedShaders.sources.keys), Set(names))
        for name in names {
            let file = try Data(contentsOf: shaders.appendingPathComponent(name))
            XCTAssertEqual(
                EmbeddedShaders.sources[name].map { Data($0.utf8) }, file, "\(name) is built in as other bytes")
        }
    }

    /// An empty variable is no variable: the built-in shaders run, not
    /// whatever `.comp` files the current directory holds.
    func testEmptyVariableMeansTheBuiltInShadersNotTheCurrentDirectory() throws {
        let directory = try makeTemporaryDirectory(self)
        for name in EmbeddedShaders.sources.keys {
            try "this is not GLSL\n".write(
                to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--decoder", "gpu", "--frames", "2", "--format", "native", "--framemd5", "-"],
            environment: ["PRORES_DECODE_SHADERS": "", "XDG_CACHE_HOME": directory.path], in: directory,
            timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(md5Column(result.stdoutText), Array(try ffmpegFrameMD5s("hq.mov").prefix(2)))
    }

    func testVariableNamingNoShadersIsOneErrorThatNamesIt() throws {
        let empty = try makeTemporaryDirectory(self)
        for path in [empty.path, empty.appendingPathComponent("missing").path] {
            let result = try runTool(
                [Repo.fixture("hq.mov"), "--decoder", "gpu", "--frames", "1"],
                environment: ["PRORES_DECODE_SHADERS": path], timeout: 120)
            XCTAssertEqual(result.status, 8, result.stderr)
            assertSingleError(result, mentions: ["PRORES_DECODE_SHADERS=" + path, "no shaders"], path)
        }
        // Some shaders, not the decoder's: the missing one and the variable are named.
        try "#version 450\n".write(to: empty.appendingPathComponent("other.comp"), atomically: true, encoding: .utf8)
        let partial = try runTool(
            [Repo.fixture("hq.mov"), "--decoder", "gpu", "--frames", "1", "--quiet"],
            environment: ["PRORES_DECODE_SHADERS": empty.path], timeout: 120)
        XCTAssertEqual(partial.status, 8, partial.stderr)
        assertSingleError(
            partial, mentions: ["PRORES_DECODE_SHADERS", empty.path + "/prores_"],
            "a directory without the decoder's shaders")
    }

    func testOverridingDirectoryIsReadInsteadOfTheBuiltInShaders() throws {
        let copy = try temporaryShaders(replacing: "convert_to_p3.comp") { _ in "not GLSL\n" }
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let compiler = try ShaderCompiler(cacheDirectory: nil)
        XCTAssertNil(compiler.shaderDirectory, "the test runs without PRORES_DECODE_SHADERS")
        XCTAssertEqual(
            try ShaderCompiler.overridingDirectory(Tuning(environment: ["PRORES_DECODE_SHADERS": copy]))?.path, copy)
        XCTAssertNil(try ShaderCompiler.overridingDirectory(Tuning(environment: ["PRORES_DECODE_SHADERS": ""])))
        let overridden = try ShaderCompiler(shaderDirectory: URL(fileURLWithPath: copy), cacheDirectory: nil)
        XCTAssertEqual(try overridden.glsl("convert_to_p3.comp"), "not GLSL\n")
        XCTAssertEqual(try compiler.glsl("convert_to_p3.comp"), EmbeddedShaders.sources["convert_to_p3.comp"])
    }
}
