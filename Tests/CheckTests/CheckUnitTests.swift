import Foundation
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCheck
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The pieces of `check` on their own: frame sampling, shards, path
/// expansion, XML escaping, golden files, and the statistics on hand-made
/// planes whose answers are worked out by hand.
final class CheckUnitTests: XCTestCase {
    /// A frame whose analysis has no hash is not a frame of the file (it is
    /// then missing, and the file fails), never one with an empty hash.
    func testAFrameWithoutAHashIsNotDelivered() throws {
        let sink = CheckSink(md5: false)
        let digest = BLAKE3Digest(words: SIMD8(1, 2, 3, 4, 5, 6, 7, 8))
        try sink.consume(index: 0, pts: nil, analysis: FrameAnalysis(digest: digest, sums: nil))
        try sink.consume(index: 1, pts: nil, analysis: FrameAnalysis(digest: nil, sums: nil))
        XCTAssertEqual(sink.hashes.map(\.index), [0])
        XCTAssertEqual(sink.hashes.map(\.hash), [digest.hex])
    }

    // MARK: - Sampling and shards

    func testSamplingIndices() {
        // round(i·(count−1)/(n−1)): 100 frames, 5 samples → 0, 24.75, 49.5, 74.25, 99.
        XCTAssertEqual(FrameSampling.indices(count: 100, samples: 5), [0, 25, 50, 74, 99])
        XCTAssertEqual(FrameSampling.indices(count: 5, samples: 3), [0, 2, 4])
        XCTAssertEqual(FrameSampling.indices(count: 4, samples: 3), [0, 2, 3])  // 1.5 rounds up
        XCTAssertEqual(FrameSampling.indices(count: 5, samples: 5), [0, 1, 2, 3, 4])
        XCTAssertEqual(FrameSampling.indices(count: 5, samples: 50), [0, 1, 2, 3, 4])
        XCTAssertEqual(FrameSampling.indices(count: 5, samples: 1), [0])
        XCTAssertEqual(FrameSampling.indices(count: 0, samples: 3), [])
        for count in 2...60 {
            for n in 2...count {
                let picked = FrameSampling.indices(count: count, samples: n)
                XCTAssertEqual(picked.count, n)
                XCTAssertEqual(picked.first, 0)
                XCTAssertEqual(picked.last, count - 1)
                XCTAssertEqual(picked, picked.sorted(), "ascending")
                XCTAssertEqual(Set(picked).count, n, "distinct for \(count)/\(n)")
            }
        }
    }

    func testShardsPartition() {
        XCTAssertNil(CheckShard(parsing: "0/3"))
        XCTAssertNil(CheckShard(parsing: "4/3"))
        XCTAssertNil(CheckShard(parsing: "1/0"))
        XCTAssertNil(CheckShard(parsing: "1"))
        XCTAssertNil(CheckShard(parsing: "1/2/3"))
        XCTAssertEqual(CheckShard(parsing: "2/3"), CheckShard(index: 2, count: 3))
        let inputs = (0..<40).map { CheckInput(path: "d/\($0).mov", key: "\($0).mov") }
        for count in 1...7 {
            let shards = (1...count).map { CheckShard(index: $0, count: count)!.select(inputs) }
            XCTAssertEqual(
                shards.flatMap { $0 }.map(\.key).sorted(), inputs.map(\.key).sorted(),
                "\(count) shards must cover each file once")
            for shard in shards {
                let kept = Set(shard.map(\.path))
                XCTAssertEqual(
                    shard.map(\.path), inputs.map(\.path).filter(kept.contains), "a shard keeps the list's order")
            }
        }
    }

    /// 1 + (first 8 bytes of SHA-256(key), big-endian) mod N, worked out
    /// with Python's hashlib: int.from_bytes(sha256(key).digest()[:8], "big") % n + 1.
    func testShardOfAKeyIsItsSHA256ModN() {
        let expected: [(String, [Int])] = [
            ("a.mov", [1, 1, 3, 4, 61]), ("good/hq.mov", [1, 1, 1, 5, 11]),
            (PathBytes.string([0x63, 0x6C, 0x69, 0x70, 0xFF, 0x2E, 0x6D, 0x6F, 0x76]), [1, 2, 2, 2, 48]),
            ("https://example.com/x/y.mov", [1, 2, 2, 1, 64]),
        ]
        for (key, shards) in expected {
            XCTAssertEqual([1, 2, 3, 7, 64].map { CheckShard.shard(ofKey: key, count: $0) }, shards, key)
        }
    }

    /// Adding a file moves no other file to another shard.
    func testAddingAFileMovesOnlyThatFile() {
        let before = (0..<200).map { CheckInput(path: "\($0).mov", key: "\($0).mov") }
        let after = before + [CheckInput(path: "new.mov", key: "new.mov")]
        for count in [2, 3, 8] {
            for index in 1...count {
                let shard = CheckShard(index: index, count: count)!
                XCTAssertEqual(
                    Set(shard.select(after).map(\.key)).subtracting(["new.mov"]), Set(shard.select(before).map(\.key)))
            }
        }
    }

    func testShardAutoReadsEachEngine() throws {
        func resolve(_ count: Int?, _ environment: [String: String]) throws -> String {
            let choice = try ShardEnvironment.resolve(count: count, environment: environment)
            return "\(choice.shard) \(choice.source)"
        }
        XCTAssertEqual(
            try resolve(nil, ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"]),
            "2/3 GitLab CI (CI_NODE_INDEX=2, CI_NODE_TOTAL=3)")
        XCTAssertEqual(
            try resolve(4, ["JOB_COMPLETION_INDEX": "0"]), "1/4 Kubernetes Indexed Job (JOB_COMPLETION_INDEX=0)")
        XCTAssertEqual(
            try resolve(
                nil, ["SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "8"]),
            "3/8 Slurm job array (SLURM_ARRAY_TASK_ID=12, SLURM_ARRAY_TASK_MIN=10, SLURM_ARRAY_TASK_COUNT=8)")
        XCTAssertEqual(
            try resolve(
                nil,
                [
                    "SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4",
                    "SLURM_ARRAY_TASK_STEP": "4",
                ]
            ).prefix(3), "3/4")
        XCTAssertEqual(
            try resolve(8, ["AWS_BATCH_JOB_ARRAY_INDEX": "7"]), "8/8 AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX=7)")
        XCTAssertEqual(
            try resolve(nil, ["PRORES_DECODE_SHARD_INDEX": "0", "PRORES_DECODE_SHARD_TOTAL": "3"]).prefix(3), "1/3")
        XCTAssertEqual(
            try resolve(3, ["CI_NODE_INDEX": "3"]).prefix(3), "3/3", "auto/N gives GitLab's count when it states none")
        let problems: [(Int?, [String: String], ShardEnvironment.Problem)] = [
            (nil, [:], .noEngine),
            (nil, ["JOB_COMPLETION_INDEX": "1"], .needsCount(engine: "Kubernetes Indexed Job")),
            (
                nil, ["AWS_BATCH_JOB_ARRAY_INDEX": "x"],
                .notANumber(variable: "AWS_BATCH_JOB_ARRAY_INDEX", value: "x", bounds: "from 0 to 99999")
            ),
            (2, ["JOB_COMPLETION_INDEX": "2"], .outOfRange(source: "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=2)")),
            (
                4, ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"],
                .countsDisagree(source: "GitLab CI (CI_NODE_INDEX=1, CI_NODE_TOTAL=3)", given: 4)
            ),
        ]
        for (count, environment, problem) in problems {
            XCTAssertThrowsError(try ShardEnvironment.resolve(count: count, environment: environment)) {
                XCTAssertEqual($0 as? ShardEnvironment.Problem, problem)
            }
        }
    }

    func testListLinesKeepTheirBytes() throws {
        let text: [UInt8] =
            Array(
                "# a comment\n\n  \t\nclips/a.mov\r\n  # indented comment\n with space.mov\nhttps://h/x.mov?sig=1\n"
                    .utf8)
            + [0x62, 0xFF, 0x2E, 0x6D, 0x6F, 0x76]
        let entries = try CheckInputList.entries(text)
        XCTAssertEqual(entries.count, 4)
        XCTAssertEqual(Array(entries.prefix(3)), ["clips/a.mov", " with space.mov", "https://h/x.mov?sig=1"])
        XCTAssertEqual(PathBytes.bytes(entries[3]), [0x62, 0xFF, 0x2E, 0x6D, 0x6F, 0x76])
        XCTAssertThrowsError(
            try CheckInputList.entries([UInt8](repeating: 0x61, count: CheckInputList.maximumLineBytes + 1))
        ) {
            XCTAssertEqual($0 as? CheckInputList.Problem, .lineTooLong(line: 1))
        }
    }

    func testAURLIsShownAndKeyedWithoutItsQuery() {
        let inputs = CheckInputExpander.expand([], listed: ["https://host.invalid/a/b.mov?X-Amz-Signature=secret#t"])
        XCTAssertEqual(inputs.map(\.path), ["https://host.invalid/a/b.mov"])
        XCTAssertEqual(inputs.map(\.key), ["https://host.invalid/a/b.mov"])
        XCTAssertEqual(inputs.map(\.location), ["https://host.invalid/a/b.mov?X-Amz-Signature=secret#t"])
        XCTAssertNil(inputs.first?.problem)
    }

    // MARK: - Paths

    func testExpansionSortsSkipsHiddenAndFollowsLinksOnce() throws {
        let dir = try makeTemporaryDirectory(self)
        let fm = FileManager.default
        for path in ["b.mov", "a/z.mov", "a/.hidden.mov", ".git/config", "a/deeper/c.mov"] {
            let url = dir.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("a/loop").path, withDestinationPath: dir.path)
        try fm.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: true)
        mkfifo(dir.appendingPathComponent("fifo").path, 0o600)
        let found = CheckInputExpander.expand([dir.path])
        let base = dir.path + "/"
        XCTAssertEqual(
            found.map(\.path), ["a/deeper/c.mov", "a/z.mov", "b.mov", "fifo"].map { base + $0 },
            "sorted, hidden skipped, the symlink loop not walked twice, the empty directory contributing nothing")
        XCTAssertEqual(found.map(\.key), ["a/deeper/c.mov", "a/z.mov", "b.mov", "fifo"])
        XCTAssertEqual(found.map(\.problem), [nil, nil, nil, "not a regular file"], "a FIFO is never opened")

        let mixed = CheckInputExpander.expand([
            base + "b.mov", base + "a/*.mov", base + "empty", base + "nope.mov", base + "*.none", base + "b.mov",
        ])
        XCTAssertEqual(
            mixed.map(\.path),
            ["a/z.mov", "b.mov", "empty", "nope.mov", "*.none"].map { base + $0 }.sorted {
                $0.utf8.lexicographicallyPrecedes($1.utf8)
            }, "globs expand, duplicates collapse, everything sorted by path")
        XCTAssertEqual(mixed.first { $0.path.hasSuffix("empty") }?.problem, "directory holds no files to check")
        XCTAssertEqual(mixed.first { $0.path.hasSuffix("nope.mov") }?.problem, "no such file")
        XCTAssertEqual(mixed.first { $0.path.hasSuffix("*.none") }?.problem, "no file matches this pattern")
        XCTAssertEqual(
            mixed.first { $0.path.hasSuffix("z.mov") }?.key, "z.mov", "a glob match is keyed below the glob's root")
    }

    // MARK: - Reports

    func testXMLEscaping() {
        XCTAssertEqual(XMLText.escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;")
        XCTAssertEqual(XMLText.escape("line\nnext\ttab\r"), "line&#10;next&#9;tab&#13;")
        XCTAssertEqual(
            XMLText.escape("bell\u{07}nul\u{0}"), "bell\u{FFFD}nul\u{FFFD}", "XML 1.0 has no way to write these")
        XCTAssertEqual(XMLText.escape("é ✓ 𝄞"), "é ✓ 𝄞")
    }

    func testGoldenRoundTripAndVerdicts() throws {
        // v1 (md5, 32 hex digits) and v2 (BLAKE3, 64): the same rules.
        for (algorithm, digits) in [(GoldenFile.Algorithm.md5, 32), (.blake3, 64)] {
            let a = String(repeating: "a", count: digits)
            let b = String(repeating: "b", count: digits)
            let c = String(repeating: "c", count: digits)
            var golden = GoldenFile(algorithm: algorithm)
            golden.add(key: "dir/clip one.mov", hashes: [(0, a), (1, b)])
            golden.add(key: "odd\\name\n.mov", hashes: [(0, c)])
            let text = golden.text
            let header =
                algorithm == .md5
                ? "# prores-decode check golden v1: frame index, md5 of the native planar frame, path"
                : "# prores-decode check golden v2: frame index, BLAKE3-256 of the native planar frame, path"
            XCTAssertEqual(
                text, header + "\n0 \(a) dir/clip one.mov\n1 \(b) dir/clip one.mov\n0 \(c) odd\\\\name\\n.mov\n")
            XCTAssertEqual(try GoldenFile(parsing: text), golden)
            XCTAssertEqual(try GoldenFile(parsing: text).algorithm, algorithm)

            let name = algorithm.rawValue
            XCTAssertEqual(golden.verdict(key: "dir/clip one.mov", hashes: [(0, a), (1, b)], complete: true), .match)
            XCTAssertEqual(
                golden.verdict(key: "other.mov", hashes: [(0, a)], complete: true), .notInGolden(key: "other.mov"))
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a), (1, c)], complete: true),
                .mismatch(frame: 1, reason: "\(name) \(c), golden \(b)"))
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a)], complete: true),
                .mismatch(frame: 1, reason: "the golden file has frame 1, the file delivered none"))
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a)], complete: false), .match,
                "a sample checks only its frames")
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a)], complete: false, frames: 2), .match,
                "a sample of a file as long as the golden entry")
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a)], complete: false, frames: 1),
                .mismatch(frame: 1, reason: "the golden file has frame 1, the file holds 1 frames"),
                "a sample of a file cut short does not match the longer original")
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a), (1, b)], complete: true, damaged: [1]),
                .mismatch(frame: 1, reason: "the frame was damaged"), "a damaged frame never matches, whatever its hash"
            )
            XCTAssertEqual(
                golden.verdict(key: "dir/clip one.mov", hashes: [(0, a), (1, b), (2, c)], complete: true),
                .mismatch(frame: 2, reason: "the golden file has no frame 2"))

            for bad in [
                "0 \(a)", "x \(a) f.mov", "0 \(a.uppercased()) f.mov", "0 abc f.mov", "0 \(a) f\\q.mov",
                "0 \(a) f.mov\n0 \(b) f.mov",
                "0 \(a) f.mov\r", "0 \(String(a.dropLast()))\u{FF10} f.mov", "-1 \(a) f.mov",
            ] {
                XCTAssertThrowsError(try GoldenFile(parsing: "# h\n" + bad), bad)
            }
        }
        // One kind a file.
        let mixed = "0 \(String(repeating: "a", count: 32)) f.mov\n1 \(String(repeating: "b", count: 64)) f.mov\n"
        XCTAssertThrowsError(try GoldenFile(parsing: mixed))
    }

    // MARK: - Statistics on hand-made planes

    /// yuv422p10le, 4x2: Y planes given, chroma neutral.
    private func frame422(_ luma: [UInt16], width: Int = 4, height: Int = 2, _ body: (NativeFrameView) -> Void) {
        let chroma = [UInt16](repeating: 512, count: (width + 1) / 2 * height)
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        luma.withUnsafeBytes { y in
            chroma.withUnsafeBytes { c in
                body(NativeFrameView(spans: [y, c, c], format: format, width: width, height: height)!)
            }
        }
    }

    func testLumaRangeBlackAndFrozen() {
        var stats = FrameStatistics(bitDepth: 10, range: .video, hasAlpha: false)
        // Video black 64, white 940: dark pixels are at or below 64 + 0.10·876
        // = 151.6, truncated (blackdetect's pixel_black_th_i); a black frame
        // has at least 98% of them, so all 8 of these frames' pixels.
        frame422([64, 64, 64, 64, 64, 64, 64, 64]) {
            stats.add(FrameMeasurement($0, index: 0, digest: "black", range: .video, light: nil))
        }  // mean 64: black
        frame422([64, 64, 64, 64, 64, 64, 64, 64]) {
            stats.add(FrameMeasurement($0, index: 1, digest: "black", range: .video, light: nil))
        }  // black and frozen
        frame422([150, 151, 150, 151, 150, 151, 150, 151]) {
            stats.add(FrameMeasurement($0, index: 2, digest: "near", range: .video, light: nil))
        }  // every pixel at or below 151: black
        frame422([40, 940, 64, 64, 64, 64, 64, 100]) {
            stats.add(FrameMeasurement($0, index: 3, digest: "bright", range: .video, light: nil))
        }  // 7 of 8 dark (940 is not): not black
        frame422([40, 940, 64, 64, 64, 64, 64, 100]) {
            stats.add(FrameMeasurement($0, index: 5, digest: "bright", range: .video, light: nil))
        }  // frozen; 4 was skipped
        XCTAssertEqual(stats.frames, 5)
        XCTAssertEqual(stats.lumaMin, 40)
        XCTAssertEqual(stats.lumaMax, 940)
        // (8·64 + 8·64 + 4·150 + 4·151 + 2·(40 + 940 + 5·64 + 100)) / 40
        XCTAssertEqual(stats.lumaMean!, Double(512 + 512 + 600 + 604 + 2 * 1400) / 40, accuracy: 1e-9)
        XCTAssertEqual(stats.black.runs, [0...2])
        // The smallest share of dark pixels of the run: every frame all dark.
        XCTAssertEqual(stats.blackRunDarkShares, [1])
        XCTAssertEqual(stats.frozen.runs, [1...1, 5...5])
        XCTAssertEqual(stats.frozen.count, 2)

        // One pixel of eight above 151 (152) is 87.5% dark: not black.
        var edge = FrameStatistics(bitDepth: 10, range: .video, hasAlpha: false)
        frame422([151, 151, 151, 152, 0, 0, 0, 0]) {
            edge.add(FrameMeasurement($0, index: 0, digest: "a", range: .video, light: nil))
        }
        XCTAssertEqual(edge.black.count, 0)

        // Full range, 12 bits: dark at or below 0.10·4095 = 409.5, so 409.
        var full = FrameStatistics(bitDepth: 12, range: .full, hasAlpha: false)
        let format = PlanarFormat(decoding: .c422, bitDepth: 12, alpha: false)
        for (index, luma) in [[409, 409, 0, 0], [410, 0, 0, 0]].enumerated() {
            let y = luma.map(UInt16.init)
            let chroma = [UInt16](repeating: 2048, count: 2)
            y.withUnsafeBytes { y in
                chroma.withUnsafeBytes { c in
                    let view = NativeFrameView(spans: [y, c, c], format: format, width: 4, height: 1)!
                    full.add(FrameMeasurement(view, index: index, digest: "\(index)", range: .full, light: nil))
                }
            }
        }
        XCTAssertEqual(full.black.runs, [0...0])
    }

    /// blackdetect's pixel threshold worked by hand: 8 bits 16 + 21.9 =
    /// 37.9; 10 bits 64 + 87.6 = 151.6; 12 bits 256 + 350.4 = 606.4; full
    /// range 0.1 · 1023 = 102.3 and 0.1 · 4095 = 409.5; each truncated.
    func testDarkPixelThresholds() {
        XCTAssertEqual(DarkPixels.threshold(range: .video, bitDepth: 8), 37)
        XCTAssertEqual(DarkPixels.threshold(range: .video, bitDepth: 10), 151)
        XCTAssertEqual(DarkPixels.threshold(range: .video, bitDepth: 12), 606)
        XCTAssertEqual(DarkPixels.threshold(range: .full, bitDepth: 10), 102)
        XCTAssertEqual(DarkPixels.threshold(range: .full, bitDepth: 12), 409)
        // 98 of 100 dark is black, 97 is not.
        XCTAssertTrue(DarkPixels.isBlack(dark: 98, of: 100))
        XCTAssertFalse(DarkPixels.isBlack(dark: 97, of: 100))
        XCTAssertFalse(DarkPixels.isBlack(dark: 0, of: 0))
    }

    /// Frozen by the still difference: at most 0.001 (−60 dB) is frozen,
    /// and a run keeps its largest difference; an exact repeat (same
    /// digest) is frozen with a difference of 0.
    func testFrozenByStillDifference() {
        var stats = FrameStatistics(bitDepth: 10, range: .video, hasAlpha: false, framesPerSecond: 25)
        let sums = PictureSums(
            lumaMin: 500, lumaMax: 500, lumaSum: 500, darkPixels: 0, samples: 1, alpha: nil, outOfRange: nil,
            light: nil)
        let differences: [Double?] = [nil, 0.0004, 0.001, 0.0011, 0.0002, nil]
        let digests = ["a", "b", "c", "d", "e", "e"]
        for (index, difference) in differences.enumerated() {
            stats.add(FrameMeasurement(index: index, digest: digests[index], sums: sums, stillDifference: difference))
        }
        XCTAssertEqual(stats.frozen.runs, [1...2, 4...5])
        XCTAssertEqual(stats.frozenRunDifferences, [0.001, 0.0002])
        // The hold from frame 0 to frame 3 (0.12 s), and from 3 to 6.
        let json = stats.frozenRunsJSON
        XCTAssertTrue(json.contains("\"frames\":[1,2],\"start\":0,\"end\":0.12,\"duration\":0.12"), json)
        XCTAssertTrue(json.contains("\"frames\":[4,5],\"start\":0.12,\"end\":0.24"), json)
    }

    func testAlphaCoverage() {
        let format = PlanarFormat(decoding: .c444, bitDepth: 12, alpha: true)
        var stats = FrameStatistics(bitDepth: 12, range: .video, hasAlpha: true)
        let plane = [UInt16](repeating: 2048, count: 4)
        for (index, alpha) in [[0, 0, 0, 0], [4095, 4095, 4095, 4095], [0, 4095, 1, 4094], [0, 0, 4095, 2048]]
            .enumerated()
        {
            let a = alpha.map(UInt16.init)
            plane.withUnsafeBytes { p in
                a.withUnsafeBytes { a in
                    stats.add(
                        FrameMeasurement(
                            NativeFrameView(spans: [p, p, p, a], format: format, width: 2, height: 2)!, index: index,
                            digest: "\(index)", range: .video, light: nil))
                }
            }
        }
        XCTAssertEqual(stats.transparentFrames, 1)
        XCTAssertEqual(stats.opaqueFrames, 1)
        XCTAssertEqual(stats.partialFrames, 2)
        XCTAssertEqual(stats.transparentFraction!, 7.0 / 16, accuracy: 1e-12)  // 4 + 1 + 2
        XCTAssertEqual(stats.opaqueFraction!, 6.0 / 16, accuracy: 1e-12)  // 4 + 1 + 1
    }

    /// Padded rows arrive as one span per row; whole planes as one span.
    func testFrameViewReadsRowSpansAndRejectsWrongSizes() {
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        // 3x2: Y rows, Cb rows, Cr rows
        let rows: [[UInt16]] = [[1, 2, 3], [4, 5, 6], [7, 8], [9, 10], [11, 12], [13, 14]]
        let buffers = rows.map { row in UnsafeMutableRawBufferPointer.allocate(byteCount: row.count * 2, alignment: 16)
        }
        defer { buffers.forEach { $0.deallocate() } }
        for (buffer, row) in zip(buffers, rows) { row.withUnsafeBytes { buffer.copyMemory(from: $0) } }
        let spans = buffers.map { UnsafeRawBufferPointer($0) }
        let view = NativeFrameView(spans: spans, format: format, width: 3, height: 2)
        XCTAssertEqual(view.map { Array($0.row(plane: 0, y: 1)) }, [4, 5, 6])
        XCTAssertEqual(view.map { Array($0.row(plane: 2, y: 0)) }, [11, 12])
        XCTAssertNil(
            NativeFrameView(spans: Array(spans.dropLast()), format: format, width: 3, height: 2), "a plane short")
        XCTAssertNil(NativeFrameView(spans: spans + [spans[0]], format: format, width: 3, height: 2), "bytes left over")
    }

    /// Neutral grey at the top code: PQ signal 1.0 is 10 000 nits; HLG signal
    /// 1.0 is scene light 1.0, shown at the 1000-nit nominal peak. Code 64 is 0.
    func testLightLevelOnSyntheticFrames() throws {
        func tags(_ transfer: Int) -> ColorTags {
            ColorTags(bitstream: (9, transfer, 9), container: (2, 2, 2, nil), height: 1080)
        }
        let pq = try XCTUnwrap(try LightLevelMeter(tags: tags(16), bitDepth: 10))
        XCTAssertEqual(pq.nits(y: 940, cb: 512, cr: 512), 10000, accuracy: 1e-6)
        XCTAssertEqual(pq.nits(y: 64, cb: 512, cr: 512), 0, accuracy: 1e-9)
        var stats = FrameStatistics(bitDepth: 10, range: .video, hasAlpha: false, measuresLight: true)
        // Half the frame at 10 000 nits, half black: the grid (x = 0, 4) sees one of each per row.
        frame422([940, 940, 940, 940, 64, 64, 64, 64], width: 8, height: 1) {
            let light = pq.measure($0)
            XCTAssertEqual(light.peak, 10000, accuracy: 1e-6)
            XCTAssertEqual(light.average, 5000, accuracy: 1e-6)
            stats.add(FrameMeasurement($0, index: 0, digest: "a", range: .video, light: pq))
        }
        frame422([64, 64, 64, 64, 64, 64, 64, 64], width: 8, height: 1) {
            stats.add(FrameMeasurement($0, index: 1, digest: "b", range: .video, light: pq))
        }
        XCTAssertEqual(stats.maxNits ?? -1, 10000, accuracy: 1e-6)
        XCTAssertEqual(
            stats.maxFrameAverageNits ?? -1, 5000, accuracy: 1e-6, "a darker frame does not lower the peak average")

        let hlg = try XCTUnwrap(try LightLevelMeter(tags: tags(18), bitDepth: 10))
        // BT.2100's rounded a, b, c put the inverse OETF of 1.0 at 1 + 3e-8.
        XCTAssertEqual(hlg.nits(y: 940, cb: 512, cr: 512), 1000, accuracy: 1e-4)
        XCTAssertNil(try LightLevelMeter(tags: tags(1), bitDepth: 10), "BT.709 has no absolute light level")
        XCTAssertThrowsError(
            try LightLevelMeter(
                tags: ColorTags(bitstream: (9, 16, 10), container: (2, 2, 2, nil), height: 1080), bitDepth: 10),
            "BT.2020 constant luminance has no maths here")
    }
}
