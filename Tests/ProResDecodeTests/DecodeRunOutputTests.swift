import Foundation
import XCTest
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline

/// Which layout a run makes when none is asked for: the native packed one
/// for anything that reads the frames, the decoder's own planar frames when
/// nothing does (the CPU decoder's frames are then not packed at all, as
/// `ffmpeg -f null` converts nothing).
final class DecodeRunOutputTests: XCTestCase {
    private func decode(_ clip: String, output: OutputSelection?, sinks: [FrameSink]) throws -> (OutputSelection, DecodeRun.Report) {
        let run = try DecodeRun(source: try openSampleSource(Repo.fixture(clip)),
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

    func testASinkGetsTheNativePackedLayout() throws {
        for (clip, layout) in [("hq.mov", PackedLayout.v216), ("4444.mov", .y416)] {
            let (output, report) = try decode(clip, output: nil, sinks: [NullSink()])
            XCTAssertEqual(output, .packed(layout), clip)
            XCTAssertEqual(report.packPool?.vended, 5, "\(clip): every frame a sink reads is packed")
        }
    }

    func testALayoutAskedForIsPackedWithoutSinksToo() throws {
        let (output, report) = try decode("hq.mov", output: .packed(.v216), sinks: [])
        XCTAssertEqual(output, .packed(.v216))
        XCTAssertEqual(report.packPool?.vended, 5, "--format v216 times the packing even when nothing is written")
    }

    private func summary(_ json: Data) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any], String(decoding: json, as: UTF8.self))
    }

    func testTheCLISummaryNamesTheLayoutItMade() throws {
        let dir = try makeTemporaryDirectory(self)
        let plain = try runTool([Repo.fixture("hq.mov"), "--decoder", "cpu", "--json"])
        XCTAssertEqual(plain.status, 0, "stderr: \(plain.stderr)")
        XCTAssertEqual(try summary(plain.stdout)["format"] as? String, "native")
        let hashed = try runTool([Repo.fixture("hq.mov"), "--decoder", "cpu", "--json", "--framemd5", dir.appendingPathComponent("a.md5").path])
        XCTAssertEqual(hashed.status, 0, "stderr: \(hashed.stderr)")
        // A hash alone makes the native planes it hashes.
        XCTAssertEqual(try summary(hashed.stdout)["format"] as? String, "native")
    }
}
