import Foundation
import ProResCore
import XCTest

@testable import TestSupport

/// `MD5Batch` (several messages per SIMD lane group) against `md5sum`, for
/// lengths around the padding boundaries, every lane count, and messages cut
/// into spans at random places, empty spans included.
final class MD5BatchTests: XCTestCase {
    /// Around one and two blocks' padding (55/56, 63/64/65, 119/120), and
    /// a length that is no multiple of 64 and spans many blocks.
    static let lengths = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 1000, (1 << 20) + 7]

    func testEveryLaneCountMatchesMD5Sum() throws {
        var random = KernelRandom(seed: 11)
        for length in Self.lengths {
            let messages = (0..<MD5Batch.lanes).map { _ in random.bytes(length) }
            let expected = try MD5Sum.hexes(messages)
            // 1 (alone), 2–4 (four lanes, some repeated), 5–8 (eight lanes).
            for count in 1...MD5Batch.lanes {
                let got = hashed(Array(messages.prefix(count)), random: &random)
                XCTAssertEqual(got, Array(expected.prefix(count)), "length \(length), \(count) messages")
            }
        }
    }

    /// Messages of many lengths in one call (grouped by length inside), more
    /// than eight of one length, in shuffled order.
    func testMixedLengthsKeepTheirOrder() throws {
        var random = KernelRandom(seed: 12)
        var lengths = Self.lengths.filter { $0 < 4096 } + Array(repeating: 200, count: 11) + [64, 64, 0, 65]
        lengths.shuffle(using: &random)
        let messages = lengths.map { random.bytes($0) }
        XCTAssertEqual(hashed(messages, random: &random), try MD5Sum.hexes(messages))
    }

    func testKnownDigests() {
        // RFC 1321's test suite (appendix A.5), as `md5sum` prints it.
        let messages = ["", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz"].map { Data($0.utf8) }
        var random = KernelRandom(seed: 13)
        XCTAssertEqual(
            hashed(messages, random: &random),
            [
                "d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661",
                "900150983cd24fb0d6963f7d28e17f72",
                "f96b697d7cb7938d525a2f31aaf161d0", "c3fcd3d76192e4007dfb496cca67e13b",
            ])
    }

    /// `MD5Batch.hex` of `messages`, each cut into spans at random points
    /// (some empty, some shorter than a block, some not multiples of 64).
    private func hashed(_ messages: [Data], random: inout KernelRandom) -> [String] {
        let cuts = messages.map { message -> [Range<Int>] in
            var ranges: [Range<Int>] = []
            var start = 0
            while start < message.count || ranges.isEmpty {
                let kind = random.next() % 4
                let size =
                    kind == 0
                    ? 0 : kind == 1 ? Int(random.next() % 130) : Int(random.next() % UInt64(message.count + 1))
                let end = min(message.count, start + size)
                ranges.append(start..<end)
                start = end
                if ranges.count > 64 {
                    ranges.append(start..<message.count)
                    break
                }
            }
            if random.next() % 2 == 0 { ranges.append(message.count..<message.count) }
            return ranges
        }
        let buffers = messages.map { [UInt8]($0) }
        return withSpans(buffers, cuts) { MD5Batch.hex(of: $0) }
    }

    private func withSpans<R>(_ buffers: [[UInt8]], _ cuts: [[Range<Int>]], _ body: ([[UnsafeRawBufferPointer]]) -> R)
        -> R
    {
        // Copies that outlive the closure: spans into one allocation per message.
        let storage = buffers.map { bytes -> UnsafeMutableRawBufferPointer in
            let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            memory.copyBytes(from: bytes)
            return memory
        }
        defer { storage.forEach { $0.deallocate() } }
        let spans = zip(storage, cuts).map { memory, ranges in
            ranges.map { UnsafeRawBufferPointer(rebasing: memory[$0]) }
        }
        return body(spans)
    }
}
