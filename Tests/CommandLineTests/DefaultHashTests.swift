import Foundation
import XCTest

@testable import TestSupport

/// What `--framemd5` and `--framehash` hash without `--format`: the native
/// planar frames `--format native -o` writes, so that the lines equal
/// `ffmpeg -f framemd5`'s and `b3sum`'s of ffmpeg's own frames, on both
/// decoders and beside any other output. With `--format v216|y416` the
/// packed bytes are hashed and the header names the layout.
final class DefaultHashTests: XCTestCase {
    static let clips = ["hq.mov", "4444.mov", "odd-size-444.mov", "interlaced-tff.mov", "odd-size.mov"]
    static let decoders = ["cpu", "gpu"]

    private func hashColumn(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces))
        }
    }

    private func sizeColumn(_ text: String) -> [Int] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            Int($0.split(separator: ",")[4].trimmingCharacters(in: .whitespaces))!
        }
    }

    func testDefaultFrameMD5IsFFmpegsFramemd5OnBothDecoders() throws {
        for clip in Self.clips {
            let live = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-i", Repo.fixture(clip), "-fflags", "+bitexact",
                    "-f", "framemd5", "-",
                ])
            for decoder in Self.decoders {
                let ours = try runTool(
                    [Repo.fixture(clip), "--decoder", decoder, "--framemd5", "-", "--quiet"], timeout: 120)
                XCTAssertEqual(ours.status, 0, "\(clip) \(decoder): \(ours.stderr)")
                XCTAssertEqual(
                    ours.stdoutText, String(decoding: live, as: UTF8.self), "\(clip) --decoder \(decoder) --framemd5")
            }
        }
    }

    func testDefaultFrameHashIsB3sumOfFFmpegsFrames() throws {
        for clip in Self.clips {
            let frames = try FrameTools.split(
                try FrameTools.runProcess(
                    "/usr/bin/ffmpeg", ["-v", "error", "-i", Repo.fixture(clip), "-f", "rawvideo", "-"]), clip: clip)
            let expected = try B3Sum.hexes(frames)
            for decoder in Self.decoders {
                let ours = try runTool(
                    [Repo.fixture(clip), "--decoder", decoder, "--framehash", "-", "--quiet"], timeout: 120)
                XCTAssertEqual(ours.status, 0, "\(clip) \(decoder): \(ours.stderr)")
                XCTAssertEqual(hashColumn(ours.stdoutText), expected, "\(clip) --decoder \(decoder) --framehash")
                XCTAssertEqual(sizeColumn(ours.stdoutText), frames.map(\.count), "\(clip) \(decoder): the size column")
                XCTAssertFalse(
                    ours.stdoutText.contains("#layout"), "the native frame's header is ffmpeg's:\n\(ours.stdoutText)")
            }
        }
    }

    /// `-o` (packed v216 by default for raw) or `--vulkan` in the same run
    /// leaves the hashes on the native planes; `-o` still writes v216.
    func testHashesStayNativeBesideAPackedOutput() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = "hq.mov"
        let md5s = try ffmpegFrameMD5s(clip)
        let blake3s = try ffmpegFrameBLAKE3s(clip)
        for decoder in Self.decoders {
            for extra in [["-o", dir.appendingPathComponent("out-\(decoder).raw").path], ["--vulkan"]] {
                let hashes = dir.appendingPathComponent("h-\(decoder)-\(extra[0]).b3").path
                let result = try runTool(
                    [Repo.fixture(clip), "--decoder", decoder, "--framemd5", "-", "--framehash", hashes, "--quiet"]
                        + extra,
                    timeout: 120)
                XCTAssertEqual(result.status, 0, "\(decoder) \(extra): \(result.stderr)")
                XCTAssertEqual(hashColumn(result.stdoutText), md5s, "\(decoder) \(extra): --framemd5")
                XCTAssertEqual(
                    hashColumn(try String(contentsOfFile: hashes, encoding: .utf8)), blake3s,
                    "\(decoder) \(extra): --framehash")
            }
            let raw = try Data(contentsOf: dir.appendingPathComponent("out-\(decoder).raw"))
            let frames = try FrameTools.split(raw, clip: clip, packed: true)
            XCTAssertEqual(
                try MD5Sum.hexes(frames), try packedReferenceMD5s(clip, layout: "v216"),
                "\(decoder): -o writes v216 as before")
        }
    }

    /// `--format v216|y416`: the md5s are the independent packer's
    /// (Fixtures/ref/*.v216.md5), the BLAKE3s b3sum's of those same bytes,
    /// and the header says which layout was hashed: the decoder's own
    /// layout (v216 for 4:2:2, y416 for 4:4:4) and the other one, made from
    /// it (on the GPU decoder's device, from its surface).
    func testAnExplicitPackedLayoutIsHashedAndNamed() throws {
        for (clip, layout) in [
            ("hq.mov", "v216"), ("4444.mov", "y416"), ("odd-size.mov", "v216"), ("hq.mov", "y416"),
            ("odd-size.mov", "y416"), ("4444.mov", "v216"), ("odd-size-444.mov", "v216"),
        ] {
            let reference = try packedReferenceMD5s(clip, layout: layout)
            let bytes = try runTool(
                [Repo.fixture(clip), "--decoder", "cpu", "--format", layout, "-o", "-", "--quiet"], timeout: 120)
            XCTAssertEqual(bytes.status, 0, bytes.stderr)
            let frameBytes = bytes.stdout.count / reference.count
            let frames = stride(from: 0, to: bytes.stdout.count, by: frameBytes).map {
                bytes.stdout.subdata(in: $0..<$0 + frameBytes)
            }
            XCTAssertEqual(try MD5Sum.hexes(frames), reference, "\(clip) \(layout): -o's bytes are the packer's")
            let blake3s = try B3Sum.hexes(frames)
            for decoder in Self.decoders {
                for (option, expected) in [("--framemd5", reference), ("--framehash", blake3s)] {
                    let result = try runTool(
                        [Repo.fixture(clip), "--decoder", decoder, "--format", layout, option, "-", "--quiet"],
                        timeout: 120)
                    XCTAssertEqual(result.status, 0, "\(clip) \(layout) \(decoder) \(option): \(result.stderr)")
                    XCTAssertEqual(hashColumn(result.stdoutText), expected, "\(clip) \(layout) \(decoder) \(option)")
                    XCTAssertEqual(
                        sizeColumn(result.stdoutText), frames.map(\.count),
                        "\(clip) \(layout) \(decoder) \(option): sizes")
                    let header = result.stdoutText.split(separator: "\n").filter { $0.hasPrefix("#") }
                    XCTAssertEqual(
                        header.filter { $0.hasPrefix("#layout") }, ["#layout: \(layout)"],
                        "\(clip) \(decoder) \(option)")
                }
            }
        }
    }

    /// The GPU decoder hashes every layout on the device: no frame comes
    /// back to the host (the summary's host surfaces stay 0), while
    /// `--framemd5` (MD5 runs on the host) reads every frame back.
    func testTheGPUDecoderHashesNativeAndItsOwnLayoutOnTheDevice() throws {
        let dir = try makeTemporaryDirectory(self)
        for (clip, format) in [
            ("hq.mov", nil), ("hq.mov", "v216"), ("hq.mov", "y416"), ("4444.mov", nil), ("4444.mov", "y416"),
            ("4444.mov", "v216"),
        ] as [(String, String?)] {
            for option in ["--framehash", "--framemd5"] {
                let out = dir.appendingPathComponent("\(clip)-\(format ?? "native")\(option)").path
                let result = try runTool(
                    [Repo.fixture(clip), "--decoder", "gpu", "--json", option, out]
                        + (format.map { ["--format", $0] } ?? []),
                    timeout: 120)
                XCTAssertEqual(result.status, 0, result.stderr)
                let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
                let surfaces = try XCTUnwrap(summary["surfaces_allocated"] as? Int)
                if option == "--framehash" {
                    XCTAssertEqual(surfaces, 0, "\(clip) \(format ?? "native") \(option): \(summary)")
                } else {
                    XCTAssertGreaterThanOrEqual(
                        surfaces, 5, "\(clip) \(format ?? "native") \(option): frames read back")
                }
            }
        }
    }
}
