import Foundation
import XCTest

@testable import ProResCPU
@testable import ProResCheck
@testable import ProResPipeline
@testable import TestSupport

/// Where FFmpeg's x86 decoder (its SIMD IDCT, which saturates) and ours (its
/// C IDCT, which wraps) part: the frames our decoders flag as "decoders may
/// differ here" must be exactly those where the `ffmpeg` CLI's x86 decode
/// differs from its C decode (`-cpuflags 0`), and ours must equal the C one.
/// The mutants come from hq.mov through scripts/prores_mutate.py.
final class DecoderAgreementTests: XCTestCase {
    /// Slice 11 of frame 2 has qscale 1 in hq.mov; 5 is valid syntax.
    static let qscaleMutant = ["qscale", "2", "11", "5"]
    /// Every entry of frame 3's luma and chroma matrices 16.
    static let matrixMutant = ["qmat", "3", "16"]

    override func setUpWithError() throws {
        #if !arch(x86_64)
            throw XCTSkip("FFmpeg's SIMD IDCT that parts from its C code is x86-64 only")
        #endif
    }

    static func mutate(_ fixture: String, _ mutation: [String], to output: URL) throws {
        let script = Repo.root.appendingPathComponent("scripts/prores_mutate.py").path
        let result = try runProgram(
            "/usr/bin/python3", [script, mutation[0], Repo.fixture(fixture), output.path] + mutation.dropFirst())
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// The `ffmpeg` CLI's md5 of every frame: its x86 SIMD code, or with
    /// `-cpuflags 0` its C code.
    static func ffmpegHashes(_ path: String, cCode: Bool) throws -> [String] {
        let result = try runProgram(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-v", "error"] + (cCode ? ["-cpuflags", "0"] : [])
                + ["-i", path, "-f", "framemd5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return framemd5Hashes(result.stdoutText)
    }

    static func framemd5Hashes(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Decodes `path` with `decoder`: its frames' md5s, the `--json`
    /// summary's flagged frames, and the run.
    static func decode(_ path: String, decoder: String, in directory: URL) throws -> (
        hashes: [String], flagged: [Int], run: ToolResult
    ) {
        let md5 = directory.appendingPathComponent("\(decoder)-\(UUID().uuidString).framemd5")
        let run = try runTool([path, "--decoder", decoder, "--framemd5", md5.path, "--json"], timeout: 120)
        let hashes = framemd5Hashes((try? String(contentsOf: md5, encoding: .utf8)) ?? "")
        let summary = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
        let flagged = summary?["decoders_may_differ"] as? [Int]
        XCTAssertNotNil(flagged, "no decoders_may_differ in the --json summary of \(decoder): \(run.stdoutText)")
        return (hashes, flagged ?? [], run)
    }

    private func assertFlagsExactlyWhereFFmpegDiffers(
        _ mutation: [String], expected: [Int], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let directory = try makeTemporaryDirectory(self)
        let mutant = directory.appendingPathComponent("mutant.mov")
        try Self.mutate("hq.mov", mutation, to: mutant)
        let x86 = try Self.ffmpegHashes(mutant.path, cCode: false)
        let c = try Self.ffmpegHashes(mutant.path, cCode: true)
        XCTAssertEqual(x86.count, 5, file: file, line: line)
        for decoder in ["cpu", "gpu"] {
            let ours = try Self.decode(mutant.path, decoder: decoder, in: directory)
            XCTAssertEqual(ours.run.status, 0, "\(decoder): \(ours.run.stderr)", file: file, line: line)
            XCTAssertEqual(ours.hashes, c, "\(decoder) must decode as FFmpeg's C code does", file: file, line: line)
            let differing = zip(ours.hashes, x86).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            XCTAssertEqual(
                ours.flagged, differing, "\(decoder): flagged frames against those where FFmpeg's x86 decode differs",
                file: file, line: line)
            XCTAssertEqual(ours.flagged, expected, decoder, file: file, line: line)
            for frame in expected {
                XCTAssertTrue(
                    ours.run.stderr.contains("warning: frame \(frame): decoders may differ here"), ours.run.stderr,
                    file: file, line: line)
            }
        }
    }

    func testQscaleOneToFiveIsFlaggedWhereFFmpegsX86DecoderDiffers() throws {
        try assertFlagsExactlyWhereFFmpegDiffers(Self.qscaleMutant, expected: [2])
    }

    func testLargeMatrixIsFlaggedWhereFFmpegsX86DecoderDiffers() throws {
        try assertFlagsExactlyWhereFFmpegDiffers(Self.matrixMutant, expected: [3])
    }

    /// `check` over every fixture, the encoder matrix of
    /// scripts/prores-variants.sh and the two mutants: a warning on each
    /// mutant's flagged frame in the JSON, JUnit and HTML reports and on
    /// stderr, none anywhere else, every file passing.
    func testCheckWarnsOnFlaggedFramesAndNowhereElse() throws {
        let directory = try makeTemporaryDirectory(self)
        let clips = directory.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: Repo.fixtures.path).filter {
            $0.hasSuffix(".mov")
        }
        for name in fixtures {
            try FileManager.default.copyItem(
                atPath: Repo.fixture(name), toPath: clips.appendingPathComponent(name).path)
        }
        try Self.mutate("hq.mov", Self.qscaleMutant, to: clips.appendingPathComponent("mutant-qscale.mov"))
        try Self.mutate("hq.mov", Self.matrixMutant, to: clips.appendingPathComponent("mutant-qmat.mov"))
        let variants = clips.appendingPathComponent("variants")
        let script = try runProgram(
            "/bin/bash", [Repo.root.appendingPathComponent("scripts/prores-variants.sh").path, variants.path],
            timeout: 600)
        XCTAssertEqual(script.status, 0, script.stderr)
        XCTAssertGreaterThanOrEqual(script.stdoutText.split(separator: "\n").count, 37)

        for decoder in ["cpu", "gpu"] {
            let report = directory.appendingPathComponent("\(decoder).json")
            let junit = directory.appendingPathComponent("\(decoder).xml")
            let page = directory.appendingPathComponent("\(decoder).html")
            let run = try runTool(
                [
                    "check", clips.path, "--decoder", decoder, "--report", report.path, "--junit", junit.path,
                    "--html", page.path,
                ], timeout: 600)
            // Warnings make a WARN: every file passes, the mutants with warnings.
            XCTAssertEqual(run.status, 15, "\(decoder): \(run.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
            let files = json?["files"] as? [[String: Any]] ?? []
            XCTAssertGreaterThanOrEqual(files.count, fixtures.count + 2 + 37)
            var warned: [String: [Int]] = [:]
            for file in files {
                let key = file["key"] as? String ?? "?"
                let warnings = file["warnings"] as? [String] ?? []
                // Mutants warn of decoders that may differ; a few variants of a container's field order.
                XCTAssertEqual(file["status"] as? String, warnings.isEmpty ? "pass" : "warn", "\(decoder): \(file)")
                if key.hasPrefix("mutant-") { XCTAssertEqual(file["status"] as? String, "warn", "\(decoder): \(key)") }
                if let frames = file["decoders_may_differ"] as? [Int], !frames.isEmpty { warned[key] = frames }
            }
            XCTAssertEqual(warned, ["mutant-qscale.mov": [2], "mutant-qmat.mov": [3]], decoder)
            let xml = try String(contentsOf: junit, encoding: .utf8)
            let html = try String(contentsOf: page, encoding: .utf8)
            for frame in [2, 3] {
                XCTAssertTrue(xml.contains("warning: frame \(frame): decoders may differ here"), decoder)
                XCTAssertTrue(html.contains("frame \(frame): decoders may differ here"), decoder)
                XCTAssertTrue(run.stderr.contains("warning: frame \(frame): decoders may differ here"), decoder)
            }
            XCTAssertEqual(xml.components(separatedBy: "decoders may differ here").count - 1, 2, decoder)
        }
    }

    /// A golden file written by our CPU decoder, checked with FFmpeg's
    /// decoder: the flagged frame's different hash is a warning, not a
    /// failure; without the lines that say which decoder wrote it, a
    /// failure whose reason says why the hashes may differ. Checked by the
    /// decoder that wrote it, it matches.
    func testGoldenAcrossDecodersWarnsOnFlaggedFrames() throws {
        let directory = try makeTemporaryDirectory(self)
        let clips = directory.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        try Self.mutate("hq.mov", Self.qscaleMutant, to: clips.appendingPathComponent("mutant.mov"))
        let golden = directory.appendingPathComponent("golden.txt")
        // The flagged frame is a warning: the file is a WARN, exit 15.
        let write = try runTool(["check", clips.path, "--decoder", "cpu", "--write-golden", golden.path])
        XCTAssertEqual(write.status, 15, write.stderr)
        let text = try String(contentsOf: golden, encoding: .utf8)
        XCTAssertTrue(text.contains("#@decoder cpu mutant.mov\n"), text)
        XCTAssertTrue(text.contains("#@may-differ 2 mutant.mov\n"), text)

        let report = directory.appendingPathComponent("ffmpeg.json")
        let across = try runTool([
            "check", clips.path, "--decoder", "ffmpeg", "--golden", golden.path, "--report", report.path,
        ])
        XCTAssertEqual(across.status, 15, across.stderr)
        XCTAssertTrue(
            across.stderr.contains("frame 2: its hash differs from the golden file's, written by another decoder"),
            across.stderr)
        let json = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(json.contains("written by another decoder"), json)
        // A report that carries warnings merges like any other, warnings kept.
        let merged = directory.appendingPathComponent("merged.json")
        let merge = try runTool(["merge", report.path, "--report", merged.path])
        XCTAssertEqual(merge.status, 15, merge.stderr)
        XCTAssertTrue(try String(contentsOf: merged, encoding: .utf8).contains("written by another decoder"))

        let same = try runTool(["check", clips.path, "--decoder", "gpu", "--golden", golden.path])
        XCTAssertEqual(same.status, 15, same.stderr)

        let unsaid = directory.appendingPathComponent("unsaid.txt")
        try text.split(separator: "\n").filter { !$0.hasPrefix("#@") }.joined(separator: "\n").appending("\n")
            .write(to: unsaid, atomically: true, encoding: .utf8)
        let blind = try runTool(["check", clips.path, "--decoder", "ffmpeg", "--golden", unsaid.path])
        XCTAssertEqual(blind.status, 10, blind.stderr)
        XCTAssertTrue(blind.stderr.contains("golden mismatch at frame 2"), blind.stderr)
    }

    /// Damage of every kind the mutation script makes, and a file cut inside
    /// a frame: the three decoders write the same frames (`--framemd5`
    /// lines), exit alike, and give the same md5 on every frame ours do not
    /// flag.
    func testDamagedFramesCountAlikeInEveryDecoder() throws {
        let directory = try makeTemporaryDirectory(self)
        var cases: [(String, URL)] = [
            ("bad/corrupt-slice.mov", URL(fileURLWithPath: Repo.fixture("bad/corrupt-slice.mov"))),
            ("bad/truncated-faststart.mov", URL(fileURLWithPath: Repo.fixture("bad/truncated-faststart.mov"))),
        ]
        let mutations: [(String, [String])] = [
            ("interlaced-tff.mov", ["flip", "2", "4000"]), ("hq.mov", ["flip", "1", "100"]),
            ("hq.mov", ["truncate-slice", "3", "5", "100"]),
            ("4444.mov", ["truncate-slice", "2", "0", "0"]), ("slices1.mov", ["flip", "4", "20000"]),
            ("lt.mov", ["qscale", "0", "2", "255"]),
        ]
        for (n, (fixture, mutation)) in mutations.enumerated() {
            let mutant = directory.appendingPathComponent("mutant-\(n).mov")
            try Self.mutate(fixture, mutation, to: mutant)
            cases.append(("\(fixture) \(mutation.joined(separator: " "))", mutant))
        }
        var damaged = 0
        for (name, path) in cases {
            let runs = try ["cpu", "gpu", "ffmpeg"].map { try Self.decode(path.path, decoder: $0, in: directory) }
            let (cpu, gpu, ffmpeg) = (runs[0], runs[1], runs[2])
            if cpu.run.status != 0 { damaged += 1 }
            XCTAssertEqual(gpu.run.status, cpu.run.status, "\(name): exit codes of gpu and cpu")
            XCTAssertEqual(
                ffmpeg.run.status, cpu.run.status,
                "\(name): exit codes of ffmpeg and cpu\n\(ffmpeg.run.stderr)\n\(cpu.run.stderr)")
            XCTAssertEqual(gpu.hashes, cpu.hashes, "\(name): frames of gpu and cpu")
            XCTAssertEqual(ffmpeg.hashes.count, cpu.hashes.count, "\(name): frames written by ffmpeg and cpu")
            for (index, (ours, theirs)) in zip(cpu.hashes, ffmpeg.hashes).enumerated()
            where !cpu.flagged.contains(index) {
                XCTAssertEqual(ours, theirs, "\(name): frame \(index), not flagged, differs from ffmpeg's")
            }
        }
        XCTAssertGreaterThanOrEqual(damaged, 3, "most cases must be damage the decoders see")
    }
}

/// The flag against a model of FFmpeg's x86 SIMD IDCT written here from
/// libavcodec/x86/simple_idct10_template.asm (IDCT_FN with pw_1 and pw_88:
/// row[0] + 1 and row 0 + 8200 in int16, pmaddwd sums in 32 bits, results
/// packed saturating, the clip to [4, 1019]): on random blocks with large
/// values a block the kernel does not flag gives the model's samples, and
/// a dequantised row[0] of 32767 is flagged.
final class DecoderAgreementKernelTests: XCTestCase {
    // W4, W1..W7 (FFmpeg's 10-bit weights)
    static let w: [Int32] = [16384, 22725, 21407, 19265, 16384, 12873, 8867, 4520]

    static func saturated(_ v: Int32) -> Int32 { min(max(v, -32768), 32767) }
    static func wrapped(_ v: Int32) -> Int32 { Int32(Int16(truncatingIfNeeded: v)) }

    /// One 8-point pass as the asm computes it: x[0] already biased, 32-bit wrapping sums, >> shift, saturated.
    static func simdPass(_ x: [Int32], shift: Int32) -> [Int32] {
        let (w1, w2, w3, w4, w5, w6, w7) = (w[1], w[2], w[3], w[4], w[5], w[6], w[7])
        let a0 = w4 &* x[0] &+ w2 &* x[2] &+ w4 &* x[4] &+ w6 &* x[6]
        let a1 = w4 &* x[0] &+ w6 &* x[2] &- w4 &* x[4] &- w2 &* x[6]
        let a2 = w4 &* x[0] &- w6 &* x[2] &- w4 &* x[4] &+ w2 &* x[6]
        let a3 = w4 &* x[0] &- w2 &* x[2] &+ w4 &* x[4] &- w6 &* x[6]
        let b0 = w1 &* x[1] &+ w3 &* x[3] &+ w5 &* x[5] &+ w7 &* x[7]
        let b1 = w3 &* x[1] &- w7 &* x[3] &- w1 &* x[5] &- w5 &* x[7]
        let b2 = w5 &* x[1] &- w1 &* x[3] &+ w7 &* x[5] &+ w3 &* x[7]
        let b3 = w7 &* x[1] &- w5 &* x[3] &+ w3 &* x[5] &- w1 &* x[7]
        return [a0 &+ b0, a1 &+ b1, a2 &+ b2, a3 &+ b3, a3 &- b3, a2 &- b2, a1 &- b1, a0 &- b0].map {
            saturated($0 >> shift)
        }
    }

    /// FFmpeg's x86 decode of one dequantised block (natural order).
    static func simd(_ x: [Int32]) -> [UInt16] {
        var rows = [[Int32]]()
        for r in 0..<8 {
            var row = Array(x[r * 8..<r * 8 + 8])
            row[0] = wrapped(row[0] + 1)
            rows.append(simdPass(row, shift: 15))
        }
        var out = [UInt16](repeating: 0, count: 64)
        for c in 0..<8 {
            var column = (0..<8).map { rows[$0][c] }
            column[0] = wrapped(column[0] + 8200)
            for (r, v) in simdPass(column, shift: 18).enumerated() { out[r * 8 + c] = UInt16(min(max(v, 4), 1019)) }
        }
        return out
    }

    /// Ours on the same block: the samples and the flag.
    static func ours(_ x: [Int32]) -> (samples: [UInt16], flagged: Bool) {
        let transposed = (0..<64).map { Int16(truncatingIfNeeded: x[($0 & 7) << 3 | $0 >> 3]) }
        let unit = [Int16](repeating: 1, count: 64)
        var out = [UInt16](repeating: 0, count: 64)
        let flagged = transposed.withUnsafeBufferPointer { c in
            unit.withUnsafeBufferPointer { q in
                out.withUnsafeMutableBufferPointer {
                    IntegerIDCT.put(depth: 10, c.baseAddress!, matrix: q.baseAddress!, out: $0.baseAddress!, stride: 8)
                }
            }
        }
        return (out, flagged)
    }

    func testUnflaggedBlocksGiveTheSIMDSamplesAndTheLimitsAreFlagged() {
        var rng = KernelRandom(seed: 0xA9EE_0001)
        var flagged = 0
        var differing = 0
        for n in 0..<20_000 {
            // Sparse blocks of growing magnitude: from ordinary to far past 16 bits' room.
            let limit = Int32(1 << (8 + n % 8))
            let x = (0..<64).map { i -> Int32 in
                i < 12 || rng.next() % 6 == 0 ? Int32(truncatingIfNeeded: rng.next() % UInt64(2 * limit)) - limit : 0
            }
            let (samples, flag) = Self.ours(x)
            let model = Self.simd(x)
            if flag { flagged += 1 }
            if samples != model {
                differing += 1
                XCTAssertTrue(flag, "block \(n) differs from the SIMD model unflagged: \(x)")
            }
        }
        XCTAssertGreaterThan(differing, 100, "the random blocks must reach where the IDCTs part")
        XCTAssertGreaterThanOrEqual(flagged, differing)

        // The rounding's limit: row[0] = 32767 in a DC-only block and beside
        // an AC term; 32766 stays inside.
        var dcOnly = [Int32](repeating: 0, count: 64)
        dcOnly[0] = 32767
        XCTAssertTrue(Self.ours(dcOnly).flagged, "a dequantised row[0] of 32767 (DC only)")
        var withAC = dcOnly
        withAC[9] = 5
        XCTAssertTrue(Self.ours(withAC).flagged, "a dequantised row[0] of 32767")
        var below = dcOnly
        below[0] = 32766
        XCTAssertFalse(Self.ours(below).flagged, "32766 is inside the range")
        XCTAssertEqual(Self.ours(below).samples, Self.simd(below))
    }
}

/// The golden file's `#@decoder` and `#@may-differ` lines: written,
/// read back, refused when malformed, and what `compare` makes of them.
final class GoldenDecoderLinesTests: XCTestCase {
    let a = String(repeating: "a", count: 64), b = String(repeating: "b", count: 64)

    func testLinesRoundTripAndMalformedOnesAreRefusedByLine() throws {
        var golden = GoldenFile()
        golden.add(key: "dir/clip one.mov", hashes: [(0, a), (1, b)], decoder: "cpu", mayDiffer: [1])
        let text = golden.text
        XCTAssertEqual(
            text,
            """
            # prores-decode check golden v2: frame index, BLAKE3-256 of the native planar frame, path
            #@decoder cpu dir/clip one.mov
            #@may-differ 1 dir/clip one.mov
            0 \(a) dir/clip one.mov
            1 \(b) dir/clip one.mov

            """)
        XCTAssertEqual(try GoldenFile(parsing: text), golden)
        for (line, words) in [
            ("#@decoder vlc x.mov", "cpu, gpu or ffmpeg"), ("#@may-differ 1,x x.mov", "frame numbers"),
            ("#@decoder cpu", "VALUE PATH"),
        ] {
            XCTAssertThrowsError(try GoldenFile(parsing: "0 \(a) x.mov\n" + line + "\n")) { error in
                XCTAssertTrue("\(error)".contains("line 2:") && "\(error)".contains(words), "\(error)")
            }
        }
        // Any other comment is still a comment.
        XCTAssertEqual(try GoldenFile(parsing: "#@something else\n0 \(a) x.mov\n").entries["x.mov"], [0: a])
    }

    func testAMismatchAcrossDecodersIsAWarningOnlyOnFlaggedFrames() {
        var golden = GoldenFile()
        golden.add(key: "x.mov", hashes: [(0, a), (1, a)], decoder: "cpu", mayDiffer: [1])
        let hashes = [(index: 0, hash: a), (index: 1, hash: b)]
        let across = golden.compare(key: "x.mov", hashes: hashes, complete: true, decoder: "ffmpeg")
        XCTAssertEqual(across.verdict, .match)
        XCTAssertEqual(across.acrossDecoders, [1])
        // The same kind of decoder: a failure.
        XCTAssertEqual(
            golden.compare(key: "x.mov", hashes: hashes, complete: true, decoder: "gpu").verdict,
            .mismatch(frame: 1, reason: "blake3 \(b), golden \(a)"))
        // A golden file that does not say who wrote it: a failure that says why it may differ.
        var unsaid = GoldenFile()
        unsaid.add(key: "x.mov", hashes: [(0, a), (1, a)])
        XCTAssertEqual(
            unsaid.compare(key: "x.mov", hashes: hashes, complete: true, decoder: "ffmpeg", mayDiffer: [1]).verdict,
            .mismatch(
                frame: 1,
                reason: "blake3 \(b), golden \(a) (the decoders may differ on this frame, "
                    + "and the golden file does not say which decoder wrote it)"))
        // An unflagged frame: a failure across decoders too.
        let unflagged = [(index: 0, hash: b), (index: 1, hash: a)]
        XCTAssertEqual(
            golden.compare(key: "x.mov", hashes: unflagged, complete: true, decoder: "ffmpeg").verdict,
            .mismatch(frame: 0, reason: "blake3 \(b), golden \(a)"))
    }
}
