import Foundation
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import TestSupport

/// The `PRORES_DECODE_*` settings: read once into `Tuning`, a known one
/// honoured, an unknown one said on stderr (with the name it is close to).
final class TuningTests: XCTestCase {
    private func batch(_ environment: [String: String]) throws -> (batch: Int?, stderr: String) {
        let result = try runTool(
            ["bench", Repo.fixture("hq.mov"), "--decoders", "gpu", "--frames", "8", "--json"], environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let reports = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        let results = try XCTUnwrap(reports.first?["results"] as? [[String: Any]])
        return (results.first?["batch"] as? Int, result.stderr)
    }

    func testAKnownSettingIsHonouredAndAMisspeltOneWarnsOnce() throws {
        let known = try batch(["PRORES_DECODE_BATCH": "3"])
        XCTAssertEqual(known.batch, 3, "PRORES_DECODE_BATCH=3 sets the GPU decoder's batch")
        XCTAssertEqual(known.stderr, "")

        let misspelt = try batch(["PRORES_DECODE_BATHC": "3"])
        XCTAssertNotEqual(misspelt.batch, 3, "a misspelt name sets nothing")
        XCTAssertEqual(
            misspelt.stderr,
            "prores-decode: warning: unknown setting PRORES_DECODE_BATHC is ignored (did you mean PRORES_DECODE_BATCH?)\n"
        )
    }

    func testTheWarningComesBeforeAnythingElseAndForEveryCommand() throws {
        let result = try runTool(
            ["--version"], environment: ["PRORES_DECODE_NO_SUCH_THING": "1", "PRORES_DECODE_TRACEE": "x"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(
            result.stderr.split(separator: "\n").map(String.init),
            [
                "prores-decode: warning: unknown setting PRORES_DECODE_NO_SUCH_THING is ignored (docs/tuning.md lists the settings)",
                "prores-decode: warning: unknown setting PRORES_DECODE_TRACEE is ignored (did you mean PRORES_DECODE_TRACE?)",
            ])
    }

    /// The few other variables, read into the same value: the cache's home
    /// as XDG's base directory rules give it, `DISPLAY`, `TMPDIR`.
    func testTheOtherVariablesTheToolReads() {
        let unset = Tuning(environment: [:])
        XCTAssertNil(unset.cacheHome)
        XCTAssertNil(unset.display)
        XCTAssertEqual(unset.temporaryDirectory, "/tmp")
        XCTAssertNil(ShaderCompiler.cacheDirectory(unset))
        let home = Tuning(environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "", "DISPLAY": ":7", "TMPDIR": "/t"])
        XCTAssertEqual(home.cacheHome, "/home/u/.cache")
        XCTAssertEqual(ShaderCompiler.cacheDirectory(home)?.path, "/home/u/.cache/prores-decode/spirv")
        XCTAssertEqual(home.display, ":7")
        XCTAssertEqual(home.temporaryDirectory, "/t")
        let xdg = Tuning(environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "/c", "DISPLAY": ""])
        XCTAssertEqual(xdg.cacheHome, "/c")
        XCTAssertNil(xdg.display)
        XCTAssertEqual(xdg.warnings, [])
    }

    func testValuesDefaultsAndRanges() {
        let unset = Tuning(environment: [:])
        XCTAssertEqual(unset.validation, .off)
        XCTAssertNil(unset.batch)
        XCTAssertEqual(unset.slots, 4)
        XCTAssertEqual(unset.timestampInterval, 16)
        XCTAssertTrue(unset.pipelineCache)
        XCTAssertFalse(unset.pipelineStatistics)
        XCTAssertTrue(unset.earlyKernels)
        XCTAssertNil(unset.readThreads)
        XCTAssertNil(unset.tracePath)
        XCTAssertEqual(unset.unknownNames, [])

        let set = Tuning(environment: [
            "PRORES_DECODE_VALIDATION": "sync", "PRORES_DECODE_SLOTS": "20", "PRORES_DECODE_BATCH": "0",
            "PRORES_DECODE_TIMESTAMPS": "1", "PRORES_DECODE_PIPELINE_CACHE": "0",
            "PRORES_DECODE_PIPELINE_STATS": "1", "PRORES_DECODE_READ_THREADS": "999",
            "PRORES_DECODE_READ_AHEAD": "0", "PRORES_DECODE_TRACE": "/tmp/t.json",
            "PRORES_DECODE_SHADERS": "/x", "PRORES_DECODE_EARLY_KERNELS": "0", "OTHER_THING": "1",
        ])
        XCTAssertEqual(set.validation, .synchronization)
        XCTAssertEqual(set.slots, 4, "2…8: 20 is refused, never clamped")
        XCTAssertNil(set.batch, "at least 1")
        XCTAssertEqual(set.timestampInterval, 1)
        XCTAssertFalse(set.pipelineCache)
        XCTAssertTrue(set.pipelineStatistics)
        XCTAssertFalse(set.earlyKernels)
        XCTAssertNil(set.readThreads, "1…256")
        XCTAssertNil(set.readAhead, "at least 1")
        XCTAssertEqual(set.tracePath, "/tmp/t.json")
        XCTAssertEqual(set.shaderDirectory, "/x")
        XCTAssertEqual(set.unknownNames, [], "SHADERS is known; other prefixes are not ours")
        XCTAssertEqual(set.invalidValues, [])
        XCTAssertEqual(
            set.numberProblems,
            [
                "PRORES_DECODE_BATCH=0 is outside 1 or more",
                "PRORES_DECODE_SLOTS=20 is outside 2…8",
                "PRORES_DECODE_READ_THREADS=999 is outside 1…256",
                "PRORES_DECODE_READ_AHEAD=0 is outside 1…65536",
            ])
        XCTAssertEqual(Tuning(environment: ["PRORES_DECODE_VALIDATION": "1"]).validation, .on)
        XCTAssertNil(
            Tuning(environment: ["PRORES_DECODE_SHADERS": ""]).shaderDirectory,
            "empty is unset, never the current folder")
    }

    /// A value a setting cannot take is said once on stderr with what is used
    /// instead, not silently dropped; a value it takes says nothing.
    func testAValueASettingCannotTakeIsSaid() throws {
        let bad = Tuning(environment: [
            "PRORES_DECODE_SLOTS": "abc", "PRORES_DECODE_VALIDATION": "yes", "PRORES_DECODE_PIPELINE_CACHE": "off",
        ])
        XCTAssertEqual(bad.slots, 4)
        XCTAssertEqual(bad.validation, .off)
        XCTAssertTrue(bad.pipelineCache)
        XCTAssertEqual(
            bad.warnings,
            [
                "PRORES_DECODE_VALIDATION=yes is none of 0, 1, sync: the default is used",
                "PRORES_DECODE_PIPELINE_CACHE=off is none of 0, 1: the default is used",
            ])
        XCTAssertEqual(bad.numberProblems, ["PRORES_DECODE_SLOTS=abc is not a whole number (2…8)"])
        XCTAssertEqual(Tuning(environment: ["PRORES_DECODE_SLOTS": "3", "PRORES_DECODE_VALIDATION": "0"]).warnings, [])
        // Plain decimals only, as every option takes them: `+`, exponents and spaces are no whole numbers.
        for text in ["+3", "3e0", " 3", "99999999999999999999"] {
            XCTAssertEqual(
                Tuning(environment: ["PRORES_DECODE_SLOTS": text]).numberProblems,
                ["PRORES_DECODE_SLOTS=\(text) is not a whole number (2…8)"], text)
        }
        // check --shard auto's own variables are known, not "ignored".
        XCTAssertEqual(
            Tuning(environment: ["PRORES_DECODE_SHARD_INDEX": "0", "PRORES_DECODE_SHARD_TOTAL": "2"]).warnings, [])
        let result = try runTool(["--version"], environment: ["PRORES_DECODE_VALIDATION": "yes"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(
            result.stderr,
            "prores-decode: warning: PRORES_DECODE_VALIDATION=yes is none of 0, 1, sync: the default is used\n")
        // A number outside its range is a usage error: one line, exit 2, whatever the command.
        for (name, value) in [
            ("PRORES_DECODE_SLOTS", "abc"), ("PRORES_DECODE_READ_THREADS", "9223372036854775807"),
            ("PRORES_DECODE_BATCH", "+4"), ("PRORES_DECODE_TIMESTAMPS", "-1"),
        ] {
            let refused = try runTool(["info", Repo.fixture("hq.mov")], environment: [name: value])
            XCTAssertEqual(refused.reason, .exit)
            XCTAssertEqual(refused.status, 2, "\(name)=\(value): \(refused.stderr)")
            assertSingleError(refused, mentions: ["\(name)=\(value)"], "\(name)=\(value)")
        }
    }

    /// Every `PRORES_DECODE_*` name the docs and README mention is one the
    /// tool reads: no page tells a user to set a switch that is gone.
    func testTheDocsNameOnlySettingsTheToolReads() throws {
        let found = try runExternal([
            "git", "-C", Repo.root.path, "grep", "-ohE", "PRORES_DECODE_[A-Z0-9_]+", "--", "README.md", "docs",
        ])
        XCTAssertEqual(found.status, 0, found.stderr)
        let named = Set(found.text.split(separator: "\n").map(String.init))
        XCTAssertTrue(named.contains("PRORES_DECODE_SLOTS"), "the scan reads the docs: \(named)")
        // The misspelling docs/tuning.md shows in its warning example.
        let unknown = named.subtracting(Tuning.names).subtracting(["PRORES_DECODE_BATHC"])
        XCTAssertEqual(unknown, [], "the docs name settings the tool does not read")
    }

    func testNearestNames() {
        // Hand-counted edit distances: a swap of two neighbours is one edit.
        XCTAssertEqual(Tuning.distance("BATHC", "BATCH"), 1)
        XCTAssertEqual(Tuning.distance("SLOT", "SLOTS"), 1)
        XCTAssertEqual(Tuning.distance("kitten", "sitting"), 3)
        XCTAssertEqual(
            Tuning(environment: ["PRORES_DECODE_PIPELINE_CASHE": "0"]).warnings,
            ["unknown setting PRORES_DECODE_PIPELINE_CASHE is ignored (did you mean PRORES_DECODE_PIPELINE_CACHE?)"])
    }
}
