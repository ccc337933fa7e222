import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCPU
@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// Our CPU decoder on real streams: every fixture's native planes against
/// `ffmpeg -f framemd5` (Fixtures/ref, made by the ffmpeg CLI), and the
/// damaged and hostile fixtures against FFmpeg's path in this project
/// (FFmpegDecodeSession, which conceals into neutral-filled surfaces as the GPU
/// decoder does): the same picture, the same verdict for every frame.
final class CPUDecoderFixtureTests: XCTestCase {
    struct Frame: Equatable {
        var kind: String
        var md5: String?
    }

    static func kind(_ status: FrameStatus) -> String {
        switch status {
        case .ok: return "ok"
        case .damaged: return "damaged"
        case .failed: return "failed"
        }
    }

    /// Each frame of `clip` through a session, in order.
    static func frames(_ clip: String, ours: Bool, threads: Int = 2) throws -> [Frame] {
        let (format, samples) = try fixtureSamples(clip)
        var frames: [Frame] = []
        let lock = NSLock()
        let handler: FrameOutputHandler = { frame in
            let md5 = frame.pixelBuffer.map { MD5.hex(of: $0.visibleSpans()) }
            lock.lock()
            frames.append(Frame(kind: kind(frame.status), md5: md5))
            lock.unlock()
        }
        let session: FrameDecoding =
            ours
            ? CPUDecodeSession(format: format, threads: threads, outputHandler: handler)
            : try FFmpegDecodeSession(format: format, configuration: .init(threads: threads), outputHandler: handler)
        for sample in samples { try session.decode(sample) }
        try session.finish()
        return frames
    }

    func testEveryFixtureIsBitExactWithFFmpegsFrameMD5() throws {
        for clip in try FixtureDecodeTests.clips() {
            let expected = try ffmpegFrameMD5s(clip)
            // 8 threads: frames decoded together (`framesAtOnce`).
            for threads in [1, 2, 8] {
                let got = try Self.frames(clip, ours: true, threads: threads)
                XCTAssertEqual(
                    got.map(\.kind), [String](repeating: "ok", count: expected.count), "\(clip), \(threads) threads")
                XCTAssertEqual(
                    got.map(\.md5), expected, "\(clip), \(threads) threads: native planes differ from ffmpeg's framemd5"
                )
            }
        }
    }

    /// Frames decoded together (their slices spread over the threads at
    /// once) come out as each alone would, a frame that fails among them
    /// failing alone.
    func testFramesDecodedTogetherEqualFFmpegsFrames() throws {
        for clip in ["hq.mov", "4444.mov", "interlaced-tff.mov"] {
            let (format, samples) = try fixtureSamples(clip)
            let expected = try ffmpegFrameMD5s(clip)
            let decoder = ProResCPUDecoder(bitDepth: format.bitDepth, threads: 8)
            XCTAssertEqual(decoder.framesAtOnce, 2)
            let broken = Data(
                [0, 0, 0, 8, 0x69, 0x63, 0x70, 0x66] + [UInt8](repeating: 0, count: CompressedSample.padding))
            var got: [String?] = []
            try broken.withUnsafeBytes { broken in
                var frames = samples.map(\.bytes)
                frames.insert(UnsafeRawBufferPointer(rebasing: broken[0..<8]), at: 2)
                for start in stride(from: 0, to: frames.count, by: 2) {
                    for outcome in decoder.decode(Array(frames[start..<min(start + 2, frames.count)])) {
                        got.append(try? outcome.map { MD5.hex(of: $0.surface.visibleSpans()) }.get())
                        if case .success(let decoded) = outcome { decoded.surface.releaseUse() }
                    }
                }
            }
            var want: [String?] = expected
            want.insert(nil, at: 2)
            XCTAssertEqual(got, want, clip)
        }
    }

    /// Each frame of `clip` as a packed surface: ours packed slice by
    /// slice, FFmpeg's planar frame packed whole by `FramePacker`.
    static func packedFrames(_ clip: String, _ layout: PackedLayout, ours: Bool, threads: Int) throws -> [Frame] {
        let (format, samples) = try fixtureSamples(clip)
        var frames: [Frame] = []
        let lock = NSLock()
        var pool: PixelBufferPool?
        let handler: FrameOutputHandler = { frame in
            var md5: String?
            if let surface = frame.pixelBuffer {
                if case .packed = surface.layout.content {
                    md5 = MD5.hex(of: surface.visibleSpans())
                } else if let packed = try? PixelBufferPool.makeBuffer(
                    .packed(
                        layout, width: surface.layout.width,
                        height: surface.layout.height), from: &pool)
                {
                    FramePacker.pack(surface, into: packed)
                    md5 = MD5.hex(of: packed.visibleSpans())
                    packed.releaseUse()
                }
            }
            lock.lock()
            frames.append(Frame(kind: kind(frame.status), md5: md5))
            lock.unlock()
        }
        let session: FrameDecoding =
            ours
            ? CPUDecodeSession(format: format, threads: threads, packing: layout, outputHandler: handler)
            : try FFmpegDecodeSession(format: format, configuration: .init(threads: threads), outputHandler: handler)
        for sample in samples { try session.decode(sample) }
        try session.finish()
        return frames
    }

    /// Our decoder packing its own frames, slice by slice from a small
    /// planar scratch, gives the bytes of FFmpeg's planar frames packed
    /// whole: every fixture (4:2:2 and 4:4:4, alpha, both field orders,
    /// odd sizes) and the damaged ones, in y416 and v216, on 1, 2 and 8
    /// threads (frames decoded together).
    func testSlicePackedFramesEqualFFmpegsFramesPacked() throws {
        let damaged = [
            "bad/corrupt-slice.mov", "bad/truncated-faststart.mov", "hostile/alpha-data-missing.mov",
            "hostile/alpha-claim.mov",
            "hostile/interlace-claim.mov", "hostile/progressive-claim.mov", "hostile/chroma-444-claim.mov",
        ]
        var compared = 0
        for clip in try FixtureDecodeTests.clips() + damaged {
            for layout in PackedLayout.allCases {
                let expected = try Self.packedFrames(clip, layout, ours: false, threads: 2)
                for threads in [1, 2, 8] {
                    let got = try Self.packedFrames(clip, layout, ours: true, threads: threads)
                    XCTAssertEqual(got, expected, "\(clip) \(layout), \(threads) threads")
                    compared += got.filter { $0.md5 != nil }.count
                }
            }
        }
        XCTAssertGreaterThan(compared, 100)
    }

    func testDamagedFixturesMatchFFmpegsConcealment() throws {
        let clips = [
            "bad/corrupt-slice.mov", "bad/truncated-faststart.mov", "hostile/alpha-data-missing.mov",
            "hostile/alpha-claim.mov",
            "hostile/interlace-claim.mov", "hostile/progressive-claim.mov", "hostile/chroma-444-claim.mov",
        ]
        var damagedFrames = 0
        for clip in clips {
            let expected = try Self.frames(clip, ours: false)
            let got = try Self.frames(clip, ours: true)
            XCTAssertEqual(got, expected, clip)
            damagedFrames += expected.filter { $0.kind != "ok" }.count
        }
        XCTAssertGreaterThan(damagedFrames, 0, "no damaged frame: the test proves nothing")
    }

    /// Damage that reaches a frame's slices (every kind FFmpeg fails a
    /// component for) concealed the FFmpeg path's way: a fixture's frames
    /// with bytes inside their slices overwritten.
    func testCorruptedSlicesMatchFFmpegsConcealment() throws {
        let seed = KernelTestSeed.seed(0xC0DD_0001)
        var rng = KernelRandom(seed: seed)
        for clip in ["hq.mov", "4444.mov", "interlaced-bff.mov", "proxy.mov"] {
            let (format, samples) = try fixtureSamples(clip)
            var damaged: [CompressedSample] = []
            for sample in samples {
                var bytes = Array(sample.bytes)
                let header = try ProResFrameHeader(sample.bytes)
                // Past the frame header, picture header and index: slice data.
                let start = header.pictureOffset + 2048
                for _ in 0..<rng.int(1...6) {
                    let at = rng.int(start..<bytes.count)
                    for k in at..<min(at + rng.int(1...40), bytes.count) {
                        bytes[k] = rng.chance(0.5) ? 0 : UInt8(rng.int(0...255))
                    }
                }
                let storage = Data(bytes + [UInt8](repeating: 0, count: CompressedSample.padding)) as NSData
                damaged.append(
                    CompressedSample(
                        bytes: UnsafeRawBufferPointer(start: storage.bytes, count: bytes.count), storage: storage,
                        index: sample.index, pts: sample.pts, duration: sample.duration, format: format,
                        readStart: 0, demuxNanoseconds: 0))
            }
            func run(ours: Bool) throws -> [Frame] {
                var frames: [Frame] = []
                let lock = NSLock()
                let handler: FrameOutputHandler = { frame in
                    lock.lock()
                    frames.append(
                        Frame(
                            kind: Self.kind(frame.status), md5: frame.pixelBuffer.map { MD5.hex(of: $0.visibleSpans()) }
                        ))
                    lock.unlock()
                }
                let session: FrameDecoding =
                    ours
                    ? CPUDecodeSession(format: format, threads: 2, outputHandler: handler)
                    : try FFmpegDecodeSession(format: format, configuration: .init(threads: 2), outputHandler: handler)
                for sample in damaged { try session.decode(sample) }
                try session.finish()
                return frames
            }
            let expected = try run(ours: false)
            XCTAssertEqual(try run(ours: true), expected, "\(clip), seed 0x\(String(seed, radix: 16))")
            XCTAssertTrue(
                expected.contains { $0.kind == "damaged" }, "\(clip): no frame was damaged, the test proves nothing")
        }
    }
}

/// `--decoder cpu` is ours, `--decoder ffmpeg` FFmpeg's, `auto` ours where
/// no hardware GPU decodes: the same frames, each run naming its decoder.
final class CPUDecoderSelectionCLITests: XCTestCase {
    func testEachDecoderChoiceNamesItsDecoderAndWritesTheSameFrames() throws {
        var md5s: [String: String] = [:]
        for (choice, name) in [("cpu", "cpu"), ("ffmpeg", "ffmpeg"), ("auto", "cpu")] {
            let run = try runTool([
                Repo.fixture("interlaced-bff.mov"), "--decoder", choice, "--format", "native", "--framemd5", "-",
                "--quiet",
            ])
            XCTAssertEqual(run.status, 0, "\(choice): \(run.stderr)")
            md5s[choice] = run.stdoutText
            let json = try runTool([Repo.fixture("interlaced-bff.mov"), "--decoder", choice, "--json", "--quiet"])
            let report = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
            XCTAssertEqual(report?["decoder"] as? String, name, "\(choice): \(json.stderr)")
        }
        XCTAssertEqual(md5s["cpu"], md5s["ffmpeg"])
        XCTAssertEqual(md5s["auto"], md5s["ffmpeg"])
        XCTAssertEqual(md5Column(md5s["ffmpeg"] ?? ""), try ffmpegFrameMD5s("interlaced-bff.mov"))
    }

    func testCheckNamesTheDecoderAndFlagsTheSameFrames() throws {
        var reports: [[String: Any]] = []
        for choice in ["cpu", "ffmpeg"] {
            let result = try runTool([
                "check", Repo.fixture("bad/corrupt-slice.mov"), "--decoder", choice, "--report", "-",
            ])
            XCTAssertEqual(result.status, 10, "\(choice): \(result.stderr)")
            reports.append(try XCTUnwrap(try CheckFixtures.files(result.stdout).first, choice))
        }
        XCTAssertEqual(reports.map { $0["decoder"] as? String }, ["cpu", "ffmpeg"])
        XCTAssertEqual(reports[0]["reason"] as? String, reports[1]["reason"] as? String)
        XCTAssertNotNil(reports[0]["stats"] as? [String: Any])
        XCTAssertTrue(try FrameTools.statistics(reports[0]["stats"], equal: reports[1]["stats"]))
    }
}
