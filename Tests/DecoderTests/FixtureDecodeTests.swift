import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Collects the md5 of each frame's bytes, as a sink.
final class MD5CollectingSink: FrameSink {
    private(set) var frames: [(index: Int, md5: String, size: Int)] = []
    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        frames.append((index, MD5.hex(of: spans), spans.reduce(0) { $0 + $1.count }))
    }
    func finish() throws {}
    func abort() {}
}

func decodeMD5s(_ clip: String, output: OutputSelection?, start: Int = 0, frames: Int? = nil, threads: Int = 2) throws
    -> (DecodeRun.Report, MD5CollectingSink)
{
    let sink = MD5CollectingSink()
    let run = try DecodeRun(
        source: try openSampleSource(Repo.fixture(clip)),
        options: .init(output: output, start: start, frames: frames, threads: threads), sinks: [sink])
    return (try run.run(), sink)
}

/// Every fixture, every layout, bit-exact against references made without
/// our code: ffmpeg's own decode (native) and the python packer (y416/v216).
final class FixtureDecodeTests: XCTestCase {
    /// The fixtures with a reference in Fixtures/ref; an error when there
    /// are fewer than 20, so that no loop over them passes by having none.
    static func clips() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(
            atPath: Repo.fixtures.appendingPathComponent("ref").path)
        let clips = names.filter { $0.hasSuffix(".framemd5") }.map { String($0.dropLast(".framemd5".count)) }.sorted()
        guard clips.count >= 20 else { throw FixturesIncomplete(description: "Fixtures/ref is incomplete: \(clips)") }
        return clips
    }

    func testEveryFixtureHasReferences() throws {
        let clips = try Self.clips()
        for profile in [
            "proxy.mov", "lt.mov", "422.mov", "hq.mov", "4444.mov", "4444-alpha8.mov", "4444xq.mov",
            "interlaced-tff.mov", "odd-size.mov", "pq.mov", "hlg.mov", "p3.mov", "hq.mxf", "hq.prores",
        ] {
            XCTAssertTrue(clips.contains(profile), "missing fixture reference for \(profile)")
        }
    }

    func testNativeIsBitExactWithFFmpeg() throws {
        for clip in try Self.clips() {
            let (report, sink) = try decodeMD5s(clip, output: .native)
            let expected = try ffmpegFrameMD5s(clip)
            XCTAssertTrue(report.isClean, "\(clip): \(report.damaged) \(report.failed)")
            XCTAssertEqual(sink.frames.map(\.md5), expected, "\(clip) native differs from ffmpeg's decode")
            XCTAssertEqual(sink.frames.map(\.index), Array(0..<expected.count), clip)
        }
    }

    func testPackedLayoutsMatchTheIndependentPacker() throws {
        for clip in try Self.clips() {
            for layout in PackedLayout.allCases {
                let (_, sink) = try decodeMD5s(clip, output: .packed(layout))
                XCTAssertEqual(
                    sink.frames.map(\.md5), try packedReferenceMD5s(clip, layout: layout.rawValue), "\(clip) \(layout)")
            }
        }
    }

    func testDefaultLayoutIsTheProfilesNativePackedLayout() throws {
        let (hq, _) = try decodeMD5s("hq.mov", output: nil, frames: 1)
        XCTAssertEqual(hq.output, .packed(.v216))
        let (p4444, _) = try decodeMD5s("4444.mov", output: nil, frames: 1)
        XCTAssertEqual(p4444.output, .packed(.y416))
    }

    func testFrameSizesFollowTheLayouts() throws {
        // odd-size.mov is 187x101, 4:2:2 10-bit; odd-size-444.mov has alpha.
        XCTAssertEqual(
            try decodeMD5s("odd-size.mov", output: .native, frames: 1).1.frames[0].size, (187 + 2 * 94) * 101 * 2)
        XCTAssertEqual(try decodeMD5s("odd-size.mov", output: .packed(.v216), frames: 1).1.frames[0].size, 94 * 8 * 101)
        XCTAssertEqual(
            try decodeMD5s("odd-size.mov", output: .packed(.y416), frames: 1).1.frames[0].size, 187 * 8 * 101)
        XCTAssertEqual(
            try decodeMD5s("odd-size-444.mov", output: .native, frames: 1).1.frames[0].size, 187 * 101 * 2 * 4)
    }

    func testSingleThreadedDecodeIsIdentical() throws {
        let (_, one) = try decodeMD5s("4444.mov", output: .native, threads: 1)
        XCTAssertEqual(one.frames.map(\.md5), try ffmpegFrameMD5s("4444.mov"))
    }

    func testFormatDescriptionsAgreeWithFFprobe() throws {
        let rows = try TagTable.load()
        for clip in try Self.clips() {
            // ffprobe cannot read a raw elementary stream: hq.prores is hq.mov's stream.
            let row = try XCTUnwrap(rows[clip == "hq.prores" ? "hq.mov" : clip], clip)
            let format = try openSampleSource(Repo.fixture(clip)).format
            XCTAssertEqual(format.nativeFormat.name, row["pix_fmt"], clip)
            XCTAssertEqual("\(format.width)x\(format.height)", "\(row["width"]!)x\(row["height"]!)", clip)
            if clip == "hq.prores" {
                XCTAssertNil(format.profile)
            } else if let fourcc = row["codec_tag_string"], fourcc.hasPrefix("ap") {
                XCTAssertEqual(format.profile?.fourCC, fourcc, clip)
            }
            if let frames = row["nb_read_frames"], let count = Int(frames) {
                XCTAssertEqual(format.frameCount, count, clip)
            }
            let interlaced = row["frame_interlaced"] == "1"
            XCTAssertEqual(format.fieldOrder != .progressive, interlaced, clip)
            if interlaced {
                XCTAssertEqual(format.fieldOrder == .topFieldFirst, row["frame_top_field_first"] == "1", clip)
            }
            if row["frame_color_transfer"] != "unknown" {
                XCTAssertEqual(format.colorTags.transfer.value.name, row["frame_color_transfer"], clip)
                XCTAssertEqual(format.colorTags.primaries.value.name, row["frame_color_primaries"], clip)
                XCTAssertEqual(format.colorTags.matrix.value.name, row["frame_color_space"], clip)
                XCTAssertEqual(format.colorTags.transfer.source, .bitstream, clip)
            } else {
                XCTAssertEqual(format.colorTags.transfer.source, .fallback, clip)
            }
        }
    }
}

struct FixturesIncomplete: Error, CustomStringConvertible {
    let description: String
}
