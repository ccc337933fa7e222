import Foundation
import XCTest

@testable import TestSupport

/// The recipes in deploy/ run as their engines would run them
/// (Fixtures/tools/recipe_runner.py: the file parsed, its shard and merge
/// commands taken out and run here with the variables each engine sets, N
/// shard processes at once), and the merged report is the unsharded check's.
final class ScaleOutRecipeTests: XCTestCase {
    private static let runner = Repo.fixtures.appendingPathComponent("tools/recipe_runner.py").path

    func testEachEngineRecipeMergesToTheUnshardedCheck() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let listed = CheckFixtures.good.map { "good/" + $0 } + CheckFixtures.bad + ["sub/hq.prores", "missing.mov"]
        let list = listed.map { dir.appendingPathComponent($0).path + "\n" }.joined()
        let reference = try makeTemporaryDirectory(self)
        try list.write(to: reference.appendingPathComponent("files.txt"), atomically: true, encoding: .utf8)
        // The recipes name no policy: the default one, as here.
        let whole = try runTool(
            [
                "check", "--list", "files.txt", "--report", "all.json", "--write-golden", "all.golden", "--policy",
                "default",
            ], in: reference)
        XCTAssertEqual(whole.status, 10, whole.stderr)
        let path =
            Repo.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for engine in ["github", "gitlab", "kubernetes", "slurm", "aws-batch"] {
            for count in [3, 8] {
                let work = try makeTemporaryDirectory(self)
                try list.write(to: work.appendingPathComponent("files.txt"), atomically: true, encoding: .utf8)
                let run = try runExternal([
                    "/usr/bin/env", "PATH=" + path, "python3", Self.runner, engine, "\(count)", work.path,
                ])
                XCTAssertEqual(run.status, 0, "\(engine) × \(count): \(run.stderr)")
                XCTAssertEqual(
                    run.text.split(separator: "\n").last, "10", "\(engine) × \(count): merge exits as check did")
                let shards = try FileManager.default.contentsOfDirectory(
                    atPath: work.appendingPathComponent("shards").path)
                XCTAssertEqual(
                    shards.filter { $0.hasSuffix(".json") }.count, count, "\(engine) × \(count): a report a shard")
                try CheckFixtures.assertSameCheck(
                    merged: work.appendingPathComponent("merged.json"),
                    unsharded: reference.appendingPathComponent("all.json"),
                    mergedGolden: work.appendingPathComponent("merged.golden"),
                    unshardedGolden: reference.appendingPathComponent("all.golden"))
                XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent("merged.xml").path))
                XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent("merged.html").path))
            }
        }
    }

    /// deploy/Containerfile installs the package `make deb` writes on a slim
    /// Debian, and its health check (`prores-decode --version`) runs. Not
    /// built here (no hadolint in Debian, no image builder running): the same
    /// install on a clean Debian 12 is DebPackageTests'.
    func testContainerfileInstallsThePackageAndItsHealthCheckRuns() throws {
        let path =
            Repo.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try runExternal(["/usr/bin/env", "PATH=" + path, "python3", Self.runner, "container", "0", "."])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.text.split(separator: "\n").last, "0")
    }
}
