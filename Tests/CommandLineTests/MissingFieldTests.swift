import Foundation
import XCTest

@testable import TestSupport

/// An interlaced frame that ends with its first field. FFmpeg reports it as
/// decoded and leaves the second field's lines as the pooled surface had
/// them (a check of such a file flapped); our GPU decoder wrote nothing
/// there either. Now both decoders report the frame damaged and conceal the
/// missing field the same way: every run, thread count and decoder gives
/// the same bytes, the first field's rows are FFmpeg's, the others video
/// black with neutral chroma.
final class MissingFieldTests: XCTestCase {
    func testMissingSecondFieldIsConcealedAlikeEverywhere() throws {
        let dir = try makeTemporaryDirectory(self)
        // Frame 2 of the MOV cut after its first picture: its sample-table
        // size and its frame-size field say so, the rest of its bytes stay
        // unused in mdat (the next sample's offset is unchanged).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("interlaced-tff.mov"))))
        let icpf = Array("icpf".utf8)
        let frames = (4..<bytes.count - 4).filter { bytes[$0] == icpf[0] && Array(bytes[$0..<$0 + 4]) == icpf }.map {
            $0 - 4
        }
        XCTAssertGreaterThanOrEqual(frames.count, 4)
        let start = frames[2]
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func setWord(_ at: Int, _ value: Int) {
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
        }
        let headerSize = Int(bytes[start + 8]) << 8 | Int(bytes[start + 9])
        let pictureSize = word(start + 8 + headerSize + 1)
        let cutSize = 8 + headerSize + pictureSize
        XCTAssertLessThan(cutSize, word(start), "the fixture's frame has a second field to cut")
        setWord(start, cutSize)
        let stsz = try XCTUnwrap((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == Array("stsz".utf8) })
        XCTAssertEqual(word(stsz + 8), 0, "one size per sample")
        setWord(stsz + 16 + 4 * 2, cutSize)
        let damaged = dir.appendingPathComponent("cut.mov")
        try Data(bytes).write(to: damaged)

        var outputs: [Data] = []
        for arguments in [
            ["--decoder", "ffmpeg", "--threads", "1"], ["--decoder", "cpu", "--threads", "4"], ["--decoder", "gpu"],
            ["--decoder", "gpu"],
        ] {
            let result = try runTool([damaged.path, "--format", "native", "-o", "-"] + arguments, timeout: 120)
            XCTAssertEqual(result.status, 5, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("frame 2 damaged: the second field is missing"), result.stderr)
            outputs.append(result.stdout)
        }
        for (n, output) in outputs.enumerated().dropFirst() {
            XCTAssertEqual(output, outputs[0], "run \(n) differs from the first")
        }

        // Independently: FFmpeg's own decode of the cut stream, frame 2: its
        // first (top, even) rows; the bottom rows must be concealment.
        let reference = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", damaged.path,
                "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-",
            ])
        let width = 192
        let height = 112
        let frameBytes = width * height * 2 * 2
        XCTAssertEqual(outputs[0].count % frameBytes, 0)
        let ours = [UInt8](outputs[0][(2 * frameBytes)..<(3 * frameBytes)])
        let theirs = [UInt8](reference[(2 * frameBytes)..<(3 * frameBytes)])
        func sample(_ frame: [UInt8], plane: Int, x: Int, y: Int) -> Int {
            let planeWidth = plane == 0 ? width : width / 2
            let base = plane == 0 ? 0 : width * height * 2 + (plane - 1) * (width / 2) * height * 2
            let at = base + (y * planeWidth + x) * 2
            return Int(frame[at]) | Int(frame[at + 1]) << 8
        }
        for y in 0..<height {
            for x in stride(from: 0, to: width, by: 7) {
                if y % 2 == 0 {
                    XCTAssertEqual(
                        sample(ours, plane: 0, x: x, y: y), sample(theirs, plane: 0, x: x, y: y), "top field row \(y)")
                } else {
                    XCTAssertEqual(sample(ours, plane: 0, x: x, y: y), 64, "bottom field row \(y): video black")
                    XCTAssertEqual(sample(ours, plane: 1, x: x / 2, y: y), 512, "bottom field row \(y): neutral chroma")
                }
            }
        }
    }
}
