import Foundation
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Replays what the fuzzer found (`Fixtures/fuzz/`) and hand-made hostile
/// inputs through `FuzzEntry.run`, the function the libFuzzer target calls
/// (`make fuzz`, scripts/fuzz.sh): no crash, no broken invariant, and every
/// refusal a clear, specific error.
final class FuzzRegressionTests: XCTestCase {
    // MARK: - The fuzzer's findings

    func testEveryFuzzFindingReplaysCleanly() throws {
        let directory = Repo.fixtures.appendingPathComponent("fuzz")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
            // tables/ and options/ hold the other fuzz targets' inputs (FuzzSeedReplayTests).
            .filter {
                (try? directory.appendingPathComponent($0).resourceValues(forKeys: [.isDirectoryKey]).isDirectory)
                    != true
            }
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            let outcome = FuzzEntry.run(bytes)
            XCTAssertEqual(outcome.violations, [], "Fixtures/fuzz/\(name): \(outcome)")
        }
    }

    // MARK: - The harness itself

    func testAGoodFrameDecodesThroughTheElementaryStreamPath() throws {
        let outcome = FuzzEntry.run(try hqFrame())
        XCTAssertEqual(outcome.violations, [])
        XCTAssertEqual(try outcome.header.get().width, 192)
        XCTAssertEqual(outcome.containerName, "prores elementary stream")
        XCTAssertEqual(outcome.statuses, [.ok], "\(outcome)")
    }

    func testAContainerDecodesThroughLibavformat() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.fixture("proxy.mov"))))
        let outcome = FuzzEntry.run(bytes, input: .file)
        XCTAssertEqual(outcome.violations, [])
        XCTAssertEqual(outcome.containerName?.hasPrefix("mov,mp4"), true, "\(outcome)")
        XCTAssertEqual(outcome.statuses, Array(repeating: .ok, count: 5), "\(outcome)")
    }

    func testStandardInputPaths() throws {
        // The elementary-stream reader's streaming path: two frames, then end of file.
        let frames = try hqFrame() + hqFrame()
        let stream = FuzzEntry.run(frames, input: .standardInput)
        XCTAssertEqual(stream.violations, [], "\(stream)")
        XCTAssertEqual(stream.input, .standardInput)
        XCTAssertEqual(stream.containerName, "prores elementary stream")
        XCTAssertEqual(stream.statuses, [.ok, .ok])
        // A frame cut short in the pipe.
        let cut = FuzzEntry.run(Array(frames.dropLast(100)), input: .standardInput)
        XCTAssertEqual(cut.violations, [], "\(cut)")
        XCTAssertEqual(cut.report?.shortfall, "frame 1 is truncated: 12417 of 12517 bytes")
    }

    /// A MOV whose moov atom follows more media than the pipe reader buffers
    /// (64 KiB) cannot be read from stdin. Found by the fuzz harness's stdin
    /// mode; a bug, this fails until fixed: libavformat opens it (it reads
    /// through mdat to moov) but cannot seek back, and the error says
    /// "'stdin' is not ProRes: the ProRes track has no frames" (exit 4) for a
    /// valid ProRes file instead of the faststart hint the README promises.
    func testAMOVWithItsMoovAtTheEndFromStdinSaysFaststart() throws {
        let mov = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.fixture("4444.mov"))))
        let container = FuzzEntry.run(mov, input: .standardInput)
        XCTAssertEqual(container.violations, [], "\(container)")
        let said = container.openError.map { "\($0)" } ?? "no error"
        XCTAssertTrue(said.contains("-movflags +faststart"), "4444.mov (moov at the end) from stdin: \(said)")
    }

    func testEachOutputLayoutIsExercised() throws {
        var seen: Set<String> = []
        let frame = try hqFrame()
        for padding in 0..<3 {
            // Bytes after the frame are a (short) second frame the reader stops at.
            let outcome = FuzzEntry.run(frame + [UInt8](repeating: 0, count: padding))
            XCTAssertEqual(outcome.violations, [], "\(outcome)")
            XCTAssertEqual(outcome.statuses.first, .ok, "\(outcome)")
            seen.insert(outcome.output?.name ?? "none")
        }
        XCTAssertEqual(seen, ["native", "y416", "v216"])
    }

    func testOversizedInputsAreSkipped() {
        let outcome = FuzzEntry.run([UInt8](repeating: 0, count: FuzzEntry.maximumInputSize + 1))
        XCTAssertTrue(outcome.skipped)
        XCTAssertNil(outcome.containerName)
    }

    // MARK: - Hand-made hostile inputs

    func testTruncatedHeaders() throws {
        let frame = try hqFrame()
        for length in 1..<28 {
            let outcome = FuzzEntry.run(Array(frame.prefix(length)))
            XCTAssertEqual(outcome.violations, [], "\(length) bytes: \(outcome)")
            assertHeaderError(outcome, "frame of \(length) bytes is too short for a ProRes frame header")
            if length >= 8 {
                // 'icpf' is there, so the elementary-stream reader takes it and refuses it.
                assertOpenError(
                    outcome, notProRes: "invalid ProRes frame header (frame of \(length) bytes is too short")
            } else {
                XCTAssertNotNil(outcome.openError, "\(length) bytes: \(outcome)")
            }
        }
    }

    func testHeaderSizePointingPastTheEnd() throws {
        let outcome = FuzzEntry.run(try hqFrame { $0.put16(8, 0xFFFF) })
        XCTAssertEqual(outcome.violations, [])
        assertHeaderError(outcome, "frame header size 65535 runs past the 12517-byte frame")
        assertOpenError(outcome, notProRes: "frame header size 65535 runs past")

        let small = FuzzEntry.run(try hqFrame { $0.put16(8, 19) })
        XCTAssertEqual(small.violations, [])
        assertHeaderError(small, "frame header size 19 is below the 20 bytes it must hold")
    }

    func testHugeFrameSize() throws {
        let outcome = FuzzEntry.run(try hqFrame { $0.put32(0, 0xFFFF_FFFF) })
        XCTAssertEqual(outcome.violations, [], "\(outcome)")
        XCTAssertEqual(try outcome.header.get().frameSize, 0xFFFF_FFFF)
        XCTAssertEqual(outcome.report?.shortfall, "frame 0 is truncated: it needs 4294967295 bytes, 12517 remain")
        XCTAssertEqual(outcome.statuses.count, 1)
        XCTAssertTrue(
            outcome.statuses[0].reason?.contains(
                "truncated: the frame header says 4294967295 bytes, the sample has 12517") == true,
            "\(outcome)")
    }

    func testZeroAndTinyFrameSizes() throws {
        for size in [0, 7] as [UInt32] {
            let outcome = FuzzEntry.run(try hqFrame { $0.put32(0, size) })
            XCTAssertEqual(outcome.violations, [], "\(outcome)")
            XCTAssertEqual(try outcome.header.get().frameSize, Int(size))
            assertOpenError(outcome, notProRes: "states an impossible size \(size)")
        }
        // A good frame followed by one that states size 0: the stream ends there.
        let frame = try hqFrame()
        var zero = frame
        zero.put32(0, 0)
        let outcome = FuzzEntry.run(frame + zero)
        XCTAssertEqual(outcome.violations, [], "\(outcome)")
        XCTAssertEqual(outcome.statuses, [.ok])
    }

    func testReservedAndOutOfRangeFields() throws {
        let cases: [(String, (inout [UInt8]) -> Void)] = [
            ("invalid alpha channel type 3", { $0[25] = ($0[25] & 0xF0) | 3 }),
            ("invalid alpha channel type 15", { $0[25] |= 0x0F }),
            ("reserved interlace mode 3", { $0[20] |= 0x0C }),
            ("unsupported bitstream version 2", { $0.put16(10, 2) }),
            ("picture size 0x112 is empty", { $0.put16(16, 0) }),
            ("picture size 192x0 is empty", { $0.put16(18, 0) }),
            ("picture size 20000x112 exceeds the supported maximum 16384x16384", { $0.put16(16, 20000) }),
        ]
        for (message, edit) in cases {
            let outcome = FuzzEntry.run(try hqFrame(edit))
            XCTAssertEqual(outcome.violations, [], "\(message): \(outcome)")
            assertHeaderError(outcome, message)
            assertOpenError(outcome, notProRes: "invalid ProRes frame header (\(message))")
        }
    }

    func testQuantisationMatricesPastTheEnd() throws {
        // Both matrices announced (header size 148), the frame cut inside the first / the second.
        for length in [28, 28 + 10, 28 + 64, 28 + 64 + 63] {
            let outcome = FuzzEntry.run(Array(try hqFrame().prefix(length)))
            XCTAssertEqual(outcome.violations, [], "\(length): \(outcome)")
            assertHeaderError(outcome, "frame header size 148 runs past the \(length)-byte frame")
        }
        // A header that claims 20 bytes but announces matrices: like FFmpeg, the
        // matrices are read from the frame's remaining bytes, never past them.
        for length in [28 + 10, 28 + 64 + 10] {
            let outcome = FuzzEntry.run(Array(try hqFrame { $0.put16(8, 20) }.prefix(length)))
            XCTAssertEqual(outcome.violations, [], "\(length): \(outcome)")
            assertHeaderError(outcome, "quantisation matrix runs past the end of the frame")
        }
        let lumaOnly = FuzzEntry.run(
            Array(
                try hqFrame {
                    $0.put16(8, 20)
                    $0[27] = 2
                }.prefix(28 + 64)))
        XCTAssertEqual(lumaOnly.violations, [])
        XCTAssertEqual(try lumaOnly.header.get().lumaQuantMatrix?.count, 64)
        XCTAssertNil(try lumaOnly.header.get().chromaQuantMatrix)
    }

    func testABadFrameAfterAGoodOneFailsAlone() throws {
        let bad = try hqFrame { $0[25] |= 3 }
        let outcome = FuzzEntry.run(try hqFrame() + bad + hqFrame())
        XCTAssertEqual(outcome.violations, [], "\(outcome)")
        XCTAssertEqual(outcome.statuses, [.ok, .failed("invalid frame header: invalid alpha channel type 3"), .ok])
    }

    func testFormatChangesMidStream() throws {
        // A 4:4:4 frame with alpha, or a smaller picture, after a 4:2:2 one:
        // one run decodes one picture format, so the run stops at that frame
        // with the documented refusal (exit 7), nothing crashes, nothing is
        // violated.
        let source = try openSampleSource(Repo.fixture("4444.mov"))
        let sample = try XCTUnwrap(try source.nextSample())
        let alpha = withExtendedLifetime(sample) { Array(sample.bytes) }  // `bytes` borrows the sample's packet
        let resized = try hqFrame {
            $0.put16(16, 100)
            $0.put16(18, 50)
        }
        for (changed, words) in [(alpha, "frame 1 is 192x112 4:4:4"), (resized, "frame 1 is 100x50 4:2:2")] {
            let outcome = FuzzEntry.run(try hqFrame() + changed + hqFrame(), input: .file)
            XCTAssertEqual(outcome.violations, [], "\(outcome)")
            guard case .decoderUnavailable(let message)? = outcome.runError as? ProResDecodeError else {
                return XCTFail("expected the stream change to be refused: \(outcome)")
            }
            XCTAssertTrue(message.contains(words), message)
        }
    }

    func testHostileContainers() throws {
        for name in ["bad/h264.mp4", "bad/text.mov", "bad/truncated.mov", "bad/bad-header.mov", "bad/random.bin"] {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.fixture(name))))
            let outcome = FuzzEntry.run(bytes)
            XCTAssertEqual(outcome.violations, [], "\(name): \(outcome)")
        }
    }

    // MARK: - Leaks the fuzzer found

    /// AssetReader.init threw from `chooseTrack` before `stream` was set, so
    /// its deinit never ran and the AVFormatContext, with the open file,
    /// leaked: `check` over a folder of non-ProRes files would run out of
    /// descriptors (fixed in 56709ea).
    func testAssetReaderClosesItsInputWhenItHasNoProResTrack() throws {
        for _ in 0..<8 {
            XCTAssertThrowsError(try openSampleSource(Repo.fixture("bad/h264.mp4"))) { error in
                guard case .notProRes? = error as? ProResDecodeError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertEqual(
            try openDescriptors(on: Repo.fixture("bad/h264.mp4")), 0, "each refused container must close its file")
    }

    /// ElementaryStreamReader.init read the first frame into a packet and
    /// threw on an invalid header without freeing that packet (fixed in 56709ea).
    func testElementaryStreamReaderFreesAnInvalidFirstFrame() throws {
        var frame = [UInt8](repeating: 0x5A, count: 1 << 20)
        let header = try hqFrame { $0[25] |= 3 }
        frame.replaceSubrange(0..<148 + 8, with: header.prefix(148 + 8))
        frame.put32(0, UInt32(frame.count))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-invalid-first-\(getpid()).prores")
        try Data(frame).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        _ = try? openSampleSource(url.path)  // warm up
        let before = residentBytes()
        for _ in 0..<48 {
            XCTAssertThrowsError(try openSampleSource(url.path)) { error in
                guard case .notProRes? = error as? ProResDecodeError else { return XCTFail("\(error)") }
            }
        }
        let grown = residentBytes() - before
        XCTAssertLessThan(
            grown, 16 << 20,
            "48 refused 1 MiB frames grew the process by \(grown >> 20) MiB: the first frame's packet leaks")
    }

    /// DecodeRun keeps its session (`self.session`) and the session's output
    /// handler keeps the run (`[self]`): a cycle that keeps the run, its
    /// source (open file, demuxer) and every surface pool alive. One run per
    /// process (the CLI) does not notice; `check`, one run per file, does.
    /// A bug: this fails until it is fixed.
    func testDecodeRunIsReleasedAfterItsRun() throws {
        weak var lastRun: DecodeRun?
        weak var lastSource: AnyObject?
        for _ in 0..<4 {
            let source = try openSampleSource(Repo.fixture("proxy.mov"))
            // libavformat's descriptor and the sample-table reader's.
            XCTAssertEqual(
                try openDescriptors(on: Repo.fixture("proxy.mov")), 2, "the descriptor count must see an open input")
            let run = try DecodeRun(source: source, options: .init(threads: 1), sinks: [NullSink()])
            XCTAssertEqual(try run.run().framesWritten, 5)
            lastRun = run
            lastSource = source
        }
        XCTAssertNil(lastRun, "a finished DecodeRun must be released")
        XCTAssertNil(lastSource, "a finished DecodeRun must release its source")
        // Count only descriptors on the input: the runtime may open others of its own meanwhile.
        XCTAssertEqual(try openDescriptors(on: Repo.fixture("proxy.mov")), 0, "each finished run must close its input")
    }

    // MARK: - Helpers

    /// The first frame of Fixtures/hq.prores (192x112 HQ, 12517 bytes, both
    /// quantisation matrices), optionally edited.
    private func hqFrame(_ edit: (inout [UInt8]) -> Void = { _ in }) throws -> [UInt8] {
        let stream = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores"))))
        let size = Int(stream[0]) << 24 | Int(stream[1]) << 16 | Int(stream[2]) << 8 | Int(stream[3])
        var frame = Array(stream[0..<size])
        XCTAssertEqual(frame.count, 12517)
        edit(&frame)
        return frame
    }

    private func assertHeaderError(
        _ outcome: FuzzEntry.Outcome, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        switch outcome.header {
        case .success: XCTFail("the header parsed; expected '\(message)'", file: file, line: line)
        case .failure(let error):
            XCTAssertTrue(
                (error as? BitstreamError)?.message.hasPrefix(message) == true,
                "\(error) does not start with '\(message)'",
                file: file, line: line)
        }
    }

    private func assertOpenError(
        _ outcome: FuzzEntry.Outcome, notProRes reason: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .notProRes(_, let said)? = outcome.openError as? ProResDecodeError else {
            return XCTFail("expected notProRes '\(reason)…', got \(outcome)", file: file, line: line)
        }
        XCTAssertTrue(said.contains(reason), "'\(said)' does not contain '\(reason)'", file: file, line: line)
    }

    private func openDescriptors(on path: String) throws -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == target
        }.count
    }

    private func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func put16(_ offset: Int, _ value: UInt16) {
        self[offset] = UInt8(value >> 8)
        self[offset + 1] = UInt8(value & 0xFF)
    }

    fileprivate mutating func put32(_ offset: Int, _ value: UInt32) {
        for i in 0..<4 { self[offset + i] = UInt8((value >> (24 - 8 * i)) & 0xFF) }
    }
}
