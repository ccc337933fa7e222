import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import TestSupport

/// Our BLAKE3 against `b3sum`, for lengths on and around every boundary of
/// the spec (block 64, chunk 1024, subtrees of 2^k chunks, a parallel
/// task's 32 chunks) and messages split into spans anywhere.
final class BLAKE3Tests: XCTestCase {
    static let lengths = [
        0, 1, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049, 3072, 5000, 31 * 1024, 32 * 1024, 32 * 1024 + 1,
        1 << 16, (1 << 16) + 1, 3 * 1024 * 33 + 17, 1 << 20, (1 << 20) + 7, 9 * 1024 * 1024 + 333,
    ]

    func testRandomMessagesMatchB3sum() throws {
        var random = KernelRandom(seed: 1)
        let messages = Self.lengths.map { random.bytes($0) }
        let expected = try B3Sum.hexes(messages)
        for (message, hex) in zip(messages, expected) {
            message.withUnsafeBytes { bytes in
                XCTAssertEqual(BLAKE3.hash(bytes).hex, hex, "\(message.count) bytes, parallel")
                XCTAssertEqual(BLAKE3.hash(bytes, parallel: false).hex, hex, "\(message.count) bytes, serial")
            }
        }
    }

    /// Chunks before a message's last are hashed several at a time in SIMD
    /// lanes on x86-64 (4 a group with SSE2, 8 with AVX2, up to 16 a call),
    /// the few left over and the last one alone: chunk counts around each
    /// group size, one byte short, exact and one byte over.
    func testChunkGroupsMatchB3sum() throws {
        var random = KernelRandom(seed: 4)
        let chunkCounts = [4, 5, 7, 8, 9, 12, 13, 16, 17, 21, 33]
        let lengths: [Int] = chunkCounts.flatMap { (chunks: Int) -> [Int] in
            [chunks * 1024 - 1, chunks * 1024, chunks * 1024 + 1]
        }
        let messages = lengths.map { random.bytes($0) }
        for (message, hex) in zip(messages, try B3Sum.hexes(messages)) {
            message.withUnsafeBytes { bytes in
                XCTAssertEqual(BLAKE3.hash(bytes).hex, hex, "\(message.count) bytes, parallel")
                XCTAssertEqual(BLAKE3.hash(bytes, parallel: false).hex, hex, "\(message.count) bytes, serial")
            }
        }
    }

    /// The official test vectors' input (byte i = i mod 251), hashed by b3sum.
    func testOfficialVectorInputsMatchB3sum() throws {
        let lengths = [
            0, 1, 1023, 1024, 1025, 2048, 2049, 3072, 3073, 4096, 4097, 5120, 5121, 6144, 6145, 7168, 7169, 8192, 8193,
            16384, 31744, 102_400,
        ]
        let messages = lengths.map { Data((0..<$0).map { UInt8($0 % 251) }) }
        for (message, hex) in zip(messages, try B3Sum.hexes(messages)) {
            XCTAssertEqual(message.withUnsafeBytes { BLAKE3.hash($0).hex }, hex, "\(message.count) bytes")
        }
    }

    /// A frame reaches a sink as planes or as rows: the spans form one
    /// message whatever their boundaries (empty spans included).
    func testSpansSplitAnywhereFormOneMessage() throws {
        var random = KernelRandom(seed: 2)
        for length in [0, 65, 1025, 5000, 16 * 1024 + 1, 33 * 1024 - 1, 70_000, (1 << 20) + 7] {
            let message = random.bytes(length)
            let expected = try B3Sum.hexes([message])[0]
            message.withUnsafeBytes { whole in
                for split in 0..<5 {
                    var spans: [UnsafeRawBufferPointer] = []
                    var at = 0
                    while at < length {
                        // Odd sizes: 1 byte, 7, 63, 1023, rows of 3842 bytes, random, around a chunk and
                        // a group of chunks (so that chunks of one group lie in different spans, or
                        // straddle them), and empty spans between.
                        let sizes = [
                            [1, 7, 0, 63], [1023, 1, 0, 65], [3842], [Int(random.next() % 5000)],
                            [1025, 4095, 0, 8193, 511],
                        ]
                        let size = sizes[split].randomElement(using: &random)!
                        let end = min(length, at + size)
                        spans.append(UnsafeRawBufferPointer(rebasing: whole[at..<end]))
                        at = end
                    }
                    spans.insert(UnsafeRawBufferPointer(start: nil, count: 0), at: 0)
                    spans.append(UnsafeRawBufferPointer(start: nil, count: 0))
                    XCTAssertEqual(
                        BLAKE3.hash(spans).hex, expected, "\(length) bytes in \(spans.count) spans, parallel")
                    XCTAssertEqual(
                        BLAKE3.hash(spans, parallel: false).hex, expected,
                        "\(length) bytes in \(spans.count) spans, serial")
                }
            }
        }
    }

    /// The GPU's split: CVs of aligned 2^k-chunk subtrees, merged by `root`.
    func testSubtreeChainingValuesMergeToTheDigest() throws {
        var random = KernelRandom(seed: 3)
        for (length, log2Chunks) in [
            (2048, 0), (3000, 0), (5 * 1024, 1), (128 * 1024 + 1, 7), (1000 * 1024 + 5, 7), (8 * 1024, 2),
        ] {
            let message = random.bytes(length)
            let expected = try B3Sum.hexes([message])[0]
            message.withUnsafeBytes { bytes in
                let chunks = BLAKE3.chunkCount(bytes: length)
                let size = 1 << log2Chunks
                let cvs = stride(from: 0, to: chunks, by: size).map {
                    BLAKE3.chainingValue([bytes], chunks: $0..<min(chunks, $0 + size))
                }
                XCTAssertGreaterThan(cvs.count, 1)
                XCTAssertEqual(BLAKE3.root(subtrees: cvs).hex, expected, "\(length) bytes, subtrees of \(size) chunks")
                let raw = cvs.flatMap { cv in (0..<8).map { cv[$0].littleEndian } }
                XCTAssertEqual(
                    raw.withUnsafeBytes { BLAKE3.root(subtrees: $0.baseAddress!, count: cvs.count) }.hex, expected)
            }
        }
    }

    func testDigestHexRoundTrips() throws {
        let hex = try B3Sum.hexes([Data("abc".utf8)])[0]
        let digest = try XCTUnwrap(BLAKE3Digest(hex: hex))
        XCTAssertEqual(digest.hex, hex)
        XCTAssertEqual(BLAKE3Digest(hex: hex.uppercased()), digest)
        XCTAssertEqual(Data("abc".utf8).withUnsafeBytes { BLAKE3.hash($0) }, digest)
        XCTAssertEqual(digest.bytes.map { String(format: "%02x", $0) }.joined(), hex)
        for bad in ["", String(hex.dropLast()), hex + "0", String(hex.dropLast()) + "g"] {
            XCTAssertNil(BLAKE3Digest(hex: bad), bad)
        }
    }
}
