import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCheck
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// `prores-decode check --previews DIR` run as a process on the machine's
/// Vulkan device (lavapipe in CI) with the validation layer on: the PNGs
/// read back by the `ffmpeg` CLI and compared with values computed here by
/// hand, the verdicts unchanged, and every way previews can fail.
///
/// The checkerboard, by PreviewRenderer's documentation: 8-pixel squares,
/// the light one at the picture's top-left; light sRGB 0.8 = 0xCCCC, dark
/// sRGB 0.6 = 0x9999; sheet gaps 8 px of 0x2020.
final class CheckPreviewTests: XCTestCase {
    static let light: UInt16 = 0xCCCC, dark: UInt16 = 0x9999, background: UInt16 = 0x2020
    static let validation = ["PRORES_DECODE_VALIDATION": "1"]

    // MARK: - Good files

    /// 4444.mov (192x112, 5 frames): rows 28–55 are fully transparent in
    /// every frame (Fixtures/README.md), so there both PNGs must hold the
    /// checkerboard exactly; opaque rows match `--save-format png` exactly.
    func testPreviewsShowTheCheckerboardWhereAlphaIsZero() throws {
        let out = try makeTemporaryDirectory(self)
        let previews = out.appendingPathComponent("new/previews")  // created, parents too
        let report = out.appendingPathComponent("r.json")
        let result = try runTool(
            ["check", Repo.fixture("4444.mov"), "--previews", previews.path, "--report", report.path],
            environment: Self.validation)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("validation"), result.stderr)
        // The directory, not the word: a checkout's own path may contain "previews".
        XCTAssertFalse(
            result.stderr.contains(previews.path), "without --verbose the paths are not mentioned: \(result.stderr)")

        let base = PreviewOptions.baseName(key: Repo.fixture("4444.mov"))
        XCTAssertTrue(base.hasPrefix("__") && !base.contains("/"), base)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: previews.path).sorted(),
            [base + ".frame.png", base + ".sheet.png"], "exactly the two PNGs, no temporaries")
        let file = try XCTUnwrap(try CheckFixtures.files(Data(contentsOf: report)).first)
        XCTAssertEqual(file["status"] as? String, "pass")
        let made = try XCTUnwrap(file["previews"] as? [String: Any])
        XCTAssertEqual(made["sheet"] as? String, previews.path + "/" + base + ".sheet.png")
        XCTAssertEqual(made["frame"] as? String, previews.path + "/" + base + ".frame.png")
        XCTAssertEqual(made["sheet_frames"] as? [Int], [0, 1, 2, 3, 4], "6 asked, 5 there: every frame")
        XCTAssertEqual(made["frame_index"] as? Int, 2, "the middle one")

        // The full frame: 192x112, 16-bit, opaque, the checker where alpha is 0.
        let frame = try PNGPixels(made["frame"] as! String)
        XCTAssertEqual(frame.pixelFormat, "rgb48be", "a 16-bit PNG")
        XCTAssertEqual([frame.width, frame.height], [192, 112])
        assertChecker(frame, left: 0, top: 0, rows: 28..<56, width: 192)
        XCTAssertTrue((0..<frame.height).allSatisfy { y in (0..<frame.width).allSatisfy { frame[$0, y].a == 65535 } })

        // Opaque rows: exactly FrameSaver's PNG of the same frame.
        let saved = out.appendingPathComponent("saved")
        let save = try runTool(
            [
                Repo.fixture("4444.mov"), "--save", saved.path, "--save-format", "png", "--start", "2", "--frames", "1",
                "--quiet",
            ],
            environment: Self.validation)
        XCTAssertEqual(save.status, 0, save.stderr)
        let reference = try PNGPixels(saved.appendingPathComponent("frame-000002.png").path)
        for y in 0..<28 {
            for x in 0..<192 where frame[x, y].rgb != reference[x, y].rgb {
                return XCTFail(
                    "opaque pixel (\(x), \(y)): \(frame[x, y].rgb), --save-format png has \(reference[x, y].rgb)")
            }
        }
        XCTAssertTrue(
            (0..<28).allSatisfy { y in (0..<192).allSatisfy { reference[$0, y].a == 65535 } }, "rows 0–27 are opaque")

        // The sheet: 3 a row, 8 px apart: 3·192 + 2·8 by 2·112 + 8.
        let sheet = try PNGPixels(made["sheet"] as! String)
        XCTAssertEqual([sheet.width, sheet.height], [592, 232])
        let origins = [(0, 0), (200, 0), (400, 0), (0, 120), (200, 120)]
        for (n, (left, top)) in origins.enumerated() {
            assertChecker(sheet, left: left, top: top, rows: 28..<56, width: 192, "thumbnail \(n)")
        }
        // Thumbnails of a 192-wide clip are the frames themselves (never enlarged).
        for y in 0..<112 {
            for x in 0..<192 where sheet[400 + x, y].rgb != frame[x, y].rgb {
                return XCTFail("thumbnail 2 differs from the full frame at (\(x), \(y))")
            }
        }
        // Gaps and the empty sixth cell are the background grey.
        for (x, y) in [(192, 0), (199, 111), (0, 112), (591, 119), (400, 120), (591, 231)] {
            XCTAssertEqual(sheet[x, y].rgb, [Self.background, Self.background, Self.background], "(\(x), \(y))")
        }
    }

    /// pq.mov's middle frame against the float64 reference, through the
    /// documented preview curve written out here: channels clipped at 0,
    /// largest channel m above 0.75 → 0.75 + 0.25·(1 − e^(−(m − 0.75)/0.25))
    /// (all three scaled alike), then the sRGB curve.
    ///
    /// Tolerance, per channel: the GPU's half floats are within 1e-3 of the
    /// larger of the channel and m, plus 2e-5 (VulkanConversionTests); the
    /// roll-off scale t(m)/m at most doubles that relative error (its slope
    /// is below 1), so the linear value is within δ = 2e-3·max(v, m)·t(m)/m
    /// + 2e-5; that interval is carried through the sRGB curve, plus one
    /// 16-bit step for rounding.
    func testPQHighlightsRollOffAndMidTonesFollowTheCurve() throws {
        let out = try makeTemporaryDirectory(self)
        let report = out.appendingPathComponent("r.json")
        let y416 = out.appendingPathComponent("f.y416")
        let result = try runTool(
            [
                "check", Repo.fixture("pq.mov"), "--previews", out.path, "--report", report.path, "--preview-frames",
                "3",
            ],
            environment: Self.validation)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("validation"), result.stderr)
        let made = try XCTUnwrap(try CheckFixtures.files(Data(contentsOf: report)).first?["previews"] as? [String: Any])
        XCTAssertEqual(made["sheet_frames"] as? [Int], [0, 2, 4])
        XCTAssertEqual(made["frame_index"] as? Int, 2)
        let png = try PNGPixels(made["frame"] as! String)
        XCTAssertEqual([png.width, png.height], [192, 112])

        let decode = try runTool([
            Repo.fixture("pq.mov"), "--format", "y416", "--start", "2", "--frames", "1", "-o", y416.path, "--quiet",
        ])
        XCTAssertEqual(decode.status, 0, decode.stderr)
        let codes = try Data(contentsOf: y416).withUnsafeBytes {
            Array($0.bindMemory(to: UInt16.self)).map(UInt16.init(littleEndian:))
        }
        XCTAssertEqual(codes.count, 192 * 112 * 4)
        // pq.mov's tags as Fixtures/ref/tags.tsv states them (BT.2020 NCL, PQ, BT.2020, video range), not as our reader finds them.
        let spec = try ConversionSpec(
            matrixCode: 9, transferCode: 16, primariesCode: 9, range: .video, referenceWhite: 203)

        func srgb(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        var midTones = 0
        var rolledOff = 0
        var worst = 0.0
        for y in 0..<112 {
            for x in 0..<192 {
                let i = (y * 192 + x) * 4
                let p = ReferenceConverter.convert(
                    y: codes[i + 1], cb: codes[i + 2], cr: codes[i + 3], a: codes[i], params: spec)
                let rgb = [p.r, p.g, p.b].map { max($0, 0) }
                let m = rgb.max()!
                let scale = m > 0.75 ? (0.75 + 0.25 * (1 - exp(-(m - 0.75) / 0.25))) / m : 1
                let expected = rgb.map { srgb($0 * scale) }
                let actual = png[x, y].rgb.map { Double($0) / 65535 }
                for c in 0..<3 {
                    let v = rgb[c] * scale
                    let delta = 2e-3 * max(rgb[c], m) * scale + 2e-5
                    let tolerance = max(srgb(v + delta) - srgb(v), srgb(v) - srgb(max(v - delta, 0))) + 1 / 65535
                    worst = max(worst, abs(actual[c] - expected[c]) / tolerance)
                    if abs(actual[c] - expected[c]) > tolerance {
                        return XCTFail(
                            "pixel (\(x), \(y)) channel \(c): \(actual[c]), expected \(expected[c]) ± \(tolerance) (linear \(rgb))"
                        )
                    }
                }
                if m > 0.05 && m <= 0.75 { midTones += 1 }
                if m > 1 && m < 3 {
                    rolledOff += 1
                    // Clipping would write 65535; the roll-off stays below.
                    XCTAssertLessThan(png[x, y].rgb.max()!, 65535, "pixel (\(x), \(y)), m = \(m)")
                }
            }
        }
        XCTAssertGreaterThan(midTones, 200, "the clip must have mid tones to test")
        XCTAssertGreaterThan(rolledOff, 20, "the clip must have highlights above 1.0 (203 nits) to test")
        print(
            "pq preview: \(midTones) mid-tone and \(rolledOff) highlight pixels; largest difference \(worst) of its tolerance"
        )
    }

    // MARK: - Verdicts never change

    /// The mixed directory of the snapshot test, with --previews: the JSON
    /// report without its "previews" fields, the JUnit XML and stderr are
    /// the snapshots byte for byte. Files that could not be checked get
    /// `"previews": null` and no PNG; damaged frames are on the sheet, marked.
    func testBrokenFilesGetNoPreviewsAndNothingElseChanges() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let previews = try makeTemporaryDirectory(self)
        let report = out.appendingPathComponent("report.json")
        let junit = out.appendingPathComponent("junit.xml")
        let result = try runTool(
            [
                "check", dir.path, "--report", report.path, "--junit", junit.path, "--expect", "profile=hq",
                "--policy", "default", "--threads", "1",
                "--previews", previews.path,
            ], environment: Self.validation)
        XCTAssertEqual(result.status, 10, result.stderr)
        let reportText = try String(contentsOf: report, encoding: .utf8)
        let withoutPreviews = reportText.replacingOccurrences(
            of: ",\"previews\":(null|\\{[^{}]*\\})", with: "", options: .regularExpression)
        try CheckFixtures.assertSnapshot(CheckFixtures.normalise(withoutPreviews, directory: dir), "mixed.report.json")
        try CheckFixtures.assertSnapshot(
            CheckFixtures.normalise(try String(contentsOf: junit, encoding: .utf8), directory: dir), "mixed.junit.xml")
        try CheckFixtures.assertSnapshot(CheckFixtures.normalise(result.stderr, directory: dir), "mixed.stderr.txt")

        var expectedPNGs: [String] = []
        for file in try CheckFixtures.files(Data(reportText.utf8)) {
            let key = file["key"] as! String
            let status = file["status"] as! String
            if status == "error" {
                XCTAssertTrue(file["previews"] is NSNull, "\(key): a file that could not be checked gets none")
                continue
            }
            let made = try XCTUnwrap(
                file["previews"] as? [String: Any], "\(key): \(String(describing: file["previews"]))")
            let base = key.replacingOccurrences(of: "/", with: "__")
            XCTAssertEqual(made["sheet"] as? String, previews.path + "/" + base + ".sheet.png")
            expectedPNGs += [base + ".frame.png", base + ".sheet.png"]
            var frames: [Int]
            var damaged: [Int] = []
            switch key {
            case "bad/corrupt-slice.mov":
                // frame 2 damaged: on the sheet, marked
                (frames, damaged) = ([0, 1, 3, 4], [2])
            case "bad/bad-header.mov": frames = [0, 2, 3, 4]  // frame 1 not decoded
            case "bad/truncated-faststart.mov": frames = [0, 1]  // frame 2 cut, 3 and 4 missing
            default: frames = [0, 1, 2, 3, 4]
            }
            XCTAssertEqual(made["sheet_frames"] as? [Int], (frames + damaged).sorted(), key)
            XCTAssertEqual(made["sheet_damaged"] as? [Int], damaged, key)
            XCTAssertEqual(
                made["frame_index"] as? Int, frames[frames.count / 2], "\(key): the full frame is a clean one")
        }
        XCTAssertEqual(expectedPNGs.count, 16, "8 files were read")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: previews.path).sorted(), expectedPNGs.sorted())
        let truncated = try PNGPixels(previews.appendingPathComponent("bad__truncated-faststart.mov.sheet.png").path)
        XCTAssertEqual([truncated.width, truncated.height], [2 * 192 + 8, 112], "two thumbnails, one row")
    }

    /// A damaged frame's concealed picture is on the contact sheet with the
    /// mark (a red border and red diagonal bands), with either decoder; the
    /// clean frames' tiles carry no mark. Pixels read back by ffmpeg.
    func testDamagedFramesAreMarkedOnTheSheet() throws {
        for decoder in ["cpu", "gpu"] {
            let previews = try makeTemporaryDirectory(self)
            let result = try runTool(
                [
                    "check", Repo.fixture("bad/corrupt-slice.mov"), "--decoder", decoder, "--report", "-",
                    "--previews", previews.path,
                ], environment: Self.validation)
            XCTAssertEqual(result.status, 10, "a FAIL: \(result.stderr)")
            let file = try XCTUnwrap(try CheckFixtures.files(result.stdout).first)
            let made = try XCTUnwrap(
                file["previews"] as? [String: Any], "\(decoder): \(String(describing: file["previews"]))")
            XCTAssertEqual(made["sheet_frames"] as? [Int], [0, 1, 2, 3, 4], decoder)
            XCTAssertEqual(made["sheet_damaged"] as? [Int], [2], decoder)
            let sheet = try PNGPixels(made["sheet"] as! String)
            // 3 columns of 192 × 112 thumbnails, 8 pixels apart; frame 2 is the third tile.
            XCTAssertEqual([sheet.width, sheet.height], [3 * 192 + 2 * 8, 2 * 112 + 8], decoder)
            let red: [UInt16] = [0xFFFF, 0, 0]
            for (tile, (left, top)) in [(0, 0), (200, 0), (400, 0), (0, 120), (200, 120)].enumerated() {
                var border = 0
                var bands = 0
                var elsewhere = 0
                for y in 0..<112 {
                    for x in 0..<192 {
                        let isRed = sheet[left + x, top + y].rgb == red
                        if min(x, y, 191 - x, 111 - y) < 4 {
                            border += isRed ? 1 : 0
                        } else if (x + y) % 16 < 3 {
                            bands += isRed ? 1 : 0
                        } else {
                            elsewhere += isRed ? 1 : 0
                        }
                    }
                }
                let borderPixels = 192 * 112 - 184 * 104
                if tile == 2 {
                    XCTAssertEqual(border, borderPixels, "\(decoder): the damaged tile's whole border is red")
                    XCTAssertGreaterThan(
                        bands, 184 * 104 * 3 / 16 - 200, "\(decoder): the damaged tile's bands are red")
                    XCTAssertLessThan(
                        elsewhere, 184 * 104 / 2, "\(decoder): the concealed picture shows between the bands")
                } else {
                    XCTAssertEqual(border + bands, 0, "\(decoder): tile \(tile) (a clean frame) carries no mark")
                }
            }
        }
    }

    /// No Vulkan driver: the same verdicts, exit status and report (but for
    /// "previews", which says why), a warning before TOTAL, no PNG.
    func testNoVulkanKeepsTheVerdictAndSaysWhy() throws {
        let out = try makeTemporaryDirectory(self)
        let previews = try makeTemporaryDirectory(self)
        let clips = [Repo.fixture("hq.mov"), Repo.fixture("bad/corrupt-slice.mov"), Repo.fixture("bad/empty.mov")]
        let plain = try runTool(["check"] + clips + ["--report", out.appendingPathComponent("plain.json").path])
        let noDriver = ["VK_ICD_FILENAMES": "/nonexistent/icd.json", "VK_DRIVER_FILES": "/nonexistent/icd.json"]
        let report = out.appendingPathComponent("r.json")
        let result = try runTool(
            ["check"] + clips + ["--report", report.path, "--previews", previews.path], environment: noDriver)
        XCTAssertEqual(result.reason, .exit, "must not crash")
        XCTAssertEqual(plain.status, 10)
        XCTAssertEqual(result.status, plain.status, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: previews.path), [])

        let text = try String(contentsOf: report, encoding: .utf8)
        let stripped = text.replacingOccurrences(
            of: ",\"previews\":(null|\\{[^{}]*\\})", with: "", options: .regularExpression)
        // The digest covers the file lines, which differ by their previews.
        let seconds = { (t: String) in
            t.replacingOccurrences(of: "\"seconds\":[0-9.e+-]+", with: "\"seconds\":0", options: .regularExpression)
                .replacingOccurrences(
                    of: "\"files_digest\":\"blake3:[0-9a-f]{64}\"", with: "\"files_digest\":\"\"",
                    options: .regularExpression)
        }
        XCTAssertEqual(
            seconds(stripped),
            seconds(try String(contentsOf: out.appendingPathComponent("plain.json"), encoding: .utf8)))
        let files = try CheckFixtures.files(Data(text.utf8))
        XCTAssertEqual(files.map { $0["path"] as? String }, [clips[1], clips[2], clips[0]], "path order")
        for file in [files[0], files[2]] {
            let error = (file["previews"] as? [String: Any])?["error"] as? String ?? ""
            XCTAssertTrue(error.contains("Vulkan"), "\(file["key"]!): \(error)")
        }
        XCTAssertTrue(files[1]["previews"] is NSNull, "empty.mov could not be checked")

        let lines = result.stderr.split(separator: "\n").map(String.init)
        let plainLines = plain.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, plainLines.count + 1, result.stderr)
        XCTAssertEqual(Array(lines.prefix(3)), Array(plainLines.prefix(3)), "the per-file lines are unchanged")
        XCTAssertTrue(
            lines[3].hasPrefix(
                "prores-decode: warning: no previews for 2 files (first: \(clips[1]): no usable Vulkan device"),
            lines[3])
        XCTAssertTrue(lines[4].hasPrefix("TOTAL 3 files"), result.stderr)

        let verbose = try runTool(["check", clips[0], "--previews", previews.path, "--verbose"], environment: noDriver)
        XCTAssertEqual(verbose.status, 0, verbose.stderr)
        XCTAssertTrue(
            verbose.stderr.contains("PASS \(clips[0])\n  previews: none: no usable Vulkan device"), verbose.stderr)
    }

    // MARK: - Options

    func testVerboseNamesThePreviewsAndSampleLimitsTheFrames() throws {
        let out = try makeTemporaryDirectory(self)
        let dir = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mxf"), toPath: dir.appendingPathComponent("sub/hq.mxf").path)
        let result = try runTool(
            ["check", dir.path, "--previews", out.path + "/", "--sample", "3", "--verbose", "--report", "-"],
            environment: Self.validation)
        XCTAssertEqual(result.status, 0, result.stderr)
        let sheet = out.path + "/sub__hq.mxf.sheet.png"
        let frame = out.path + "/sub__hq.mxf.frame.png"
        XCTAssertTrue(
            result.stderr.contains("PASS \(dir.path)/sub/hq.mxf\n  previews: \(sheet), \(frame)\n"), result.stderr)
        let made = try XCTUnwrap(try CheckFixtures.files(result.stdout).first?["previews"] as? [String: Any])
        XCTAssertEqual(made["sheet_frames"] as? [Int], [0, 2, 4], "previews come from the checked frames")
        XCTAssertEqual(made["frame_index"] as? Int, 2)
        let png = try PNGPixels(sheet)
        XCTAssertEqual([png.width, png.height], [3 * 192 + 2 * 8, 112])
    }

    func testPreviewUsageErrors() throws {
        let hq = Repo.fixture("hq.mov")
        let dir = try makeTemporaryDirectory(self)
        let plain = dir.appendingPathComponent("plain")
        try Data("keep".utf8).write(to: plain)

        // A file where the directory should be: one clear error, exit 6, nothing checked.
        let intoFile = try runTool(["check", hq, "--previews", plain.path])
        XCTAssertEqual(intoFile.status, 6, intoFile.stderr)
        XCTAssertEqual(
            intoFile.stderr,
            "prores-decode: error: cannot write '\(plain.path)': --previews: exists and is not a directory\n")
        XCTAssertEqual(try String(contentsOf: plain, encoding: .utf8), "keep")
        let underFile = try runTool(["check", hq, "--previews", plain.path + "/sub"])
        XCTAssertEqual(underFile.status, 6, underFile.stderr)
        XCTAssertTrue(
            underFile.stderr.hasPrefix(
                "prores-decode: error: cannot write '\(plain.path)/sub': --previews: cannot create"), underFile.stderr)

        // Two files whose previews would overwrite each other.
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent(name), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: hq, toPath: dir.appendingPathComponent(name + "/hq.mov").path)
        }
        let clash = try runTool([
            "check", dir.appendingPathComponent("a").path, dir.appendingPathComponent("b").path,
            "--previews", dir.appendingPathComponent("p").path,
        ])
        XCTAssertEqual(clash.status, 2, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("would share the preview name 'hq.mov'"), clash.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir.appendingPathComponent("p").path), "a usage error makes nothing")

        for arguments in [
            ["--preview-frames", "3"], ["--previews", dir.path, "--preview-frames", "0"],
            ["--previews", dir.path, "--preview-frames", "101"], ["--previews", ""],
        ] {
            let result = try runTool(["check", hq] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
        }
        let help = try runTool(["check", "--help"])
        for option in ["--previews DIR", "--preview-frames K", "checkerboard"] {
            XCTAssertTrue(help.stdoutText.contains(option), "check --help does not mention \(option)")
        }
    }

    // MARK: - Helpers

    /// Every pixel of `rows` (in picture coordinates) of the picture at
    /// (left, top) is the checker square's grey: light where (x/8 + y/8) is even.
    private func assertChecker(
        _ png: PNGPixels, left: Int, top: Int, rows: Range<Int>, width: Int, _ what: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for y in rows {
            for x in 0..<width {
                let grey = (x / 8 + y / 8) % 2 == 0 ? Self.light : Self.dark
                let pixel = png[left + x, top + y]
                if pixel.rgb != [grey, grey, grey] {
                    return XCTFail(
                        "\(what) pixel (\(x), \(y)) is \(pixel.rgb), the checker there is \(grey)", file: file,
                        line: line)
                }
            }
        }
    }
}

/// A PNG decoded by the `ffmpeg` CLI (an independent reader) to 16-bit RGBA.
struct PNGPixels {
    let width: Int
    let height: Int
    /// The PNG's own pixel format as ffprobe names it (rgb48be, rgba64be, ...).
    let pixelFormat: String
    private let samples: [UInt16]

    init(_ path: String) throws {
        let probe = try Self.run([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,pix_fmt",
            "-of", "csv=p=0", path,
        ])
        let fields = String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ",")
        guard fields.count == 3, let width = Int(fields[0]), let height = Int(fields[1]) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "ffprobe cannot read \(path)"])
        }
        self.width = width
        self.height = height
        pixelFormat = String(fields[2])
        let raw = try Self.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba64be", "-"])
        guard raw.count == width * height * 8 else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "ffmpeg gave \(raw.count) bytes for \(path)"])
        }
        samples = raw.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)).map(UInt16.init(bigEndian:)) }
    }

    subscript(x: Int, y: Int) -> (rgb: [UInt16], a: UInt16) {
        let i = (y * width + x) * 4
        return (Array(samples[i..<i + 3]), samples[i + 3])
    }

    private static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "\(arguments[0]) failed on \(arguments.last!)"])
        }
        return data
    }
}
