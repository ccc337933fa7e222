import Foundation
import XCTest

@testable import TestSupport

/// `make install` and `make uninstall` with DESTDIR, on the binary these
/// tests run: the installed copy works outside the source tree, and its man
/// page and completions are where man and the shells look.
final class InstallTests: XCTestCase {
    private func make(_ arguments: [String]) throws -> ToolResult {
        try runProgram("/usr/bin/make", ["--no-print-directory", "-C", Repo.root.path] + arguments, timeout: 120)
    }

    func testInstallRunsOutsideTheTreeAndUninstallRemovesEveryFile() throws {
        let stage = try makeTemporaryDirectory(self)
        let variables = ["DESTDIR=" + stage.path, "PREFIX=/usr", "BIN=" + Repo.executable.path]
        let installed = try make(["install"] + variables)
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let prefix = stage.appendingPathComponent("usr")
        let binary = prefix.appendingPathComponent("bin/prores-decode")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary.path))
        for file in [
            "share/man/man1/prores-decode.1", "share/bash-completion/completions/prores-decode",
            "share/zsh/vendor-completions/_prores-decode", "share/fish/vendor_completions.d/prores-decode.fish",
        ] {
            XCTAssertEqual(
                FileManager.default.contents(atPath: prefix.appendingPathComponent(file).path),
                FileManager.default.contents(atPath: Repo.root.appendingPathComponent(file).path), file)
        }

        // From a directory with nothing in it, no shader directory named.
        let elsewhere = try makeTemporaryDirectory(self)
        let version = try runProgram(binary.path, ["--version"], in: elsewhere)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdoutText, try runTool(["--version"]).stdoutText)
        let decoded = try runProgram(
            binary.path,
            [
                Repo.fixture("hq.mov"), "--decoder", "gpu", "--format", "native", "--framemd5", "-",
                "--quiet",
            ], environment: ["PRORES_DECODE_SHADERS": ""], in: elsewhere, timeout: 180)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        XCTAssertEqual(md5Column(decoded.stdoutText), try ffmpegFrameMD5s("hq.mov"))

        // man finds the page under the prefix's man directory.
        let page = try runProgram(
            "/usr/bin/man", ["prores-decode"],
            environment: ["MANPATH": prefix.appendingPathComponent("share/man").path, "MANWIDTH": "80"])
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdoutText.hasPrefix("PRORES-DECODE(1)"), String(page.stdoutText.prefix(200)))

        let removed = try make(["uninstall"] + variables)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        let left =
            FileManager.default.enumerator(atPath: stage.path)?.compactMap { $0 as? String }
            .filter { !FileManager.default.isDirectory(stage.appendingPathComponent($0)) } ?? []
        XCTAssertEqual(left, [], "make uninstall left files behind")
    }

    func testInstallWithoutABuiltBinarySaysSoAndInstallsNothing() throws {
        let stage = try makeTemporaryDirectory(self)
        let result = try make([
            "install", "DESTDIR=" + stage.path, "PREFIX=/usr", "BIN=" + stage.appendingPathComponent("none").path,
        ])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stdoutText.contains("run make build first"), result.stdoutText)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stage.path), [])
    }
}

extension FileManager {
    fileprivate func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }
}
