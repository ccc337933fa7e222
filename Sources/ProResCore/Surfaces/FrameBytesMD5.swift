import HostSupport

/// MD5 (RFC 1321) of several messages at once, one message per SIMD lane:
/// a core hashes four messages in about the time one takes it (MD5 is one
/// long chain of dependent steps). `--framemd5` hashes consecutive frames,
/// which have one length, so their lanes stay in step.
///
/// Each message is the concatenation of its spans (any sizes, empty ones
/// included). Messages of equal length share lanes, eight or four at a
/// time; a message whose length no other shares is hashed alone.
public enum MD5Batch {
    /// The most messages hashed together.
    public static let lanes = 8

    /// Each message's md5 as 32 lowercase hex digits, in order.
    public static func hex(of messages: [[UnsafeRawBufferPointer]]) -> [String] {
        hex(of: messages.map(FrameBytes.spans))
    }

    /// The same for frames' bytes: the native planes of a packed surface
    /// are unpacked a row at a time into each lane's own row buffer.
    public static func hex(of messages: [FrameBytes]) -> [String] {
        var digests = [[UInt8]](repeating: [], count: messages.count)
        var byLength: [Int: [Int]] = [:]
        var lengths: [Int] = []
        for (index, message) in messages.enumerated() {
            let length = message.count
            if byLength[length] == nil { lengths.append(length) }
            byLength[length, default: []].append(index)
        }
        for length in lengths {
            let indices = byLength[length]!
            for start in stride(from: 0, to: indices.count, by: lanes) {
                let group = Array(indices[start..<min(start + lanes, indices.count)])
                let spans = group.map { messages[$0] }
                let groupDigests: [[UInt8]]
                switch group.count {
                case 1: groupDigests = laneDigests(of: spans, length: length, as: UInt32.self, width: 1)
                case 2...4: groupDigests = laneDigests(of: spans, length: length, as: SIMD4<UInt32>.self, width: 4)
                default: groupDigests = laneDigests(of: spans, length: length, as: SIMD8<UInt32>.self, width: 8)
                }
                for (index, digest) in zip(group, groupDigests) { digests[index] = digest }
            }
        }
        let digits = Array("0123456789abcdef".utf8)
        return digests.map {
            String(decoding: $0.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        }
    }

    /// `messages` (1...width, all `length` bytes) through `width` lanes; a
    /// lane without a message of its own hashes the last one again.
    private static func laneDigests<Lanes: MD5Lanes>(
        of messages: [FrameBytes], length: Int,
        as _: Lanes.Type, width: Int
    ) -> [[UInt8]] {
        var readers = (0..<width).map { FrameBytesReader(messages[min($0, messages.count - 1)]) }
        // Per lane: a block gathered across spans, or the 1–2 padded final blocks.
        let staging = UnsafeMutableRawPointer.allocate(byteCount: width * 128, alignment: 64)
        let blocks = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: width)
        defer {
            staging.deallocate()
            blocks.deallocate()
        }
        var state = MD5State<Lanes>()
        var remaining = length
        while remaining >= 64 {
            // Whole blocks every lane has in one piece, read in place.
            let run = min(readers.reduce(Int.max) { min($0, $1.contiguousCount) }, remaining) / 64
            if run > 0 {
                for lane in 0..<width { blocks[lane] = readers[lane].current }
                for _ in 0..<run {
                    state.compress(blocks)
                    for lane in 0..<width { blocks[lane] += 64 }
                }
                for lane in 0..<width { readers[lane].skip(run * 64) }
                remaining -= run * 64
            } else {
                for lane in 0..<width {
                    readers[lane].copy(64, to: staging + lane * 128)
                    blocks[lane] = UnsafeRawPointer(staging + lane * 128)
                }
                state.compress(blocks)
                remaining -= 64
            }
        }
        // Padding: 0x80, zeros, then the length in bits, little-endian, in
        // the last 8 bytes of the block that has room for them.
        let finalBlocks = remaining < 56 ? 1 : 2
        for lane in 0..<width {
            let block = staging + lane * 128
            block.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
            readers[lane].copy(remaining, to: block)
            block.storeBytes(of: 0x80, toByteOffset: remaining, as: UInt8.self)
            block.storeBytes(
                of: (UInt64(length) &* 8).littleEndian, toByteOffset: finalBlocks * 64 - 8, as: UInt64.self)
            blocks[lane] = UnsafeRawPointer(block)
        }
        state.compress(blocks)
        if finalBlocks == 2 {
            for lane in 0..<width { blocks[lane] += 64 }
            state.compress(blocks)
        }
        return messages.indices.map { state.digest(lane: $0) }
    }
}
