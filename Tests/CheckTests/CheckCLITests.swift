import Foundation
import XCTest

@testable import TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `prores-decode check` run as a process: reports against checked-in
/// snapshots (Fixtures/check/), exit codes, determinism under --jobs,
/// sharding, golden files, timeouts, interrupts and usage errors.
final class CheckCLITests: XCTestCase {

    // MARK: - The mixed directory

    /// Good clips, the bad corpus, an elementary stream in a subdirectory and
    /// a hidden file: the report, the JUnit XML and stderr match their
    /// snapshots; exit 10 (some files failed).
    func testMixedDirectoryMatchesSnapshots() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let report = out.appendingPathComponent("report.json")
        let junit = out.appendingPathComponent("junit.xml")
        let result = try runTool([
            "check", dir.path, "--report", report.path, "--junit", junit.path, "--expect", "profile=hq", "--policy",
            "default",
        ])
        XCTAssertEqual(result.reason, .exit)
        XCTAssertEqual(result.status, 10, "some files failed: exit 10; stderr:\n\(result.stderr)")
        XCTAssertTrue(result.stdout.isEmpty, "stdout carries data only")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["junit.xml", "report.json"],
            "exactly the two reports, no temporaries")

        let reportText = try String(contentsOf: report, encoding: .utf8)
        try CheckFixtures.assertSnapshot(CheckFixtures.normalise(reportText, directory: dir), "mixed.report.json")
        try CheckFixtures.assertSnapshot(
            CheckFixtures.normalise(try String(contentsOf: junit, encoding: .utf8), directory: dir), "mixed.junit.xml")
        try CheckFixtures.assertSnapshot(CheckFixtures.normalise(result.stderr, directory: dir), "mixed.stderr.txt")

        // Independently of the snapshots: valid JSON in path order, the
        // hidden file skipped, valid XML with one testcase per file.
        let files = try CheckFixtures.files(Data(reportText.utf8))
        let paths = files.compactMap { $0["path"] as? String }
        XCTAssertEqual(
            paths, paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "files must be in path order")
        XCTAssertEqual(paths.count, CheckFixtures.good.count + CheckFixtures.bad.count + 1)
        XCTAssertFalse(paths.contains { $0.contains(".hidden") }, "hidden files are skipped")
        let statuses = Dictionary(uniqueKeysWithValues: files.map { ($0["key"] as! String, $0["status"] as! String) })
        XCTAssertEqual(
            statuses,
            [
                // Test patterns: their chroma leaves the video range (12% of
                // the samples), and pq.mov has no HDR metadata.
                "good/hq.mov": "warn", "good/pq.mov": "warn", "good/interlaced-tff.mov": "warn",
                "sub/hq.prores": "fail",
                "good/4444.mov": "fail", "bad/corrupt-slice.mov": "fail", "bad/bad-header.mov": "fail",
                "bad/truncated-faststart.mov": "fail", "bad/empty.mov": "error", "bad/random.bin": "error",
                "bad/h264.mp4": "error", "bad/text.mov": "error",
            ])
        let xml = JUnitShape(try Data(contentsOf: junit))
        XCTAssertTrue(xml.wellFormed, "the JUnit report is not well-formed XML")
        XCTAssertEqual(xml.suites, ["prores-decode check"])
        XCTAssertEqual(xml.testcases, paths, "one testcase per file, in the same order")
        XCTAssertEqual(xml.failures, 5)
        XCTAssertEqual(xml.errors, 4)
    }

    /// `--jobs 2` and `--jobs 5` report exactly what `--jobs 1` reports, in
    /// the same order (open failures are re-opened alone, so their FFmpeg
    /// quote is their own).
    func testJobsDoNotChangeTheReports() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        var outputs: [String] = []
        for jobs in ["1", "2", "5"] {
            let out = try makeTemporaryDirectory(self)
            let report = out.appendingPathComponent("r.json")
            let junit = out.appendingPathComponent("j.xml")
            let result = try runTool([
                "check", dir.path, "--jobs", jobs, "--threads", "1", "--report", report.path, "--junit", junit.path,
            ])
            XCTAssertEqual(result.status, 10, "--jobs \(jobs): stderr:\n\(result.stderr)")
            outputs.append(
                CheckFixtures.normalise(
                    try String(contentsOf: report, encoding: .utf8) + String(contentsOf: junit, encoding: .utf8)
                        + result.stderr, directory: dir))
        }
        XCTAssertEqual(outputs[1], outputs[0], "--jobs 2 changed the reports")
        XCTAssertEqual(outputs[2], outputs[0], "--jobs 5 changed the reports")
    }

    // MARK: - Sharding

    func testShardsFollowTheKeysSHA256() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let all = try reportFiles(["check", dir.path, "--threads", "1"]).map {
            ($0["path"] as! String, $0["key"] as! String)
        }
        XCTAssertEqual(all.count, 12)
        for count in [1, 2, 3, 5, 13] {
            let expected = try SHA256Sum.shards(keys: all.map(\.1), count: count)
            var seen: [String] = []
            for index in 1...count {
                let shard = try reportFiles(["check", dir.path, "--shard", "\(index)/\(count)", "--threads", "1"]).map {
                    $0["path"] as! String
                }
                XCTAssertEqual(
                    shard, zip(all, expected).filter { $0.1 == index }.map(\.0.0),
                    "shard \(index)/\(count) must hold the files whose key's SHA-256 is \(index - 1) mod \(count), in order"
                )
                seen += shard
            }
            XCTAssertEqual(
                seen.sorted(), all.map(\.0).sorted(), "shards of \(count) must cover every file exactly once")
        }
    }

    func testShardAutoSaysWhereItCameFrom() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let result = try runTool(
            ["check", dir.path, "--shard", "auto", "--threads", "1", "--report", "-"],
            environment: ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"])
        XCTAssertTrue(
            result.stderr.contains("check: shard 2/3 from GitLab CI (CI_NODE_INDEX=2, CI_NODE_TOTAL=3)"), result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let run = try XCTUnwrap(object["run"] as? [String: Any])
        XCTAssertEqual(run["shard_index"] as? Int, 2)
        XCTAssertEqual(run["shard_count"] as? Int, 3)
        XCTAssertEqual(run["shard_source"] as? String, "GitLab CI (CI_NODE_INDEX=2, CI_NODE_TOTAL=3)")
        XCTAssertEqual(run["inputs"] as? Int, 12)
        // The matrix's own variables: used, and so never called unknown.
        let matrix = try runTool(
            ["check", dir.path, "--shard", "auto", "--threads", "1"],
            environment: ["PRORES_DECODE_SHARD_INDEX": "0", "PRORES_DECODE_SHARD_TOTAL": "2"])
        XCTAssertTrue(matrix.stderr.contains("check: shard 1/2 from PRORES_DECODE_SHARD_INDEX"), matrix.stderr)
        XCTAssertFalse(matrix.stderr.contains("unknown setting"), matrix.stderr)
        // The engines' variables of the machine running the tests would answer instead.
        let engines = [
            "PRORES_DECODE_SHARD_INDEX", "CI_NODE_INDEX", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
            "AWS_BATCH_JOB_ARRAY_INDEX",
        ]
        guard !ProcessInfo.processInfo.environment.keys.contains(where: engines.contains) else { return }
        let none = try runTool(["check", dir.path, "--shard", "auto"])
        XCTAssertEqual(none.status, 2, none.stderr)
        XCTAssertTrue(none.stderr.contains("--shard auto found none of"), none.stderr)
    }

    func testListNamesFilesAndURLsByteForByte() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let odd = dir.appendingPathComponent("good").path + "/odd[1]?.mov"
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: odd)
        let nonUTF8 =
            Array(dir.appendingPathComponent("good").path.utf8) + Array("/clip".utf8) + [0xFF] + Array(".mov".utf8)
        XCTAssertEqual(
            nonUTF8.withUnsafeBufferPointer { bytes -> Int32 in
                let name = bytes.map { CChar(bitPattern: $0) } + [0]
                return Repo.fixture("hq.mov").withCString { source in
                    guard let from = fopen(source, "rb"), let to = fopen(name, "wb") else { return -1 }
                    defer {
                        fclose(from)
                        fclose(to)
                    }
                    var buffer = [UInt8](repeating: 0, count: 1 << 16)
                    while true {
                        let n = fread(&buffer, 1, buffer.count, from)
                        if n == 0 { break }
                        fwrite(buffer, 1, n, to)
                    }
                    return 0
                }
            }, 0)
        var list = Data("# clips to check\n\n".utf8)
        list += Data((dir.appendingPathComponent("good/hq.mov").path + "\n").utf8)
        list += Data((odd + "\r\n").utf8)
        list += Data(nonUTF8 + [0x0A])
        list += Data((dir.appendingPathComponent("bad/missing.mov").path + "\n").utf8)
        let listFile = dir.appendingPathComponent("list.txt")
        try list.write(to: listFile)
        for source in [listFile.path, "-"] {
            let result = try runTool(
                ["check", "--list", source, "--threads", "1", "--report", "-"], stdin: source == "-" ? list : nil)
            XCTAssertEqual(result.status, 11, result.stderr)
            let files = try CheckFixtures.files(result.stdout)
            XCTAssertEqual(files.map { $0["status"] as! String }, ["error", "pass", "pass", "pass"], result.stderr)
            XCTAssertEqual(
                files.map { $0["key"] as! String }.sorted(),
                [
                    dir.appendingPathComponent("bad/missing.mov").path,
                    dir.appendingPathComponent("good").path + "/clip\\xFF.mov",
                    dir.appendingPathComponent("good/hq.mov").path, odd,
                ].sorted())
        }
    }

    func testAnEmptyListIsAnErrorNotAPass() throws {
        let result = try runTool(["check", "--list", "-", "--report", "-"], stdin: Data("# nothing today\n\n".utf8))
        XCTAssertEqual(result.status, 11, result.stderr)
        XCTAssertTrue(result.stderr.contains("ERROR stdin: cannot read: the --list names no files"), result.stderr)
    }

    func testListThatIsNotAFileIsRefusedInOneLine() throws {
        let dir = try makeTemporaryDirectory(self)
        for (list, words) in [
            (dir.path, "a directory, not a file of paths"), ("/dev/zero", "a device, not a file of paths"),
            (dir.appendingPathComponent("none.txt").path, "no such file"),
        ] {
            let result = try runTool(["check", "--list", list])
            XCTAssertEqual(result.status, 3, result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
        }
        let big = dir.appendingPathComponent("big.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)
        try handle.close()
        let result = try runTool(["check", "--list", big.path])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("larger than 64 MiB"), result.stderr)
    }

    func testEmptyShardPasses() throws {
        // The key of a file named on the command line is the path as written, so which of two
        // shards holds it depends on where the checkout lives: sha256sum says which one does.
        let path = Repo.fixture("hq.mov")
        let digest = try FrameTools.runProcess("/bin/sh", ["-c", "printf %s \"$0\" | sha256sum", path])
        let first16 = String(String(decoding: digest, as: UTF8.self).prefix(16))
        let owner = Int(UInt64(first16, radix: 16)! % 2) + 1
        let other = 3 - owner
        let empty = try runTool(["check", path, "--shard", "\(other)/2"])
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("shard \(other)/2 holds no files"), empty.stderr)
        let full = try runTool(["check", path, "--shard", "\(owner)/2"])
        XCTAssertEqual(full.status, 0, full.stderr)
        XCTAssertTrue(full.stderr.contains("1 passed"), full.stderr)
    }

    // MARK: - Golden files

    func testGoldenWriteThenMatchThenMismatch() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for (from, to) in [("hq.mov", "hq.mov"), ("lt.mov", "lt.mov"), ("4444.mov", "sub/4444.mov")] {
            try fm.copyItem(atPath: Repo.fixture(from), toPath: dir.appendingPathComponent(to).path)
        }
        let golden = out.appendingPathComponent("golden.txt")
        let write = try runTool(["check", dir.path, "--write-golden", golden.path])
        XCTAssertEqual(write.status, 0, write.stderr)

        // The hashes are b3sum's of the ffmpeg CLI's frames.
        let lines = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        var byKey: [String: [String]] = [:]
        for line in lines {
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            XCTAssertEqual(Int(fields[0]), byKey[fields[2], default: []].count, "frames in order, from 0")
            byKey[fields[2], default: []].append(fields[1])
        }
        XCTAssertEqual(
            byKey,
            [
                "hq.mov": try ffmpegFrameBLAKE3s("hq.mov"), "lt.mov": try ffmpegFrameBLAKE3s("lt.mov"),
                "sub/4444.mov": try ffmpegFrameBLAKE3s("4444.mov"),
            ])

        let match = try runTool([
            "check", dir.path, "--golden", golden.path, "--report", out.appendingPathComponent("match.json").path,
        ])
        XCTAssertEqual(match.status, 0, match.stderr)
        let matched = try CheckFixtures.files(Data(contentsOf: out.appendingPathComponent("match.json")))
        XCTAssertEqual(matched.count, 3)
        for file in matched {
            XCTAssertEqual((file["golden"] as? [String: Any])?["result"] as? String, "match", "\(file["path"]!)")
        }

        // Another clip under the same name, and a clip the golden file lacks.
        try fm.removeItem(at: dir.appendingPathComponent("hq.mov"))
        try fm.copyItem(atPath: Repo.fixture("aw-hq.mov"), toPath: dir.appendingPathComponent("hq.mov").path)
        try fm.copyItem(atPath: Repo.fixture("proxy.mov"), toPath: dir.appendingPathComponent("new.mov").path)
        let report = out.appendingPathComponent("mismatch.json")
        let mismatch = try runTool(["check", dir.path, "--golden", golden.path, "--report", report.path])
        XCTAssertEqual(mismatch.status, 10, mismatch.stderr)
        let lineFor = { (name: String) in
            mismatch.stderr.split(separator: "\n").first { $0.contains("/\(name)") }.map(String.init) ?? ""
        }
        XCTAssertTrue(
            lineFor("hq.mov").hasPrefix("FAIL ") && lineFor("hq.mov").contains("golden mismatch at frame 0"),
            lineFor("hq.mov"))
        XCTAssertTrue(
            lineFor("new.mov").hasPrefix("FAIL ") && lineFor("new.mov").contains("not in the golden file"),
            lineFor("new.mov"))
        XCTAssertTrue(lineFor("lt.mov").hasPrefix("PASS "), lineFor("lt.mov"))
        let files = try CheckFixtures.files(Data(contentsOf: report))
        let hq = try XCTUnwrap(files.first { $0["key"] as? String == "hq.mov" })
        let verdict = try XCTUnwrap(hq["golden"] as? [String: Any])
        XCTAssertEqual(verdict["result"] as? String, "mismatch")
        XCTAssertEqual(verdict["frame"] as? Int, 0)
        XCTAssertTrue(
            (verdict["reason"] as? String)?.contains(try ffmpegFrameBLAKE3s("hq.mov")[0]) ?? false,
            "the reason quotes the golden hash")
    }

    func testGoldenLeavesOutFilesThatDidNotDecodeCleanly() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = try makeTemporaryDirectory(self)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent("hq.mov").path)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("bad/corrupt-slice.mov"), toPath: dir.appendingPathComponent("corrupt.mov").path)
        let golden = out.appendingPathComponent("golden.txt")
        let result = try runTool(["check", dir.path, "--write-golden", golden.path])
        XCTAssertEqual(result.status, 10, result.stderr)
        let text = try String(contentsOf: golden, encoding: .utf8)
        XCTAssertFalse(text.contains("corrupt.mov"), "a damaged file must not become golden:\n\(text)")
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasSuffix(" hq.mov") && !$0.hasPrefix("#") }.count, 5)
        XCTAssertTrue(
            result.stderr.contains("not in the golden file") && result.stderr.contains("corrupt.mov"), result.stderr)
    }

    // MARK: - Statistics through the CLI

    /// An elementary stream whose first three frames are the same picture:
    /// frames 1 and 2 are frozen, nothing else is.
    func testFrozenFrames() throws {
        let frames = try CheckFixtures.elementaryFrames()
        XCTAssertEqual(frames.count, 5)
        let dir = try makeTemporaryDirectory(self)
        let clip = dir.appendingPathComponent("frozen.prores")
        try (frames[0] + frames[0] + frames[0] + frames[1] + frames[2]).write(to: clip)
        let file = try XCTUnwrap(try reportFiles(["check", clip.path]).first)
        XCTAssertEqual(file["status"] as? String, "pass")
        let stats = try XCTUnwrap(file["stats"] as? [String: Any])
        let frozen = try XCTUnwrap(stats["frozen_frames"] as? [String: Any])
        XCTAssertEqual(frozen["count"] as? Int, 2)
        XCTAssertEqual(frozen["ranges"] as? [[Int]], [[1, 2]])
        XCTAssertEqual((stats["black_frames"] as? [String: Any])?["count"] as? Int, 0, "testsrc2 is never black")
    }

    /// A damaged frame's concealed slices hold whatever the pooled surface
    /// held before, so it is left out of the statistics: they are the same
    /// on every run, and equal those of hq.mov's other four frames.
    func testDamagedFramesAreLeftOutOfTheStatistics() throws {
        var seen = Set<String>()
        for _ in 0..<4 {
            let file = try XCTUnwrap(try reportFiles(["check", Repo.fixture("bad/corrupt-slice.mov")]).first)
            XCTAssertEqual(file["frames"] as? Int, 5, "all five frames are decoded")
            let stats = try XCTUnwrap(file["stats"] as? [String: Any])
            XCTAssertEqual(stats["frames"] as? Int, 4, "frame 2 is damaged and not measured")
            let luma = try XCTUnwrap(stats["luma"] as? [String: Any])
            seen.insert("\(luma["min"] ?? "") \(luma["mean"] ?? "") \(luma["max"] ?? "")")
        }
        XCTAssertEqual(seen.count, 1, "statistics must not vary between runs: \(seen)")
    }

    /// Luma and alpha statistics against the same numbers computed here from
    /// the raw native frames (themselves checked against ffmpeg's md5s).
    func testStatisticsMatchTheRawFrames() throws {
        for (clip, depth, planes) in [("hq.mov", 10, 3), ("4444.mov", 12, 4), ("odd-size-444.mov", 12, 4)] {
            let dir = try makeTemporaryDirectory(self)
            let raw = dir.appendingPathComponent("raw")
            XCTAssertEqual(try runTool([Repo.fixture(clip), "--format", "native", "-o", raw.path]).status, 0)
            let bytes = try Data(contentsOf: raw)
            let file = try XCTUnwrap(try reportFiles(["check", Repo.fixture(clip)]).first)
            let format = try XCTUnwrap(file["format"] as? [String: Any])
            let width = format["width"] as! Int
            let height = format["height"] as! Int
            let plane = width * height * 2
            let frameSize = planes == 4 ? 4 * plane : plane + 2 * ((width + 1) / 2) * height * 2
            XCTAssertEqual(bytes.count, 5 * frameSize, clip)
            let frameMD5s = (0..<5).map { CLITestMD5.hex(bytes[($0 * frameSize)..<(($0 + 1) * frameSize)]) }
            XCTAssertEqual(frameMD5s, try ffmpegFrameMD5s(clip), "\(clip): raw frames must be ffmpeg's")

            func samples(_ frame: Int, _ offset: Int) -> [Int] {
                let start = frame * frameSize + offset
                return stride(from: start, to: start + plane, by: 2).map { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 }
            }
            let luma = (0..<5).flatMap { samples($0, 0) }
            let stats = try XCTUnwrap(file["stats"] as? [String: Any])
            let lumaStats = try XCTUnwrap(stats["luma"] as? [String: Any])
            XCTAssertEqual(lumaStats["min"] as? Int, luma.min(), clip)
            XCTAssertEqual(lumaStats["max"] as? Int, luma.max(), clip)
            XCTAssertEqual(
                lumaStats["mean"] as? Double ?? -1, Double(luma.reduce(0, +)) / Double(luma.count), accuracy: 0.005,
                clip)
            if planes == 4 {
                let alpha = (0..<5).flatMap { samples($0, 3 * plane) }
                let opaque = (1 << depth) - 1
                let alphaStats = try XCTUnwrap(stats["alpha"] as? [String: Any], clip)
                XCTAssertEqual(
                    alphaStats["transparent_fraction"] as? Double ?? -1,
                    Double(alpha.filter { $0 == 0 }.count) / Double(alpha.count), accuracy: 0.00005, clip)
                XCTAssertEqual(
                    alphaStats["opaque_fraction"] as? Double ?? -1,
                    Double(alpha.filter { $0 == opaque }.count) / Double(alpha.count), accuracy: 0.00005, clip)
                // Top quarter opaque, second quarter transparent, a gradient below (Fixtures/README.md).
                XCTAssertEqual(alphaStats["partial_frames"] as? Int, 5, clip)
            } else {
                XCTAssertTrue(stats["alpha"] is NSNull, "\(clip) has no alpha")
            }
        }
    }

    /// pq.mov's light level against ST 2084 and BT.2020 written out here,
    /// on the same 4×4 grid, from the raw native frames.
    func testPQLightLevelMatchesAnIndependentFormula() throws {
        func pq(_ e: Double) -> Double {
            let m1 = 0.1593017578125
            let m2 = 78.84375
            let c1 = 0.8359375
            let c2 = 18.8515625
            let c3 = 18.6875
            let p = pow(min(max(e, 0), 1), 1 / m2)
            return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
        }
        try assertLightLevel("pq.mov") { r, g, b in max(pq(r), pq(g), pq(b)) }
        let sdr = try XCTUnwrap(try reportFiles(["check", Repo.fixture("bt709.mov")]).first)
        XCTAssertTrue((sdr["stats"] as? [String: Any])?["light"] is NSNull, "no light level for SDR")
    }

    /// hlg.mov's light level against BT.2100's HLG written out here: the
    /// inverse OETF to scene light, then the OOTF of a 1000-nit display
    /// (γ 1.2, black at 0 nits), the largest of R, G and B.
    func testHLGLightLevelMatchesAnIndependentFormula() throws {
        let a = 0.17883277
        let b = 1 - 4 * 0.17883277
        let c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        func scene(_ e: Double) -> Double {
            let e = min(max(e, 0), 1)
            return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
        }
        try assertLightLevel("hlg.mov") { r, g, bl in
            let (sr, sg, sb) = (scene(r), scene(g), scene(bl))
            let ys = 0.2627 * sr + 0.6780 * sg + 0.0593 * sb
            let gain = 1000 * pow(ys, 1.2 - 1)
            return max(gain * sr, gain * sg, gain * sb)
        }
    }

    /// `check`'s light level of a 192x112 4:2:2 10-bit BT.2020 clip against
    /// `light(R', G', B')` of every 4th pixel of every 4th row, from its raw
    /// native frames: the peak, and the largest frame average.
    private func assertLightLevel(
        _ clip: String, _ light: (Double, Double, Double) -> Double,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let dir = try makeTemporaryDirectory(self)
        let raw = dir.appendingPathComponent("raw")
        XCTAssertEqual(
            try runTool([Repo.fixture(clip), "--format", "native", "-o", raw.path]).status, 0, file: file, line: line)
        let bytes = try Data(contentsOf: raw)
        let (w, h) = (192, 112)
        let frameSize = w * h * 2 + 2 * (w / 2) * h * 2
        XCTAssertEqual(bytes.count, 5 * frameSize, clip, file: file, line: line)
        func sample(_ offset: Int) -> Double { Double(Int(bytes[offset]) | Int(bytes[offset + 1]) << 8) }
        var peak = 0.0
        var peakAverage = 0.0
        for frame in 0..<5 {
            var total = 0.0
            var count = 0
            for y in stride(from: 0, to: h, by: 4) {
                for x in stride(from: 0, to: w, by: 4) {
                    let base = frame * frameSize
                    let luma = (sample(base + 2 * (y * w + x)) - 64) / 876
                    let cb = (sample(base + w * h * 2 + 2 * (y * w / 2 + x / 2)) - 512) / 896
                    let cr = (sample(base + w * h * 2 + (w / 2) * h * 2 + 2 * (y * w / 2 + x / 2)) - 512) / 896
                    // BT.2020 non-constant luminance: Kr 0.2627, Kb 0.0593.
                    let r = luma + 1.4746 * cr
                    let b = luma + 1.8814 * cb
                    let g = (luma - 0.2627 * r - 0.0593 * b) / 0.678
                    let value = light(r, g, b)
                    peak = max(peak, value)
                    total += value
                    count += 1
                }
            }
            peakAverage = max(peakAverage, total / Double(count))
        }
        XCTAssertGreaterThan(peak, 10, "\(clip): a picture, not black", file: file, line: line)
        let report = try XCTUnwrap(try reportFiles(["check", Repo.fixture(clip)]).first, file: file, line: line)
        let measured = try XCTUnwrap(
            (report["stats"] as? [String: Any])?["light"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(measured["max_nits"] as? Double ?? -1, peak, accuracy: 0.051, clip, file: file, line: line)
        XCTAssertEqual(
            measured["max_frame_average_nits"] as? Double ?? -1, peakAverage, accuracy: 0.051, clip, file: file,
            line: line)
        XCTAssertEqual(measured["grid_step"] as? Int, 4, file: file, line: line)
    }

    // MARK: - Rules through the CLI

    func testExpectRulesPassAndFail() throws {
        let pass = try runTool([
            "check", Repo.fixture("pq.mov"), "--expect",
            "profile=hq,size=192x112,alpha=false,transfer=pq,primaries=bt2020,matrix=bt2020nc,chroma=4:2:2,"
                + "interlaced=false,frames=5,fps=25,bit-depth=10,width>=192,height<113,max-nits>1000",
        ])
        XCTAssertEqual(pass.status, 0, pass.stderr)
        let out = try makeTemporaryDirectory(self)
        let report = out.appendingPathComponent("r.json")
        let fail = try runTool([
            "check", Repo.fixture("pq.mov"), "--report", report.path, "--expect",
            "frames>=24, transfer=hlg ,alpha=false",
        ])
        XCTAssertEqual(fail.status, 10, fail.stderr)
        XCTAssertTrue(
            fail.stderr.contains("FAIL ") && fail.stderr.contains("expected frames>=24, got 5 (+1 more)"), fail.stderr)
        let file = try XCTUnwrap(try CheckFixtures.files(Data(contentsOf: report)).first)
        let broken = try XCTUnwrap(file["failed_rules"] as? [[String: String]])
        XCTAssertEqual(
            broken,
            [["rule": "frames>=24", "actual": "5"], ["rule": "transfer=hlg", "actual": "smpte2084 (bitstream)"]])
    }

    func testBadRulesAreUsageErrors() throws {
        for (rule, named, mention) in [
            ("bogus=1", "bogus=1", "unknown key 'bogus'"), ("frames~5", "frames~5", "no comparison"),
            ("profile>=hq", "profile>=hq", "only = or !="), ("frames>=many", "frames>=many", "not a number"),
            ("profile=hd", "profile=hd", "unknown profile"), ("size=1920", "size=1920", "WIDTHxHEIGHT"),
            ("alpha=maybe", "alpha=maybe", "true or false"), ("transfer=gamma9", "transfer=gamma9", "unknown transfer"),
            ("frames>=1,,", "frames>=1,,", "empty rule"),
            ("profile=hq, chroma=4:2:0", "chroma=4:2:0", "4:2:2 or 4:4:4"),
        ] {
            let result = try runTool(["check", Repo.fixture("hq.mov"), "--expect", rule])
            XCTAssertEqual(result.status, 2, "--expect \(rule): \(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error:") }
            XCTAssertEqual(errors.count, 1, result.stderr)
            XCTAssertTrue(
                errors.first?.contains("'\(named)'") ?? false, "the error must name '\(named)': \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains(mention), "--expect \(rule): expected '\(mention)' in \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("PASS"), "nothing may be checked after a usage error")
        }
    }

    // MARK: - Failing safely

    func testPathsThatNameNothingAreErrors() throws {
        let dir = try makeTemporaryDirectory(self)
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try runTool([
            "check", dir.appendingPathComponent("missing.mov").path, dir.path + "/*.nothing", empty.path,
            Repo.fixture("hq.mov"),
        ])
        XCTAssertEqual(
            result.status, 11, "no file failed, some could not be checked: exit 11; stderr:\n\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("ERROR ") }.count, 3, result.stderr)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("ERROR ") && $0.contains("missing.mov") && $0.contains("no such file") },
            result.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("ERROR ") && $0.contains("no file matches") }, result.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("ERROR ") && $0.contains("holds no files") }, result.stderr)
        XCTAssertTrue(lines.contains("PASS \(Repo.fixture("hq.mov"))"), result.stderr)
        XCTAssertEqual(
            lines.last, lines.first { $0.hasPrefix("TOTAL 4 files: 1 passed, 0 warned, 0 failed, 3 errors") },
            result.stderr)
    }

    func testGlobsExpand() throws {
        let result = try runTool(["check", Repo.fixtures.path + "/4444*.mov"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.stderr.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.map(String.init),
            ["4444-alpha8.mov", "4444-noalpha.mov", "4444.mov", "4444xq.mov"].map { "PASS " + Repo.fixture($0) })
    }

    func testTimeoutIsAnError() throws {
        let result = try runTool(["check", Repo.fixture("hq.mov"), "--timeout", "0.000001"])
        XCTAssertEqual(result.status, 11, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("ERROR \(Repo.fixture("hq.mov")): timed out"), result.stderr)
    }

    /// A long file is stopped by its timer mid-decode; the next file is still checked.
    func testTimeoutStopsALongDecode() throws {
        let dir = try makeTemporaryDirectory(self)
        let long = dir.appendingPathComponent("a-long.prores")
        try longStream().write(to: long)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent("b.mov").path)
        let started = Date()
        // One decoder thread: many cores must not finish the long file inside its 0.5 s.
        let result = try runTool(["check", dir.path, "--timeout", "0.5", "--threads", "1"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        XCTAssertEqual(result.status, 11, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("ERROR \(long.path): timed out after 0.5 s") ?? false, result.stderr)
        XCTAssertTrue(lines.contains("PASS \(dir.path)/b.mov"), result.stderr)
    }

    /// SIGINT mid-check: exit 9; the report and golden file hold the files
    /// the check finished, marked interrupted, and nothing else is left (no
    /// JUnit file, no temporary). `merge` refuses such a report; `--resume`
    /// carries its files on.
    func testAnInterruptedCheckReportsWhatItFinishedAndResumes() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = try makeTemporaryDirectory(self)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: dir.appendingPathComponent("a.mov").path)
        let long = dir.appendingPathComponent("b.prores")
        try longStream().write(to: long)
        let report = out.appendingPathComponent("r.json")
        let golden = out.appendingPathComponent("g.txt")
        let process = Process()
        process.executableURL = Repo.executable
        process.arguments = withoutDefaultPolicy(
            [
                "check", dir.path, "--jobs", "1", "--threads", "1", "--report", report.path, "--write-golden",
                golden.path, "--junit", out.appendingPathComponent("j.xml").path,
            ], executable: Repo.executable)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        let collected = CollectedText()
        err.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        // Interrupt once a.mov is reported, while b.prores decodes.
        let begun = Date()
        while process.isRunning && Date().timeIntervalSince(begun) < 60
            && !collected.text.contains("PASS \(dir.path)/a.mov")
        { usleep(20_000) }
        guard process.isRunning else {
            process.waitUntilExit()
            throw XCTSkip("the check finished before it could be interrupted")
        }
        usleep(100_000)
        process.interrupt()
        let sent = Date()
        while process.isRunning && Date().timeIntervalSince(sent) < 5 { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            XCTFail("no exit within 5 s of SIGINT")
        }
        process.waitUntilExit()
        err.fileHandleForReading.readabilityHandler = nil
        collected.append(err.fileHandleForReading.readDataToEndOfFile())
        let stderr = collected.text
        XCTAssertEqual(process.terminationReason, .exit, stderr)
        XCTAssertEqual(process.terminationStatus, 9, stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["g.txt", "r.json"],
            "the report and golden file of what finished; no JUnit file, no temporary")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let summary = try XCTUnwrap(object["summary"] as? [String: Any])
        XCTAssertEqual(summary["interrupted"] as? Bool, true)
        XCTAssertEqual(summary["files"] as? Int, 1)
        XCTAssertEqual((object["files"] as? [[String: Any]])?.compactMap { $0["key"] as? String }, ["a.mov"])
        let goldenText = try String(contentsOf: golden, encoding: .utf8)
        XCTAssertEqual(
            goldenText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 5,
            "a.mov's five frames: \(goldenText)")

        let merged = try runTool(["merge", report.path, "--report", out.appendingPathComponent("m.json").path])
        XCTAssertEqual(merged.status, 2, merged.stderr)
        XCTAssertTrue(merged.stderr.contains("interrupted check"), merged.stderr)

        // The long file made short: the resumed run carries a.mov and checks b.prores.
        try FileManager.default.removeItem(at: long)
        try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores"))).write(to: long)
        let resumed = try runTool([
            "check", dir.path, "--jobs", "1", "--threads", "1", "--resume", report.path,
            "--report", out.appendingPathComponent("r2.json").path,
        ])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("PASS \(dir.path)/a.mov (carried)"), resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("PASS \(dir.path)/b.prores"), resumed.stderr)
    }

    // MARK: - Options and outputs

    func testUsageErrors() throws {
        let hq = Repo.fixture("hq.mov")
        for arguments in [
            ["check"], ["check", hq, "--shard", "0/3"], ["check", hq, "--shard", "4/3"], ["check", hq, "--shard", "x"],
            ["check", hq, "--jobs", "0"], ["check", hq, "--timeout", "0"], ["check", hq, "--timeout", "-1"],
            ["check", hq, "--timeout", "abc"], ["check", hq, "--sample", "0"], ["check", hq, "--bogus"],
            ["check", hq, "--report", "-", "--junit", "-"],
            ["check", hq, "--report", "/tmp/x.json", "--junit", "/tmp/x.json"],
            ["check", hq, "--golden", "/tmp/g.txt", "--write-golden", "/tmp/g.txt"], ["check", "-"],
        ] {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(
                result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error:") }.count, 1,
                "\(arguments): \(result.stderr)")
        }
        let missingGolden = try runTool(["check", hq, "--golden", "/nonexistent/golden.txt"])
        XCTAssertEqual(missingGolden.status, 3, missingGolden.stderr)
        XCTAssertTrue(missingGolden.stderr.contains("golden"), missingGolden.stderr)
    }

    func testMalformedGoldenIsRejected() throws {
        let dir = try makeTemporaryDirectory(self)
        let golden = dir.appendingPathComponent("g.txt")
        try "# header\n0 not-an-md5 hq.mov\n".write(to: golden, atomically: true, encoding: .utf8)
        let result = try runTool(["check", Repo.fixture("hq.mov"), "--golden", golden.path])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("line 2"), result.stderr)
    }

    /// An existing report is replaced at the end, through a temporary file
    /// beside it (nothing else left in the directory); -n refuses instead.
    func testExistingReportIsReplacedUnlessNoOverwrite() throws {
        let dir = try makeTemporaryDirectory(self)
        let report = dir.appendingPathComponent("r.json")
        try "old".write(to: report, atomically: true, encoding: .utf8)
        let refused = try runTool(["check", Repo.fixture("hq.mov"), "--report", report.path, "-n"])
        XCTAssertEqual(refused.status, 6, refused.stderr)
        XCTAssertFalse(refused.stderr.contains("PASS"), "outputs are opened before anything is checked")
        XCTAssertEqual(try String(contentsOf: report, encoding: .utf8), "old")
        for extra in [[], ["--overwrite"]] {
            try "old".write(to: report, atomically: true, encoding: .utf8)
            let replaced = try runTool(["check", Repo.fixture("hq.mov"), "--report", report.path] + extra)
            XCTAssertEqual(replaced.status, 0, replaced.stderr)
            XCTAssertEqual(try CheckFixtures.files(Data(contentsOf: report)).count, 1)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["r.json"])
        }
    }

    func testReportToStdout() throws {
        let result = try runTool(["check", Repo.fixture("hq.mov"), "--report", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try CheckFixtures.files(result.stdout).first?["status"] as? String, "pass")
    }

    func testSampleChecksEvenlySpacedFrames() throws {
        let file = try XCTUnwrap(try reportFiles(["check", Repo.fixture("hq.mxf"), "--sample", "3"]).first)
        XCTAssertEqual(file["sampled"] as? [Int], [0, 2, 4])
        XCTAssertEqual(file["frames"] as? Int, 3)
        XCTAssertEqual(file["status"] as? String, "pass")
        let truncated = try XCTUnwrap(
            try reportFiles(["check", Repo.fixture("bad/truncated-faststart.mov"), "--sample", "3"]).first)
        XCTAssertEqual(truncated["status"] as? String, "fail")
        XCTAssertEqual(
            (truncated["errors"] as? [[String: Any]])?.compactMap { $0["frame"] as? Int }, [2, 4],
            "frame 2 is cut and frame 4 is missing")
    }

    /// A sample against a golden file: a file cut short (3 of the 5 frames
    /// the golden file pins, its sampled frames all matching) fails, and a
    /// golden file is never written from a sample.
    func testSampleAgainstAGoldenFileOfALongerFile() throws {
        let whole = try makeTemporaryDirectory(self)
        let cut = try makeTemporaryDirectory(self)
        let out = try makeTemporaryDirectory(self)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: whole.appendingPathComponent("clip.mov").path)
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", Repo.fixture("hq.mov"), "-frames:v", "3",
                "-c", "copy", cut.appendingPathComponent("clip.mov").path,
            ])
        let golden = out.appendingPathComponent("g.txt").path
        XCTAssertEqual(try runTool(["check", whole.path, "--write-golden", golden]).status, 0)
        let sampled = try runTool(["check", cut.path, "--golden", golden, "--sample", "2"])
        XCTAssertEqual(sampled.status, 10, sampled.stderr)
        XCTAssertTrue(sampled.stderr.contains("the golden file has frame 3, the file holds 3 frames"), sampled.stderr)
        // Every frame sampled is a whole check: the frames the file lacks are named as for one.
        let everyFrame = try runTool(["check", cut.path, "--golden", golden, "--sample", "9"])
        XCTAssertEqual(everyFrame.status, 10, everyFrame.stderr)
        XCTAssertTrue(
            everyFrame.stderr.contains("the golden file has frame 3, the file delivered none"), everyFrame.stderr)
        XCTAssertEqual(
            try runTool(["check", whole.path, "--golden", golden, "--sample", "2"]).status, 0,
            "the whole file still matches")

        let refused = try runTool([
            "check", whole.path, "--sample", "2", "--write-golden", out.appendingPathComponent("s.txt").path,
        ])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--write-golden") && refused.stderr.contains("--sample"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("s.txt").path))
    }

    func testHelp() throws {
        let help = try runTool(["check", "--help"])
        XCTAssertEqual(help.status, 0)
        for option in [
            "--report", "--junit", "--expect", "--golden", "--write-golden", "--sample", "--jobs", "--shard",
            "--timeout",
            "--threads", "--overwrite",
        ] {
            XCTAssertTrue(help.stdoutText.contains(option), "check --help does not mention \(option)")
        }
        let main = try runTool(["--help"])
        XCTAssertTrue(main.stdoutText.contains("prores-decode check PATH..."))
        XCTAssertTrue(main.stdoutText.contains("  10   check: at least one file failed"), main.stdoutText)
        XCTAssertTrue(main.stdoutText.contains("  11   check: no file failed"), main.stdoutText)
    }

    // MARK: - Helpers

    /// Runs a check with `--report -` and returns its files.
    private func reportFiles(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> [[String: Any]]
    {
        let result = try runTool(arguments + ["--report", "-"], file: file, line: line)
        XCTAssertEqual(result.reason, .exit, file: file, line: line)
        return try CheckFixtures.files(result.stdout)
    }

    /// hq.prores 1000 times: 5000 frames, seconds of decoding.
    private func longStream() throws -> Data {
        let once = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        var bytes = Data(capacity: once.count * 1000)
        for _ in 0..<1000 { bytes.append(once) }
        return bytes
    }
}

/// What a JUnit report holds, read with Foundation's XMLParser.
private final class JUnitShape: NSObject, XMLParserDelegate {
    var suites: [String] = []
    var testcases: [String] = []
    var failures = 0
    var errors = 0
    private(set) var wellFormed = false

    init(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        wellFormed = parser.parse()
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "testsuite": suites.append(attributes["name"] ?? "")
        case "testcase": testcases.append(attributes["name"] ?? "")
        case "failure": failures += 1
        case "error": errors += 1
        default: break
        }
    }
}

/// Text a pipe's reader gathers while the process runs.
private final class CollectedText: @unchecked Sendable {
    // @unchecked: `data` is touched only under `lock`.
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
