import Foundation
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResPipeline
@testable import TestSupport

/// Saved EXRs and PNGs read back by other people's readers: OpenEXR's
/// `exrheader`, OpenImageIO's `oiiotool`, the ffmpeg CLI, `pngcheck` and
/// Python. Sources are made by the ffmpeg CLI with a 4:3 sample aspect, a
/// `tmcd` time code and PQ tags (`makeTaggedClip`).
final class ImageFileReaderTests: XCTestCase {
    /// An EXR straight from FFmpeg's encoder, then tagged: both decode to
    /// the same pixels, and the tagged one has every attribute. 37 rows make
    /// three ZIP chunks, the last one short, so every offset is shifted.
    func testTaggingAnEXRLeavesItsPixelsAlone() throws {
        let dir = try makeTemporaryDirectory(self)
        let (width, height) = (20, 37)
        let plain = try StillImageEncoder.encode(.exrHalfGBRA, width: width, height: height, errorPath: "t") { planes in
            for (p, plane) in planes.enumerated() {
                for y in 0..<height {
                    let row = (plane.base + y * plane.bytesPerRow).assumingMemoryBound(to: Float.self)
                    for x in 0..<width { row[x] = Float(x * 7 + y * 3 + p) / 50 - 0.25 }
                }
            }
        }
        var tags = ImageFileTags()
        tags.sampleAspectRatio = (4, 3)
        tags.frameRate = (30000, 1001)
        tags.startTimecode = SMPTETimecode("10:00:00;00", rate: (30000, 1001))
        tags.whiteLuminance = 100
        let tagged = try tags.taggedEXR(plain, frameIndex: 1800, errorPath: "t")
        let plainPath = dir.appendingPathComponent("plain.exr").path
        let taggedPath = dir.appendingPathComponent("tagged.exr").path
        try Data(plain).write(to: URL(fileURLWithPath: plainPath))
        try Data(tagged).write(to: URL(fileURLWithPath: taggedPath))

        func pixels(_ path: String) throws -> Data {
            let run = try runExternal([
                "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gbrapf32le", "-",
            ])
            XCTAssertEqual(run.status, 0, run.stderr)
            return run.stdout
        }
        let before = try pixels(plainPath)
        XCTAssertEqual(before.count, width * height * 16)
        XCTAssertEqual(try pixels(taggedPath), before)

        let header = try runExternal(["exrheader", taggedPath])
        XCTAssertEqual(header.status, 0, header.stderr)
        for line in [
            "red   (0.68 0.32)", "green (0.265 0.69)", "blue  (0.15 0.06)", "white (0.3127 0.329)",
            "pixelAspectRatio (type float): 1.33333", "framesPerSecond (type rational): 30000/1001",
            "time 10:01:00:02", "drop frame 1", "whiteLuminance (type float): 100",
        ] {
            XCTAssertTrue(header.text.contains(line), "exrheader lacks '\(line)':\n\(header.text)")
        }
        // OpenImageIO reads every pixel (a bad offset table fails here).
        let stats = try runExternal(["oiiotool", "--stats", taggedPath])
        XCTAssertEqual(stats.status, 0, stats.stderr)
    }

    func testSavedEXRsSayWhatTheyAre() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = try makeTaggedClip(in: dir)
        let out = dir.appendingPathComponent("exr").path
        let result = try runTool([
            clip, "--save", out, "--start", "1", "--frames", "2", "--reference-white", "100", "--quiet",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        for (index, time) in [(1, "01:02:03:05"), (2, "01:02:03:06")] {
            let path = out + "/" + FrameSaver.fileName(index: index, format: .exr)
            let header = try runExternal(["exrheader", path])
            XCTAssertEqual(header.status, 0, header.stderr)
            for line in [
                "chromaticities (type chromaticities)", "red   (0.68 0.32)", "white (0.3127 0.329)",
                "pixelAspectRatio (type float): 1.33333", "framesPerSecond (type rational): 25/1",
                "time \(time)", "drop frame 0", "whiteLuminance (type float): 100",
            ] {
                XCTAssertTrue(header.text.contains(line), "exrheader lacks '\(line)':\n\(header.text)")
            }
            let info = try runExternal(["oiiotool", "--info", "-v", path])
            XCTAssertEqual(info.status, 0, info.stderr)
            for line in [
                "chromaticities: 0.68, 0.32, 0.265, 0.69, 0.15, 0.06, 0.3127, 0.329", "PixelAspectRatio: 1.33333",
                "framesPerSecond: 25/1", "smpte:TimeCode: \(time)", "whiteLuminance: 100",
            ] {
                XCTAssertTrue(info.text.contains(line), "oiiotool lacks '\(line)':\n\(info.text)")
            }
        }
    }

    /// 29.97 drop-frame counting across a minute; SDR source: no whiteLuminance; square pixels say 1.
    func testDropFrameTimecodesAndSDRSources() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = try makeTaggedClip(
            in: dir, sar: "1/1", rate: "30000/1001", timecode: "00:00:59;28", transfer: "bt709")
        let out = dir.appendingPathComponent("exr").path
        let result = try runTool([clip, "--save", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for (index, time) in [(0, "00:00:59:28"), (1, "00:00:59:29"), (2, "00:01:00:02"), (3, "00:01:00:03")] {
            let header = try runExternal(["exrheader", out + "/" + FrameSaver.fileName(index: index, format: .exr)])
            XCTAssertEqual(header.status, 0, header.stderr)
            XCTAssertTrue(header.text.contains("time \(time)") && header.text.contains("drop frame 1"), header.text)
            XCTAssertTrue(header.text.contains("framesPerSecond (type rational): 30000/1001"), header.text)
            XCTAssertTrue(header.text.contains("pixelAspectRatio (type float): 1\n"), header.text)
            XCTAssertFalse(header.text.contains("whiteLuminance"), header.text)
        }
    }

    func testSavedPNGsSayDisplayP3AndTheirPixelShape() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = try makeTaggedClip(in: dir)
        let out = dir.appendingPathComponent("png").path
        let result = try runTool([clip, "--save", out, "--save-format", "png", "--frames", "1", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertTaggedPNG(out + "/frame-000000.png")
    }

    func testCheckPreviewsSayDisplayP3AndTheirPixelShape() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = try makeTaggedClip(in: dir)
        let previews = dir.appendingPathComponent("previews")
        let result = try runTool(["check", clip, "--previews", previews.path, "--preview-frames", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let made = try FileManager.default.contentsOfDirectory(atPath: previews.path).sorted()
        XCTAssertEqual(made.count, 2, "\(made)")
        for name in made { try assertTaggedPNG(previews.appendingPathComponent(name).path) }
    }

    /// cICP P3-D65 / sRGB curve / RGB / full range, an iCCP Display P3
    /// profile, pHYs 3:4 per unit (pixels 4 wide by 3 high), all before IDAT.
    private func assertTaggedPNG(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try PythonPNGReport(path: path)
        let types = report.chunks.map(\.type)
        XCTAssertTrue(report.chunks.allSatisfy(\.crcOK), "\(path): a CRC is wrong", file: file, line: line)
        XCTAssertEqual(Array(types.prefix(4)), ["IHDR", "cICP", "iCCP", "pHYs"], path, file: file, line: line)
        XCTAssertEqual(types.filter { $0 == "pHYs" }.count, 1, file: file, line: line)
        XCTAssertEqual(report.data("cICP"), [12, 13, 0, 1], file: file, line: line)
        XCTAssertEqual(report.data("pHYs"), [0, 0, 0, 3, 0, 0, 0, 4, 0], file: file, line: line)

        let profile = try XCTUnwrap(report.profile, file: file, line: line)
        XCTAssertEqual(profile.name, "Display P3", file: file, line: line)
        XCTAssertEqual(profile.size, profile.declaredSize, file: file, line: line)
        XCTAssertEqual(
            [profile.version, profile.deviceClass, profile.colorSpace, profile.pcs],
            ["04300000", "mntr", "RGB ", "XYZ "],
            file: file, line: line)
        for (tag, expected) in zip(["rXYZ", "gXYZ", "bXYZ"], IndependentP3D50.colorants) + [
            ("wtpt", IndependentP3D50.d50)
        ] {
            let values = try XCTUnwrap(profile.xyz[tag], tag, file: file, line: line)
            for (got, want) in zip(values, expected) {
                XCTAssertEqual(got, want, accuracy: 1e-3, tag, file: file, line: line)
            }
        }
        let adaptation = IndependentP3D50.adaptation.flatMap { $0 }
        let chad = try XCTUnwrap(profile.chad, file: file, line: line)
        XCTAssertEqual(chad.count, adaptation.count, "chad", file: file, line: line)
        for (got, want) in zip(chad, adaptation) {
            XCTAssertEqual(got, want, accuracy: 1e-3, "chad", file: file, line: line)
        }
        for tag in ["rTRC", "gTRC", "bTRC"] {
            let curve = try XCTUnwrap(profile.curves[tag], tag, file: file, line: line)
            XCTAssertEqual(curve.count, 6, "\(tag): the type (3) and its 5 parameters", file: file, line: line)
            for (got, want) in zip(curve, [3, 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]) {
                XCTAssertEqual(got, want, accuracy: 1e-4, tag, file: file, line: line)
            }
        }

        // OpenImageIO (through libpng) sees the profile and a 4:3 pixel.
        let info = try runExternal(["oiiotool", "--info", "-v", path])
        XCTAssertEqual(info.status, 0, info.stderr, file: file, line: line)
        for expected in [
            "PixelAspectRatio: 1.33333", "ICCProfile:profile_description: \"Display P3",
            "ICCProfile:profile_version: \"4.3.0\"",
        ] {
            XCTAssertTrue(
                info.text.contains(expected), "oiiotool lacks '\(expected)':\n\(info.text)", file: file, line: line)
        }
        // pngcheck 3.0.3 (Debian 12) predates cICP and calls any unknown
        // public chunk an error; everything else it must pass, so it checks
        // a copy without cICP.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let withoutCICP =
            try PNGChunkEditor.signature
            + PNGChunkEditor.parse(bytes).filter { $0.chunk.type != "cICP" }.flatMap { bytes[$0.range] }
        let copy = path + ".no-cicp.png"
        try Data(withoutCICP).write(to: URL(fileURLWithPath: copy))
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let check = try runExternal(["pngcheck", "-v", copy])
        XCTAssertEqual(check.status, 0, check.text + check.stderr, file: file, line: line)
        XCTAssertTrue(check.text.contains("No errors detected"), check.text, file: file, line: line)
    }
}
