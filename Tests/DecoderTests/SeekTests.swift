import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// ProRes is intra-only: `--start N` must give frame N, in every container.
final class SeekTests: XCTestCase {
    func testEveryStartFrameIsExact() throws {
        let reference = try ffmpegFrameMD5s("hq.mov")
        for clip in ["hq.mov", "hq.mxf", "hq.prores"] {
            for start in 0..<reference.count {
                let (report, sink) = try decodeMD5s(clip, output: .native, start: start, frames: 1)
                XCTAssertEqual(sink.frames.map(\.index), [start], "\(clip) --start \(start)")
                XCTAssertEqual(sink.frames.map(\.md5), [reference[start]], "\(clip) --start \(start)")
                XCTAssertNil(report.shortfall, "\(clip) --start \(start)")
            }
        }
    }

    func testStartThenRestOfClip() throws {
        let reference = try ffmpegFrameMD5s("4444.mov")
        let (_, sink) = try decodeMD5s("4444.mov", output: .native, start: 2)
        XCTAssertEqual(sink.frames.map(\.md5), Array(reference[2...]))
    }

    func testFramesLimitsTheCount() throws {
        let reference = try ffmpegFrameMD5s("interlaced-tff.mov")
        let (report, sink) = try decodeMD5s("interlaced-tff.mov", output: .native, start: 1, frames: 3)
        XCTAssertEqual(sink.frames.map(\.md5), Array(reference[1...3]))
        XCTAssertEqual(report.framesRead, 3)
    }

    func testStartPastTheEndIsABadRequest() {
        for clip in ["hq.mov", "hq.prores"] {
            XCTAssertThrowsError(try decodeMD5s(clip, output: .native, start: 5)) { error in
                // The library reports the request as data; the CLI words it
                // as "--start 5 …" (ErrorWordsTests holds that text).
                guard case ProResDecodeError.badRequest(.startPastEnd(let start, let frames, _)) = error else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(start, 5, "\(error)")
                XCTAssertLessThanOrEqual(frames, 5, "\(error)")
            }
        }
    }
}
