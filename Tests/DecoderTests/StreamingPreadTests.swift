import Foundation
import Glibc
import XCTest

@testable import ProResFFmpeg
@testable import TestSupport

/// Reads whose destination is written with streaming stores must put
/// exactly the file's bytes where pread(2) would, at any alignment and
/// length, in pieces of any size, and report the end of the file as it does.
final class StreamingPreadTests: XCTestCase {
    func testEveryOffsetAlignmentAndPieceGivesTheFilesBytes() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.mov")))
        let fd = open(Repo.fixture("hq.mov"), O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        for piece in [4096, 8192, 65536] {
            let reader = StreamingPread(pieceBytes: piece)
            for (offset, count, misalign) in [
                (0, 1, 0), (1, 63, 1), (17, 4095, 3), (1000, 20_000, 15), (0, file.count, 7), (333, 65, 9),
            ] {
                let destination = UnsafeMutableRawPointer.allocate(byteCount: count + 64, alignment: 64)
                defer { destination.deallocate() }
                memset(destination, 0xA5, count + 64)
                var done = 0
                while done < count {
                    let n = reader.read(
                        fd, into: destination + misalign + done, count: count - done, at: off_t(offset + done))
                    XCTAssertGreaterThan(n, 0)
                    XCTAssertEqual(n, min(count - done, piece))
                    done += n
                }
                let got = Data(bytes: destination + misalign, count: count)
                XCTAssertEqual(
                    got, file[offset..<offset + count], "piece \(piece), offset \(offset), \(count) bytes, +\(misalign)"
                )
                // Nothing written around the destination.
                XCTAssertEqual(
                    Array(UnsafeRawBufferPointer(start: destination, count: misalign)),
                    Array(repeating: 0xA5, count: misalign))
                XCTAssertEqual((destination + misalign + count).load(as: UInt8.self), 0xA5)
            }
            var tail = [UInt8](repeating: 0, count: 16)
            XCTAssertEqual(
                tail.withUnsafeMutableBytes {
                    reader.read(fd, into: $0.baseAddress!, count: 16, at: off_t(file.count))
                }, 0)
            // A range running past the end reads what is there, as pread(2) does.
            XCTAssertEqual(
                tail.withUnsafeMutableBytes {
                    reader.read(fd, into: $0.baseAddress!, count: 16, at: off_t(file.count - 10))
                }, 10)
            XCTAssertEqual(Data(tail[0..<10]), file[(file.count - 10)...])
        }
    }
}
