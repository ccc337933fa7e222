import Foundation
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// Which layout a run makes when none is asked for: the native packed one
/// for anything that reads the frames, the decoder's own planar frames when
/// nothing does (the CPU decoder's frames are then not packed at all, as
/// `ffmpeg -f null` converts nothing).
final class DecodeRunOutputTests: XCTestCase {
    private func decode(_ clip: String, output: OutputSelection?, sinks: [FrameSink]) throws -> (
        OutputSelection, DecodeRun.Report
    ) {
        let run = try DecodeRun(
            source: try openSampleSource(Repo.fixture(clip)),
            options: .init(output: output, threads: 2, decoder: .init(choice: .cpu)), sinks: sinks)
        return (run.output, try run.run())
    }

    func testACPURunThatWritesNothingDoesNotPack() throws {
        for clip in ["hq.mov", "4444.mov"] {
            let (output, report) = try decode(clip, output: nil, sinks: [])
            XCTAssertEqual(output, .native, clip)
            XCTAssertNil(report.packPool, "\(clip): frames nothing reads were packed")
            XCTAssertEqual(report.framesWritten, 5, clip)
            XCTAssertTrue(report.isClean, clip)
        }
    }

    /// Records the layout of each frame's surface.
    private final class LayoutSink: FrameSink {
        var layouts: [SurfaceLayout.Content] = []
        func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {}
        func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer], holder: PixelBuffer?) throws {
            if let holder { layouts.append(holder.layout.content) }
        }
        func finish() throws {}
        func abort() {}
    }

    func testASinkGetsTheNativePackedLayout() throws {
        for (clip, layout) in [("hq.mov", PackedLayout.v216), ("4444.mov", .y416)] {
            let sink = LayoutSink()
            let (output, report) = try decode(clip, output: nil, sinks: [sink])
            XCTAssertEqual(output, .packed(layout), clip)
            XCTAssertEqual(
                sink.layouts, [SurfaceLayout.Content](repeating: .packed(layout), count: 5),
                "\(clip): every frame a sink reads is packed")
            // Our CPU decoder packs its frames itself: no planar frame, no second pass.
            XCTAssertNil(report.packPool, clip)
            XCTAssertGreaterThan(report.decoderPool.vended, 0, clip)
        }
    }

    func testALayoutAskedForIsMadeWithoutSinksToo() throws {
        let (output, report) = try decode("hq.mov", output: .packed(.v216), sinks: [])
        XCTAssertEqual(output, .packed(.v216))
        // The decoder's own surfaces are the layout asked for, so their
        // making is timed with the decoding.
        XCTAssertEqual(report.decoderPool.vended, 5, "--format v216 makes its frames even when nothing is written")
        XCTAssertNil(report.packPool)
    }

    func testFFmpegsPlanarFramesArePackedForASink() throws {
        let run = try DecodeRun(
            source: try openSampleSource(Repo.fixture("hq.mov")),
            options: .init(output: nil, threads: 2, decoder: .init(choice: .ffmpeg)), sinks: [NullSink()])
        XCTAssertEqual(try run.run().packPool?.vended, 5, "FFmpeg's planar frames go through the packing pass")
    }

    private func summary(_ json: Data) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any], String(decoding: json, as: UTF8.self))
    }

    func testTheCLISummaryNamesTheLayoutItMade() throws {
        let dir = try makeTemporaryDirectory(self)
        let plain = try runTool([Repo.fixture("hq.mov"), "--decoder", "cpu", "--json"])
        XCTAssertEqual(plain.status, 0, "stderr: \(plain.stderr)")
        XCTAssertEqual(try summary(plain.stdout)["format"] as? String, "native")
        let hashed = try runTool([
            Repo.fixture("hq.mov"), "--decoder", "cpu", "--json", "--framemd5",
            dir.appendingPathComponent("a.md5").path,
        ])
        XCTAssertEqual(hashed.status, 0, "stderr: \(hashed.stderr)")
        // A hash alone makes the native planes it hashes.
        XCTAssertEqual(try summary(hashed.stdout)["format"] as? String, "native")
    }
}
