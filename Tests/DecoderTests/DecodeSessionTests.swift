import CFFmpeg
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

final class DecodeSessionTests: XCTestCase {
    func testFramesComeOutInOrderWithBoundedSurfaces() throws {
        let (format, clip) = try fixtureSamples("hq.mov")
        let reference = try ffmpegFrameMD5s("hq.mov")
        let total = 120
        var seen: [(Int, String)] = []
        let session = try FFmpegDecodeSession(
            format: format, configuration: .init(threads: 2, maximumFramesInFlight: 3)
        ) {
            frame in
            XCTAssertEqual(frame.status, .ok)
            seen.append((frame.index, MD5.hex(of: frame.pixelBuffer!.visibleSpans())))
            usleep(2000)  // a slow consumer must throttle the decoder, not grow memory
        }
        for i in 0..<total { try session.decode(clip[i % clip.count].renumbered(as: i)) }
        try session.finish()
        XCTAssertEqual(seen.map(\.0), Array(0..<total))
        XCTAssertEqual(seen.map(\.1), (0..<total).map { reference[$0 % reference.count] })
        let stats = session.poolStatistics
        XCTAssertEqual(stats.vended, total)
        // In flight at most: FFmpeg's frame threads + the input queue + the output queue + the handler's frame.
        XCTAssertLessThanOrEqual(
            stats.allocated, 2 + 2 + 3 + 2, "surfaces must be recycled, not allocated per frame: \(stats)")
    }

    /// Samples that own their bytes themselves (no demuxer packet) reach
    /// libavcodec through a buffer that keeps the sample alive: every frame
    /// equals ffmpeg's own decode, and no sample outlives the session.
    func testSamplesWithoutAPacketDecodeAsFFmpegDoes() throws {
        let (format, clip) = try fixtureSamples("4444-alpha8.mov")
        let reference = try ffmpegFrameMD5s("4444-alpha8.mov")
        weak var lastCopy: CompressedSample?
        var seen: [String] = []
        do {
            let copies = clip.map {
                CompressedSample(copying: $0.bytes, index: $0.index, pts: $0.pts, duration: $0.duration, format: format)
            }
            XCTAssertTrue(copies.allSatisfy { $0.packet == nil })
            lastCopy = copies.last
            let session = try FFmpegDecodeSession(format: format, configuration: .init(threads: 2)) { frame in
                XCTAssertEqual(frame.status, .ok)
                seen.append(MD5.hex(of: frame.pixelBuffer!.visibleSpans()))
            }
            for sample in copies { try session.decode(sample) }
            try session.finish()
        }
        XCTAssertEqual(seen, reference)
        XCTAssertNil(lastCopy, "libavcodec's reference must let the sample go")
    }

    func testSurfacesReturnToThePoolWhenFramesAreReleased() throws {
        let (format, clip) = try fixtureSamples("4444.mov")
        var kept: [DecodedFrame] = []
        let session = try FFmpegDecodeSession(format: format, configuration: .init(threads: 1)) { kept.append($0) }
        for sample in clip { try session.decode(sample) }
        try session.finish()
        XCTAssertEqual(kept.count, clip.count)
        let buffers = kept.compactMap(\.pixelBuffer)
        XCTAssertEqual(Set(buffers.map(\.identifier)).count, clip.count, "frames still held keep their own surfaces")
        XCTAssertTrue(buffers.allSatisfy { $0.useCount == 1 })
        kept.removeAll()
        XCTAssertTrue(buffers.allSatisfy { $0.useCount == 0 }, "releasing the frames hands every surface back")
    }

    func testHandlerErrorStopsTheSession() throws {
        struct Stop: Error {}
        let (format, clip) = try fixtureSamples("hq.mov")
        var calls = 0
        let session = try FFmpegDecodeSession(format: format, configuration: .init(threads: 1)) { _ in
            calls += 1
            throw Stop()
        }
        var thrown: Error?
        do {
            for i in 0..<50 { try session.decode(clip[i % clip.count].renumbered(as: i)) }
            try session.finish()
        } catch { thrown = error }
        XCTAssertTrue(thrown is Stop, "\(String(describing: thrown))")
        XCTAssertEqual(calls, 1)
    }

    func testDamagedAndUndecodableFramesKeepTheirPlace() throws {
        let (format, clip) = try fixtureSamples("hq.mov")
        var statuses: [(Int, FrameStatus)] = []
        let session = try FFmpegDecodeSession(format: format, configuration: .init(threads: 2)) {
            statuses.append(($0.index, $0.status))
        }
        // Frame 1: not a ProRes frame at all. Frame 3: cut in half.
        let garbage = av_packet_alloc()!
        av_new_packet(garbage, 64)
        memset(garbage.pointee.data, 0x41, 64)
        let half = av_packet_clone(clip[3].packet)!
        half.pointee.size /= 2
        let inputs = [
            clip[0], CompressedSample(packet: garbage, index: 1, format: format, readStart: 0, demuxNanoseconds: 0),
            clip[2], CompressedSample(packet: half, index: 3, format: format, readStart: 0, demuxNanoseconds: 0),
            clip[4],
        ]
        for sample in inputs { try session.decode(sample) }
        try session.finish()
        XCTAssertEqual(statuses.map(\.0), [0, 1, 2, 3, 4])
        XCTAssertEqual(statuses[0].1, .ok)
        guard case .failed(let why) = statuses[1].1 else { return XCTFail("frame 1: \(statuses[1].1)") }
        XCTAssertTrue(why.contains("icpf"), why)
        XCTAssertEqual(statuses[2].1, .ok)
        XCTAssertFalse(statuses[3].1.isOK, "a half frame cannot decode cleanly")
        XCTAssertTrue(statuses[3].1.reason?.contains("truncated") ?? false, "\(statuses[3].1)")
        XCTAssertEqual(statuses[4].1, .ok)
    }
}

/// A frame with broken slices must come out the same on every run: FFmpeg
/// leaves undecodable slices untouched, so they are redone into a surface
/// pre-filled with video black and neutral chroma.
final class ConcealmentTests: XCTestCase {
    func testDamagedFrameIsReproducibleAcrossThreadCounts() throws {
        var md5s = Set<String>()
        for threads in [1, 2, 3, 1, 2] {
            let (report, sink) = try decodeMD5s("bad/corrupt-slice.mov", output: .native, threads: threads)
            XCTAssertEqual(report.damaged.map(\.index), [2])
            md5s.insert(sink.frames[2].md5)
        }
        XCTAssertEqual(md5s.count, 1, "the damaged frame differs between runs: \(md5s)")
        // Undamaged frames are still ffmpeg's.
        let reference = try ffmpegFrameMD5s("hq.mov")
        let (_, sink) = try decodeMD5s("bad/corrupt-slice.mov", output: .native)
        XCTAssertEqual(
            sink.frames.map(\.md5).enumerated().filter { $0.offset != 2 }.map(\.element),
            reference.enumerated().filter { $0.offset != 2 }.map(\.element))
    }

    func testConcealedSamplesAreVideoBlackWithNeutralChroma() throws {
        let (format, samples) = try fixtureSamples("bad/corrupt-slice.mov")
        let decoder = try ConcealingDecoder(format: format)
        let surface = try XCTUnwrap(decoder.decode(samples[2]))
        defer { surface.releaseUse() }
        // 10-bit 4:2:2: video black is 64, neutral chroma 512. A concealed
        // slice is a band of 16×16 macroblocks holding exactly these, at a
        // macroblock-aligned position wherever the broken slice was.
        let layout = surface.layout.planes
        var concealedBlocks = 0
        for mbRow in 0..<(layout[0].visibleRows / 16) {
            for mbColumn in 0..<(surface.layout.width / 16) {
                let allBlack = (0..<16).allSatisfy { line -> Bool in
                    let row = mbRow * 16 + line
                    let y = (surface.plane(0) + row * layout[0].bytesPerRow).assumingMemoryBound(to: UInt16.self)
                    let cb = (surface.plane(1) + row * layout[1].bytesPerRow).assumingMemoryBound(to: UInt16.self)
                    return (0..<16).allSatisfy { y[mbColumn * 16 + $0] == 64 }
                        && (0..<8).allSatisfy { cb[mbColumn * 8 + $0] == 512 }
                }
                if allBlack { concealedBlocks += 1 }
            }
        }
        XCTAssertGreaterThan(concealedBlocks, 0, "the damaged slice should be concealed as black")
        // A clean frame through the same path is bit-exact with ffmpeg.
        let clean = try XCTUnwrap(decoder.decode(samples[0]))
        defer { clean.releaseUse() }
        XCTAssertEqual(MD5.hex(of: clean.visibleSpans()), try ffmpegFrameMD5s("hq.mov")[0])
    }
}
