import Foundation
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// `check --jobs N` opens files on N threads at once: each error must quote
/// what FFmpeg said about its own file, never another thread's.
final class FFmpegLogTests: XCTestCase {
    func testEachOpenQuotesItsOwnFilesError() throws {
        let moovLess = Repo.fixture("bad/text.mov")  // FFmpeg: "moov atom not found"
        let noise = Repo.fixture("bad/random.bin")  // FFmpeg says nothing of a moov atom
        let found = Guarded<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            let path = i % 2 == 0 ? moovLess : noise
            do {
                _ = try openSampleSource(path)
                found.mutate { $0.append("\(path) opened") }
            } catch {
                let text = "\(error)"
                if (path == moovLess) != text.contains("moov atom not found") {
                    found.mutate { $0.append(text) }
                }
            }
        }
        let wrong = found.value
        XCTAssertEqual(wrong, [], "\(wrong.count) of 400 errors quoted another file's FFmpeg message")
    }

    /// FFmpeg logs one line in pieces; the reader must get it whole.
    func testPiecesBecomeWholeLinesAtTheirMostSevereLevel() {
        var lines = FFmpegLogLines()
        XCTAssertTrue(lines.append("Packet corrupt (stream = 0, dts = 1024)", level: 24).isEmpty)
        XCTAssertEqual(lines.unfinished?.text, "Packet corrupt (stream = 0, dts = 1024)")
        let done = lines.append(".\nstream 0, offset 0x9722: ", level: 16)
        XCTAssertEqual(done.map(\.text), ["Packet corrupt (stream = 0, dts = 1024)."])
        XCTAssertEqual(done.map(\.level), [16])
        XCTAssertEqual(
            lines.append("partial file\n\nnext\n", level: 24).map(\.text),
            ["stream 0, offset 0x9722: partial file", "", "next"])
        XCTAssertNil(lines.unfinished)
    }

    /// The CLI run as a process on a clip that makes FFmpeg log in pieces.
    func testVerboseShowsWholeLinesAndCheckNamesTheFile() throws {
        let clip = Repo.fixture("bad/truncated-faststart.mov")
        let decode = try runTool([clip, "--verbose", "--decoder", "cpu"])
        let ffmpegLines = decode.stderr.split(separator: "\n").filter { $0.hasPrefix("ffmpeg: ") }
        XCTAssertTrue(ffmpegLines.contains("ffmpeg: Packet corrupt (stream = 0, dts = 1024)."), decode.stderr)
        XCTAssertFalse(
            ffmpegLines.contains { $0.count < "ffmpeg: ".count + 4 }, "a line that is only a piece:\n\(decode.stderr)")

        let check = try runTool(["check", clip, "-v", "--decoder", "cpu"])
        XCTAssertTrue(check.stderr.contains("ffmpeg: \(clip): Packet corrupt (stream = 0, dts = 1024)."), check.stderr)
    }
}
