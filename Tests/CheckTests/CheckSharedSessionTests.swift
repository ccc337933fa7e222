import Foundation
import XCTest

@testable import ProResCheck
@testable import ProResCore
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// `check --decoder gpu` with consecutive files sharing one decode session
/// (the default; with more jobs than devices, a session per file): the
/// same report, golden file and statistics either way and as the CPU
/// decoder's, files really overlapped, and a file's timeout its own.
final class CheckSharedSessionTests: XCTestCase {
    /// The mixed directory with a second good and a second damaged copy, so
    /// that files of one format follow one another.
    private func directory() throws -> URL {
        let dir = try CheckFixtures.mixedDirectory(self)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent("good/hq-copy.mov").path)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("bad/corrupt-slice.mov"),
            toPath: dir.appendingPathComponent("bad/corrupt-slice-copy.mov").path)
        return dir
    }

    func testASharedSessionGivesTheSameReportAsOnePerFileAndTheCPU() throws {
        let dir = try directory()
        let out = try makeTemporaryDirectory(self)
        var stderr: [String] = []
        var reports: [String] = []
        var goldens: [String] = []
        for (name, decoder, jobs) in [("shared", "gpu", "1"), ("per-file", "gpu", "2"), ("cpu", "cpu", "1")] {
            let golden = out.appendingPathComponent("\(name).golden")
            let report = out.appendingPathComponent("\(name).json")
            let result = try runTool(
                [
                    "check", dir.path, "--decoder", decoder, "--threads", "1", "--jobs", jobs, "--write-golden",
                    golden.path,
                    "--report", report.path,
                ], timeout: 300)
            XCTAssertEqual(result.status, 10, "\(name): some files fail; stderr:\n\(result.stderr)")
            stderr.append(CheckFixtures.normalise(result.stderr, directory: dir))
            reports.append(CheckFixtures.normalise(try String(contentsOf: report, encoding: .utf8), directory: dir))
            goldens.append(CheckFixtures.goldenHashes(try String(contentsOf: golden, encoding: .utf8)))
        }
        XCTAssertEqual(stderr[0], stderr[1], "the report lines differ with a session per file")
        XCTAssertEqual(reports[0], reports[1], "the JSON report differs with a session per file")
        XCTAssertEqual(goldens[0], goldens[1], "the golden file differs with a session per file")
        XCTAssertEqual(goldens[0], goldens[2], "the golden file differs from the CPU decoder's")
        XCTAssertGreaterThan(goldens[0].split(separator: "\n").count, 10)
        // Against the CPU: the same verdict for each file, the same frames in
        // trouble and the same statistics (damaged frames' words differ).
        let shared = try CheckFixtures.files(Data(reports[0].utf8))
        let cpu = try CheckFixtures.files(Data(reports[2].utf8))
        XCTAssertEqual(shared.map { $0["key"] as? String }, cpu.map { $0["key"] as? String })
        for (gpu, cpu) in zip(shared, cpu) {
            let path = cpu["key"] as! String
            XCTAssertEqual(gpu["status"] as? String, cpu["status"] as? String, path)
            XCTAssertEqual(gpu["frames"] as? Int, cpu["frames"] as? Int, path)
            let frames = { (r: [String: Any]) in (r["errors"] as! [[String: Any]]).map { $0["frame"] as? Int } }
            XCTAssertEqual(frames(gpu), frames(cpu), path)
            XCTAssertTrue(try FrameTools.statistics(cpu["stats"], equal: gpu["stats"]), path)
        }
        let verdicts = { (text: String) in
            text.split(separator: "\n").map { $0.split(separator: ":")[0] }.filter { !$0.hasPrefix("prores-decode") }
        }
        XCTAssertEqual(verdicts(stderr[0]), verdicts(stderr[2]))
    }

    /// Several small files of one format on one device: each later file's
    /// stream was queued while the one before was still in the session (the
    /// overlap the shared session exists for), and the verdicts and hashes
    /// equal those of a session per file.
    func testConsecutiveFilesOverlapOnTheDevice() throws {
        let dir = try makeTemporaryDirectory(self)
        for n in 0..<6 {
            try FileManager.default.copyItem(
                atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent("hq\(n).mov").path)
        }
        let inputs = CheckInputExpander.expand([dir.path])
        XCTAssertEqual(inputs.count, 6)
        var hashes: [[String]] = []
        for shares in [true, false] {
            var options = CheckOptions(threadsPerFile: 1, decoder: .init(choice: .gpu, validation: true))
            options.sharesDecodeSessions = shares
            let batch = BatchCheck(inputs: inputs, options: options)
            var delivered: [String] = []
            batch.onResult = { delivered.append($0.input.key) }
            let results = try batch.run()
            XCTAssertEqual(results.map(\.status), Array(repeating: .pass, count: 6), "shared: \(shares)")
            XCTAssertEqual(delivered, inputs.map(\.key), "results in list order")
            hashes.append(results.flatMap { $0.hashes.map(\.hash) })
            let statistics = batch.sharedSessionStatistics
            if shares {
                XCTAssertEqual(statistics.streams, 6)
                XCTAssertGreaterThan(
                    statistics.overlapped, 0, "no file was queued behind the one before: \(statistics)")
            } else {
                XCTAssertEqual(statistics, .init())
            }
            XCTAssertEqual(batch.devices.first?.context.validation?.messages ?? [], [])
        }
        XCTAssertEqual(hashes[0], hashes[1])
        XCTAssertEqual(hashes[0].count, 30)
    }

    /// Files of two kinds in turn: each switch makes the next kind's lane
    /// while the last one closes on a thread of its own, and every file's
    /// verdict and hashes still equal those of a session per file and of
    /// the CPU decoder (FFmpeg's frames, hashed on the host); all six
    /// streams are counted once every lane has closed.
    func testFilesOfTwoKindsTakeTurnsOnLanes() throws {
        let dir = try makeTemporaryDirectory(self)
        for n in 0..<6 {
            try FileManager.default.copyItem(
                atPath: Repo.fixture(n.isMultiple(of: 2) ? "hq.mov" : "4444.mov"),
                toPath: dir.appendingPathComponent("f\(n).mov").path)
        }
        let inputs = CheckInputExpander.expand([dir.path])
        var hashes: [[String]] = []
        for shares in [true, false] {
            var options = CheckOptions(threadsPerFile: 1, decoder: .init(choice: .gpu, validation: true))
            options.sharesDecodeSessions = shares
            let batch = BatchCheck(inputs: inputs, options: options)
            let results = try batch.run()
            XCTAssertEqual(results.map(\.status), Array(repeating: .pass, count: 6), "shared: \(shares)")
            hashes.append(results.flatMap { $0.hashes.map(\.hash) })
            XCTAssertEqual(batch.sharedSessionStatistics.streams, shares ? 6 : 0)
            XCTAssertEqual(batch.devices.first?.context.validation?.messages ?? [], [])
        }
        XCTAssertEqual(hashes[0], hashes[1])
        XCTAssertFalse(hashes[0].isEmpty)
        let cpu = try BatchCheck(inputs: inputs, options: CheckOptions(threadsPerFile: 1, decoder: .init(choice: .cpu)))
            .run()
        XCTAssertEqual(cpu.map(\.status), Array(repeating: .pass, count: 6), "cpu")
        XCTAssertEqual(
            cpu.flatMap { $0.hashes.map(\.hash) }, hashes[0], "the GPU's hashes differ from the CPU decoder's")
    }

    /// The shared session fails as a device error would, under the third
    /// file (and the second, if its frames were still in it): those files are
    /// checked again alone, and every verdict and hash is as without it.
    func testAFailedSharedSessionBlamesNoFile() throws {
        struct DeviceLost: Error, CustomStringConvertible { var description: String { "device lost" } }
        let dir = try makeTemporaryDirectory(self)
        for n in 0..<5 {
            try FileManager.default.copyItem(
                atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent("hq\(n).mov").path)
        }
        let inputs = CheckInputExpander.expand([dir.path])
        var hashes: [[String]] = []
        for fails in [false, true] {
            let batch = BatchCheck(
                inputs: inputs, options: CheckOptions(threadsPerFile: 1, decoder: .init(choice: .gpu)))
            // Streams open one at a time (under the lanes' lock).
            var opened = 0
            if fails {
                batch.sharedStreamOpened = { stream in
                    opened += 1
                    if opened == 3 { stream.lane.fail(DeviceLost()) }
                }
            }
            let results = try batch.run()
            XCTAssertEqual(
                results.map(\.status), Array(repeating: .pass, count: 5), results.map(\.problems).description)
            hashes.append(results.flatMap { $0.hashes.map(\.hash) })
            if fails { XCTAssertGreaterThanOrEqual(opened, 3) }
            // The third file at least (the second too, if its frames were still in the session) is checked again alone.
            XCTAssertTrue(
                fails ? (1...2).contains(batch.filesCheckedAgain) : batch.filesCheckedAgain == 0,
                "\(batch.filesCheckedAgain) checked again")
        }
        XCTAssertEqual(hashes[1], hashes[0])
    }

    /// A long file stopped by its timer while the next file waits behind it
    /// in the shared session: the long one times out, the next passes.
    func testATimeoutStopsOnlyTheSlowFile() throws {
        let dir = try makeTemporaryDirectory(self)
        let once = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        let long = dir.appendingPathComponent("a-long.prores")
        try Data((0..<1000).flatMap { _ in once }).write(to: long)
        for name in ["b.mov", "c.mov"] {
            try FileManager.default.copyItem(
                atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent(name).path)
        }
        let started = Date()
        let result = try runTool(["check", dir.path, "--decoder", "gpu", "--timeout", "3"], timeout: 120)
        XCTAssertLessThan(Date().timeIntervalSince(started), 40)
        XCTAssertEqual(result.status, 11, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("ERROR \(long.path): timed out after 3 s") ?? false, result.stderr)
        XCTAssertTrue(lines.contains("PASS \(dir.path)/b.mov"), result.stderr)
        XCTAssertTrue(lines.contains("PASS \(dir.path)/c.mov"), result.stderr)
    }

    /// With more jobs than devices each file has a session of its own, and
    /// the device's queue runs their batches in order: a short file whose
    /// batch waits behind a long file's batches (seconds each on lavapipe)
    /// spends that time on the other file's work, and its clock leaves it out.
    func testAShortFileQueuedBehindALongOneKeepsItsOwnTimeout() throws {
        let dir = try makeTemporaryDirectory(self)
        let long = dir.appendingPathComponent("a-long.mov").path
        let made = try runProgram(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25", "-frames:v", "24",
                "-c:v", "prores_ks", "-profile:v", "hq", "-pix_fmt", "yuv422p10le", long,
            ], timeout: 120)
        XCTAssertEqual(made.status, 0, made.stderr)
        let short = dir.appendingPathComponent("b-short.mov").path
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: short)
        let started = Date()
        let result = try runTool(
            ["check", long, short, "--decoder", "gpu", "--jobs", "2", "--timeout", "2"], timeout: 240)
        let took = Date().timeIntervalSince(started)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("PASS \(short)"), result.stderr)
        // The device was busy with the long file for longer than the timeout:
        // the short file's batch shared the queue with it for that long.
        XCTAssertGreaterThan(took, 2.5, result.stderr)
    }
}
