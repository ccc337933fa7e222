import Foundation
import Glibc
import XCTest

@testable import TestSupport

/// The output-safety rule (docs/output-safety.md): no output is ever an
/// input or another output of the same run, whatever -y says; every output
/// is published whole, and without -y never over a name that exists or
/// appears meanwhile; stdout that cannot be written fails the command.
final class OutputSafetyTests: XCTestCase {
    private var directory: URL!
    private let usage: Int32 = 2, outputFailed: Int32 = 6

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("t1"), withIntermediateDirectories: true)
        for clip in ["hq.mov", "lt.mov"] { try copy(clip, to: "t1/" + clip) }
        try copy("hq.mov", to: "victim.mov")
    }

    private func copy(_ fixture: String, to name: String) throws {
        try FileManager.default.copyItem(
            atPath: Repo.fixture(fixture), toPath: directory.appendingPathComponent(name).path)
    }

    private func bytes(_ name: String) -> Data? {
        FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
    }

    private func entries(_ name: String = ".") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(name).path).sorted()
    }

    /// A file named in a `--list` is an input like one named on the command
    /// line, and so is the list itself: neither may be an output.
    func testAFileNamedInAListIsAnInput() throws {
        let clip = bytes("victim.mov")
        let list = Data("# the archive\nvictim.mov\n".utf8)
        FileManager.default.createFile(atPath: directory.appendingPathComponent("l.txt").path, contents: list)
        for output in ["--report", "--html", "--junit", "--write-golden"] {
            let result = try runTool(["check", "--list", "l.txt", output, "victim.mov", "-y"], in: directory)
            XCTAssertEqual(result.status, usage, "\(output): \(result.stderr)")
            assertSingleError(result, mentions: [output, "victim.mov"], output)
            XCTAssertEqual(bytes("victim.mov"), clip, "\(output): victim.mov changed")
        }
        let result = try runTool(["check", "--list", "l.txt", "--report", "l.txt", "-y"], in: directory)
        XCTAssertEqual(result.status, usage, result.stderr)
        XCTAssertEqual(bytes("l.txt"), list, "the list changed")
    }

    /// Each way a run named one of its inputs as an output, or one file as
    /// two outputs: a usage error naming both, before anything is written.
    func testAnOutputThatIsAnInputOrAnotherOutputIsAUsageErrorNamingBoth() throws {
        let clip = try XCTUnwrap(FileManager.default.contents(atPath: Repo.fixture("hq.mov")))
        let log = Data("{\"frame\":0}\n".utf8)
        FileManager.default.createFile(atPath: directory.appendingPathComponent("self.jsonl").path, contents: log)
        let cases: [(arguments: [String], environment: [String: String], mentions: [String])] = [
            (["check", "t1/hq.mov", "--report", "t1/hq.mov"], [:], ["--report", "t1/hq.mov", "input"]),
            (["check", "t1", "--html", "t1/lt.mov"], [:], ["--html", "t1/lt.mov", "input"]),
            (["check", "t1", "--html", "./t1/../t1/lt.mov", "-y"], [:], ["--html", "lt.mov", "input"]),
            (
                ["bench", "victim.mov", "--html", "victim.mov", "-y", "--frames", "1", "--decoders", "cpu"], [:],
                ["--html", "victim.mov"]
            ),
            (["plot", "self.jsonl", "-o", "self.jsonl", "-y"], [:], ["-o", "self.jsonl"]),
            (["info", "victim.mov"], ["PRORES_DECODE_TRACE": "victim.mov"], ["PRORES_DECODE_TRACE", "victim.mov"]),
            (
                ["victim.mov", "-o", "out.raw", "--framemd5", "./out.raw"], [:],
                ["-o 'out.raw'", "--framemd5 './out.raw'"]
            ),
            (
                ["check", "t1", "--report", "r.json", "--junit", "./r.json"], [:],
                ["--report 'r.json'", "--junit './r.json'"]
            ),
            (
                ["check", "t1", "--golden", "g.txt", "--write-golden", "./g.txt", "-y"], [:],
                ["--write-golden", "--golden"]
            ),
            (["victim.mov", "-o", "t1/../victim.mov", "-y"], [:], ["-o", "victim.mov"]),
            (
                [
                    "bench", "--whole-process", "--rounds", "1", "--html", "victim.mov", "-y", "--", "victim.mov",
                    "--frames", "1",
                ], [:],
                ["--html", "victim.mov", "timed command"]
            ),
            (
                [
                    "bench", "--whole-process", "--rounds", "1", "--html", "./victim.mov", "-y", "--compare",
                    "prores-decode victim.mov",
                    "--", "info", "t1/hq.mov",
                ], [:], ["--html", "victim.mov"]
            ),
            (["merge", "self.jsonl", "--report", "./self.jsonl", "-y"], [:], ["--report", "self.jsonl", "input"]),
            (
                ["merge", "self.jsonl", "--report", "r.json", "--junit", "./r.json"], [:],
                ["--report 'r.json'", "--junit './r.json'"]
            ),
        ]
        FileManager.default.createFile(
            atPath: directory.appendingPathComponent("g.txt").path, contents: Data("# golden\n".utf8))
        for (arguments, environment, mentions) in cases {
            let result = try runTool(arguments, environment: environment, in: directory)
            XCTAssertEqual(result.status, usage, "\(arguments): \(result.stderr)")
            assertSingleError(result, mentions: mentions, "\(arguments)")
            XCTAssertEqual(bytes("t1/hq.mov"), clip, "\(arguments): t1/hq.mov changed")
            XCTAssertEqual(bytes("victim.mov"), clip, "\(arguments): victim.mov changed")
            XCTAssertEqual(bytes("self.jsonl"), log, "\(arguments): self.jsonl changed")
            XCTAssertEqual(
                try entries(), ["g.txt", "self.jsonl", "t1", "victim.mov"], "\(arguments): nothing may be written")
            XCTAssertEqual(try entries("t1"), ["hq.mov", "lt.mov"], "\(arguments): nothing may be written in t1")
        }
    }

    /// A symlink or a hard link to the input is the input.
    func testALinkToTheInputIsTheInput() throws {
        let input = directory.appendingPathComponent("victim.mov").path
        XCTAssertEqual(symlink(input, directory.appendingPathComponent("soft.mov").path), 0)
        XCTAssertEqual(link(input, directory.appendingPathComponent("hard.mov").path), 0)
        for name in ["soft.mov", "hard.mov"] {
            let result = try runTool(["victim.mov", "-o", name, "-y"], in: directory)
            XCTAssertEqual(result.status, usage, result.stderr)
            assertSingleError(result, mentions: [name, "victim.mov"], name)
        }
        XCTAssertEqual(bytes("victim.mov"), FileManager.default.contents(atPath: Repo.fixture("hq.mov")))
    }

    /// A shell command line with the tool as `$T`, run in the test folder.
    private func runShell(_ script: String) throws -> ToolResult {
        try runTool(
            ["-c", "T=\"$0\"; " + script, Repo.executable.path], in: directory,
            executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// stdin, stdout and stderr are files like any other: redirected onto
    /// an input (or stdin read from the file an output replaces), the run
    /// is the usage error every other clash is, and the input keeps its bytes.
    func testStandardStreamsOnAnInputAreAUsageError() throws {
        let clip = bytes("victim.mov")
        let cases: [(script: String, mentions: [String])] = [
            ("\"$T\" victim.mov -o - -q 1<>victim.mov", ["stdout", "victim.mov"]),
            ("\"$T\" victim.mov --framemd5 - -q 1<>victim.mov", ["stdout", "victim.mov"]),
            ("\"$T\" info victim.mov 1<>victim.mov", ["stdout", "victim.mov"]),
            ("\"$T\" check victim.mov --report - 1<>victim.mov", ["stdout", "victim.mov"]),
            ("\"$T\" info victim.mov 1>>victim.mov", ["stdout", "victim.mov"]),
            ("\"$T\" - -o victim.mov -y -q < victim.mov", ["-o", "victim.mov", "stdin"]),
            ("\"$T\" - -o ./t1/../victim.mov -y -q < victim.mov", ["-o", "victim.mov", "stdin"]),
            ("\"$T\" check victim.mov --report r.json > r.json", ["stdout", "--report", "r.json"]),
        ]
        for (script, mentions) in cases {
            let result = try runShell(script)
            XCTAssertEqual(result.status, usage, "\(script): \(result.stderr)")
            assertSingleError(result, mentions: mentions, script)
            XCTAssertEqual(bytes("victim.mov"), clip, "\(script): victim.mov changed")
        }
        // stderr onto the input: refused, and its line goes nowhere rather than into the input.
        let result = try runShell("\"$T\" info victim.mov 2>>victim.mov")
        XCTAssertEqual(result.status, usage, result.stderr)
        XCTAssertEqual(bytes("victim.mov"), clip, "victim.mov changed")
    }

    /// `-o /dev/stdout` (or `/proc/self/fd/1`) is stdout: written in place,
    /// never renamed over. In a private mount namespace whose /dev can be
    /// written, a rename would replace the link and leave the file empty.
    func testAnOutputNamingStdoutIsWrittenThroughIt() throws {
        let expected = try runTool(["victim.mov", "-o", "-", "-q"], in: directory)
        XCTAssertEqual(expected.status, 0, expected.stderr)
        for name in ["/dev/stdout", "/proc/self/fd/1"] {
            let result = try runShell("\"$T\" victim.mov -o \(name) -y -q > out.raw")
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            XCTAssertEqual(bytes("out.raw"), expected.stdout, name)
        }
        guard access("/usr/bin/unshare", X_OK) == 0, getuid() == 0 else {
            throw XCTSkip("the mount-namespace half needs unshare and root")
        }
        let script =
            "unshare --mount sh -c 'mount -t tmpfs tmpfs /dev && ln -s /proc/self/fd/1 /dev/stdout"
            + " && mknod /dev/null c 1 3 && \"$0\" victim.mov -o /dev/stdout -y -q > ns.raw && readlink /dev/stdout >&2' \"$T\""
        let result = try runShell(script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(bytes("ns.raw"), expected.stdout, "the output must reach the file stdout names")
        XCTAssertTrue(result.stderr.contains("/proc/self/fd/1"), "/dev/stdout must stay a link: \(result.stderr)")
    }

    /// `--save DIR -y` never replaces an input that lives in DIR under a
    /// frame's name: the clip, or a LUT.
    func testSaveNeverReplacesAnInputInItsFolder() throws {
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("s"), withIntermediateDirectories: true)
        let lut = Data("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n".utf8)
        FileManager.default.createFile(
            atPath: directory.appendingPathComponent("s/frame-000001.exr").path, contents: lut)
        try copy("hq.mov", to: "s/frame-000000.png")
        let cases: [[String]] = [
            ["victim.mov", "--effect", "lut:s/frame-000001.exr", "--save", "s", "-y", "-q"],
            ["s/frame-000000.png", "--save", "s", "--save-format", "png", "-y", "-q"],
            ["s/frame-000000.png", "--save", "./s/", "--save-format", "png", "-y", "-q", "--frames", "1"],
        ]
        for arguments in cases {
            let result = try runTool(arguments, in: directory)
            XCTAssertEqual(result.status, usage, "\(arguments): \(result.stderr)")
            assertSingleError(result, mentions: ["--save", "frame-00000"], "\(arguments)")
            XCTAssertEqual(bytes("s/frame-000001.exr"), lut, "\(arguments): the LUT changed")
            XCTAssertEqual(
                bytes("s/frame-000000.png"), FileManager.default.contents(atPath: Repo.fixture("hq.mov")),
                "\(arguments)")
            XCTAssertEqual(
                try entries("s"), ["frame-000000.png", "frame-000001.exr"], "\(arguments): nothing may be written")
        }
    }

    /// `-o link -y` where link is a symlink to a regular file: the link
    /// stays, and the file it points to gets the output.
    func testAnOutputThroughASymlinkReplacesItsTarget() throws {
        FileManager.default.createFile(
            atPath: directory.appendingPathComponent("target.raw").path, contents: Data("old".utf8))
        XCTAssertEqual(symlink("target.raw", directory.appendingPathComponent("link.raw").path), 0)
        let expected = try runTool(["victim.mov", "-o", "-", "-q"], in: directory)
        let result = try runTool(["victim.mov", "-o", "link.raw", "-y", "-q"], in: directory)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(bytes("target.raw"), expected.stdout)
        let link = try FileManager.default.destinationOfSymbolicLink(
            atPath: directory.appendingPathComponent("link.raw").path)
        XCTAssertEqual(link, "target.raw")
    }

    /// Outputs to /dev/null share it harmlessly.
    func testOutputsMayShareTheNullDevice() throws {
        let result = try runTool(["victim.mov", "-o", "/dev/null", "--framemd5", "/dev/null", "-q"], in: directory)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// Two runs racing for one `-o` name with -n: exactly one wins, the
    /// other exits 6 and its bytes never land; the file is one run's whole.
    /// Each run is paced to one second so both are past their start-up
    /// check (the name is free) before either publishes.
    func testTwoRacingRunsWithNoOverwriteHaveExactlyOneWinner() throws {
        let reference = try runTool(["victim.mov", "-o", "reference.y4m", "-q"], in: directory)
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let arguments = ["victim.mov", "-o", "out.y4m", "-n", "-q", "--realtime", "--rate", "5"]
        let directory = self.directory
        let finished = Guarded<[ToolResult?]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = try? runTool(arguments, in: directory)
            finished.mutate { $0.append(result) }
        }
        let results = finished.value
        let statuses = results.map { $0?.status ?? -1 }.sorted()
        XCTAssertEqual(statuses, [0, outputFailed], results.map { $0?.stderr ?? "did not run" }.joined())
        if let loser = results.first(where: { $0?.status == outputFailed }) ?? nil {
            assertSingleError(loser, mentions: ["out.y4m", "already exists"], "the losing run")
        }
        XCTAssertEqual(bytes("out.y4m"), bytes("reference.y4m"), "the published file is one run's, whole")
        XCTAssertEqual(try entries(), ["out.y4m", "reference.y4m", "t1", "victim.mov"], "no temporary is left")
    }

    /// The temporary name is short: an output name of NAME_MAX (255) bytes works.
    func testAnOutputNameOfNameMaxBytesWorks() throws {
        let name = String(repeating: "n", count: 251) + ".raw"
        XCTAssertEqual(name.utf8.count, 255)
        let result = try runTool(
            ["victim.mov", "-o", name, "--framemd5", String(repeating: "m", count: 255), "-q"], in: directory)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try entries().filter { $0.count == 255 }.count, 2)
    }

    /// A missing parent directory is made, as --save and --previews make
    /// theirs; a run that fails takes the directories it made back.
    func testMissingParentDirectoriesAreMadeAndTakenBackOnFailure() throws {
        let made = try runTool(
            ["check", "t1", "--html", "qc/index.html", "--report", "qc/json/report.json"], in: directory)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try entries("qc"), ["index.html", "json"])
        XCTAssertEqual(try entries("qc/json"), ["report.json"])

        let decoded = try runTool(["victim.mov", "-o", "new/dir/out.raw", "-q"], in: directory)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        XCTAssertEqual(bytes("new/dir/out.raw"), try runTool(["victim.mov", "-o", "-", "-q"], in: directory).stdout)

        // Not ProRes: the run fails after opening its outputs.
        FileManager.default.createFile(
            atPath: directory.appendingPathComponent("text.mov").path, contents: Data("not a movie".utf8))
        let failed = try runTool(["text.mov", "-o", "gone/deeper/out.raw"], in: directory)
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("gone").path),
            "made directories are taken back")
    }

    /// The trace is an output like any other: a missing folder is made, and
    /// a refused command line writes none.
    func testTheTraceIsWrittenOnlyForACommandLineThatPassedTheRule() throws {
        let written = try runTool(
            ["info", "victim.mov"], environment: ["PRORES_DECODE_TRACE": "traces/info.json"], in: directory)
        XCTAssertEqual(written.status, 0, written.stderr)
        let trace = try XCTUnwrap(bytes("traces/info.json"))
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: trace) as? [String: Any])

        let refused = try runTool(
            ["victim.mov", "--bogus"], environment: ["PRORES_DECODE_TRACE": "victim.mov"], in: directory)
        XCTAssertEqual(refused.status, usage, refused.stderr)
        XCTAssertEqual(
            bytes("victim.mov"), FileManager.default.contents(atPath: Repo.fixture("hq.mov")),
            "a refused run writes no trace")
    }

    /// SIGINT or SIGTERM while outputs are being made: exit 9, and nothing
    /// of the run is left, neither a temporary, a staged frame or preview,
    /// a preview already made for an earlier file, nor a directory made for
    /// the outputs.
    func testSignalsLeaveNothingOfTheRunBehind() throws {
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("clips"), withIntermediateDirectories: true)
        // Far more than 3 s of checking on any machine: the signal always finds it running.
        for i in 0..<200 { try copy("hq.mov", to: "clips/c\(i).mov") }
        let runs: [(arguments: [String], after: Double, signal: Int32)] = [
            // A few files in, their previews made: those must go too.
            (["check", "clips", "--previews", "made/previews", "--html", "made/index.html", "--jobs", "1"], 3, SIGINT),
            (
                ["victim.mov", "-o", "made/out.y4m", "--framemd5", "made/sums/f.md5", "--realtime", "--rate", "5"], 0.6,
                SIGINT
            ),
            (["victim.mov", "--vulkan", "--save", "made/frames", "--realtime", "--rate", "5"], 0.6, SIGTERM),
            (
                [
                    "bench", "victim.mov", "--decoders", "cpu", "--frames", "1000000", "--html", "made/bench.html",
                    "--svg", "made/b.svg",
                ], 1, SIGINT
            ),
        ]
        for (arguments, delay, signal) in runs {
            let result = try XCTUnwrap(
                try runInterrupted(
                    arguments, after: delay, signal: signal, in: directory,
                    quiet: !["check", "bench"].contains(arguments[0])),
                "\(arguments): finished before its signal")
            XCTAssertEqual(result.reason, .exit, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.status, 9, "\(arguments): \(result.stderr)")
            XCTAssertEqual(try entries(), ["clips", "t1", "victim.mov"], "\(arguments): something of the run was left")
        }
    }

    /// Every command's stdout, to a full device and to a pipe whose reader
    /// has gone: exit 6 and one line naming stdout.
    func testEveryStdoutWriteIsChecked() throws {
        let commands: [[String]] = [
            ["info", "--json", "victim.mov"], ["info", "victim.mov"], ["info", "victim.mov", "t1/lt.mov"],
            ["devices", "--json"], ["devices"],
            ["bench", "--json", "--frames", "2", "--decoders", "cpu", "victim.mov"],
            ["bench", "--frames", "2", "--decoders", "cpu", "victim.mov"],
            ["victim.mov", "--json", "-q"], ["victim.mov", "-o", "-", "-q"], ["victim.mov", "--framemd5", "-", "-q"],
            ["check", "victim.mov", "--report", "-"], ["plot", "-", "-o", "-"], ["--version"], ["info", "--help"],
            ["victim.mov", "--framehash", "-", "-q"], ["victim.mov", "--timing", "-", "-q"],
            ["merge", "shard.json", "--report", "-"], ["merge", "shard.json", "--junit", "-"],
            ["roofline", "--json", "--frames", "8"],
            ["bench", "--whole-process", "--rounds", "1", "--json", "--", "info", "victim.mov"],
        ]
        let shard = try runTool(["check", "victim.mov", "--shard", "1/1", "--report", "shard.json"], in: directory)
        XCTAssertEqual(shard.status, 0, shard.stderr)
        let log = try timingLog()
        for arguments in commands {
            for target in [ToolStdout.deviceFull, .closedPipe] {
                let result = try runTool(
                    arguments, stdin: arguments.first == "plot" ? log : nil, in: directory, stdout: target)
                XCTAssertEqual(result.status, outputFailed, "\(arguments) \(target): \(result.stderr)")
                let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error:") }
                XCTAssertEqual(errors.count, 1, "\(arguments) \(target): \(result.stderr)")
                XCTAssertTrue(errors.first?.contains("stdout") == true, "\(arguments) \(target): \(result.stderr)")
            }
        }
    }

    /// play's summary (`--json`) on a private X server, to a full device
    /// and to a pipe whose reader has gone: exit 6, one line.
    func testPlaySummaryWriteIsChecked() throws {
        let xvfb = try XvfbServer(self)
        for target in [ToolStdout.deviceFull, .closedPipe] {
            let result = try runTool(
                ["play", "victim.mov", "--frames", "2", "--json"], environment: ["DISPLAY": xvfb.display],
                in: directory, stdout: target)
            XCTAssertEqual(result.status, outputFailed, "\(target): \(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error:") }
            XCTAssertEqual(errors.count, 1, "\(target): \(result.stderr)")
            XCTAssertTrue(errors.first?.contains("stdout") == true, "\(target): \(result.stderr)")
        }
    }

    /// A --timing log of victim.mov, for plot to read from stdin.
    private func timingLog() throws -> Data {
        let result = try runTool(["victim.mov", "--timing", "-", "-q"], in: directory)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }
}
