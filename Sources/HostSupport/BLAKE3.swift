import Foundation

/// BLAKE3-256 (unkeyed, 32-byte output), written from the BLAKE3 spec, for
/// frame hashes: the message is split into 1 KiB chunks whose chaining
/// values (CVs) are merged by a binary tree of parent nodes.
///
/// The tree is built by merging consecutive nodes pairwise, level by level,
/// carrying an odd last node up unmerged. That is the spec's tree: a node
/// over n chunks has a full left subtree of the largest power of two 2^k < n
/// and the rest on its right, and pairing aligned runs level by level gives
/// exactly those splits. So independent aligned subtrees of 2^k chunks (a
/// core's share, a GPU workgroup's) merge into the spec's root with the same
/// rule (`root(subtrees:)`). The ROOT flag goes on the last compression only:
/// the final parent node, or, for a one-chunk message, that chunk's last block.
public enum BLAKE3 {
    public static let chunkBytes = 1024

    /// Chunks of an `count`-byte message (an empty message is one empty chunk).
    public static func chunkCount(bytes count: Int) -> Int { max(1, (count + chunkBytes - 1) / chunkBytes) }

    /// The digest of the message formed by `spans` concatenated. `parallel`
    /// hashes large messages as aligned subtrees on all cores; the result is
    /// the serial one.
    public static func hash(_ spans: [UnsafeRawBufferPointer], parallel: Bool = true) -> BLAKE3Digest {
        let message = SpanMessage(spans)
        let chunks = chunkCount(bytes: message.count)
        let perTask = parallel ? chunksPerTask(chunks) : chunks
        guard perTask < chunks else { return BLAKE3Digest(subtree(message, chunks: 0..<chunks, root: true)) }
        let tasks = (chunks + perTask - 1) / perTask
        return withUnsafeTemporaryAllocation(of: ChainingValue.self, capacity: tasks) { cvs in
            parallelFor(tasks) { task in  // each task initialises only its own element
                let range = task * perTask..<min(chunks, (task + 1) * perTask)
                (cvs.baseAddress! + task).initialize(to: subtree(message, chunks: range, root: false))
            }
            return BLAKE3Digest(mergeToRoot(cvs))
        }
    }

    /// The digest of one contiguous message.
    public static func hash(_ bytes: UnsafeRawBufferPointer, parallel: Bool = true) -> BLAKE3Digest {
        hash([bytes], parallel: parallel)
    }

    /// The CV of the subtree over `chunks` of the message `spans` form. The
    /// range must be an aligned subtree: 2^k chunks starting at a multiple
    /// of 2^k, only the message's last subtree shorter. Never root-finalised:
    /// a message of one subtree has its digest from `hash`, not from here.
    public static func chainingValue(_ spans: [UnsafeRawBufferPointer], chunks: Range<Int>) -> SIMD8<UInt32> {
        subtree(SpanMessage(spans), chunks: chunks, root: false).simd
    }

    /// The digest of a message from the CVs of its consecutive aligned
    /// subtrees of 2^k chunks each (the last may be shorter). One subtree
    /// is the whole message: its CV must then already be the root output
    /// (compressed with the ROOT flag), and is returned as the digest.
    public static func root(subtrees: [SIMD8<UInt32>]) -> BLAKE3Digest {
        precondition(!subtrees.isEmpty, "a message has at least one subtree")
        return withUnsafeTemporaryAllocation(of: ChainingValue.self, capacity: subtrees.count) { cvs in
            for (i, cv) in subtrees.enumerated() { (cvs.baseAddress! + i).initialize(to: ChainingValue(cv)) }
            return BLAKE3Digest(mergeToRoot(cvs))
        }
    }

    /// `root(subtrees:)` for `count` CVs of 8 little-endian words (32 bytes)
    /// each at `subtrees`, as a GPU pass writes them.
    public static func root(subtrees: UnsafeRawPointer, count: Int) -> BLAKE3Digest {
        precondition(count > 0, "a message has at least one subtree")
        return withUnsafeTemporaryAllocation(of: ChainingValue.self, capacity: count) { cvs in
            for i in 0..<count {
                let w = { subtrees.loadUnaligned(fromByteOffset: 32 * i + 4 * $0, as: UInt32.self) }
                (cvs.baseAddress! + i).initialize(to: ChainingValue(w(0), w(1), w(2), w(3), w(4), w(5), w(6), w(7)))
            }
            return BLAKE3Digest(mergeToRoot(cvs))
        }
    }

    // MARK: - The tree

    /// Chunks a parallel task hashes: a power of two (tasks are aligned
    /// subtrees), big enough to outweigh a task's start, small enough for
    /// several tasks a core, so that uneven cores still finish together.
    private static func chunksPerTask(_ chunks: Int) -> Int {
        let wanted =
            (chunks + 4 * ProcessInfo.processInfo.activeProcessorCount - 1)
            / (4 * ProcessInfo.processInfo.activeProcessorCount)
        var perTask = 32
        while perTask < wanted { perTask <<= 1 }
        return perTask
    }

    /// Merges consecutive subtree CVs pairwise, level by level (an odd last
    /// one carried up), in place; the final parent is the root.
    private static func mergeToRoot(_ cvs: UnsafeMutableBufferPointer<ChainingValue>) -> ChainingValue {
        var count = cvs.count
        while count > 1 {
            var merged = 0
            for left in stride(from: 0, to: count, by: 2) {
                cvs[merged] = left + 1 < count ? parent(cvs[left], cvs[left + 1], root: count == 2) : cvs[left]
                merged += 1
            }
            count = merged
        }
        return cvs[0]
    }

    /// The CV of the aligned subtree over `chunks` (or with `root` the
    /// digest of a message that is this one subtree). The last chunk's CV
    /// is merged down the stack of the others' at the end, so the final
    /// compression, and only it, can carry ROOT. On x86-64 the chunks
    /// before the last are hashed several at once in SIMD lanes
    /// (`pushChunkGroups`); the few left over, and the last, one at a time.
    static func subtree(_ message: SpanMessage, chunks: Range<Int>, root: Bool) -> ChainingValue {
        var reader = message.reader(at: chunks.lowerBound * chunkBytes)
        // Depth ≤ log2(chunks) + 1 ≤ 64 for any message that fits in memory.
        return withUnsafeTemporaryAllocation(of: ChainingValue.self, capacity: 64) { storage in
            var stack = ChainingValueStack(storage)
            let last = chunks.upperBound - 1
            var chunk = chunks.lowerBound
            #if arch(x86_64)
                chunk = pushChunkGroups(&reader, chunks: chunk..<last, onto: &stack)
            #endif
            while chunk < last {
                stack.push(chunkCV(&reader, length: chunkBytes, counter: UInt64(chunk), root: false))
                chunk += 1
            }
            let lastLength = min(chunkBytes, message.count - last * chunkBytes)
            let lastCV = chunkCV(&reader, length: lastLength, counter: UInt64(last), root: root && stack.isEmpty)
            return stack.merge(lastChunk: lastCV, root: root)
        }
    }

    /// One chunk's CV (spec §2.4): its blocks compressed in order, the last
    /// one zero-padded; `length` 0 only for the empty message.
    @inline(__always)
    private static func chunkCV(_ reader: inout SpanReader, length: Int, counter: UInt64, root: Bool) -> ChainingValue {
        var cv = ChainingValue.iv
        let blocks = max(1, (length + 63) / 64)
        for index in 0..<blocks {
            let blockLength = min(64, length - 64 * index)
            var block = MessageBlock()
            withUnsafeMutableBytes(of: &block) { reader.read(blockLength, into: $0.baseAddress!) }
            var flags = index == 0 ? BLAKE3Flag.chunkStart : 0
            if index == blocks - 1 { flags |= BLAKE3Flag.chunkEnd | (root ? BLAKE3Flag.root : 0) }
            cv = compress(cv, block, counter: counter, blockLength: UInt32(blockLength), flags: flags)
        }
        return cv
    }
}

/// The CVs of a subtree's chunks but its last, in order, each complete pair
/// merged into its parent as soon as it appears.
struct ChainingValueStack {
    private let storage: UnsafeMutableBufferPointer<ChainingValue>
    private var depth = 0
    private var chunks = 0

    init(_ storage: UnsafeMutableBufferPointer<ChainingValue>) { self.storage = storage }

    var isEmpty: Bool { depth == 0 }

    mutating func push(_ chunkCV: ChainingValue) {
        var cv = chunkCV
        chunks += 1
        // After 2^j·odd chunks, j pairs complete.
        var done = chunks
        while done & 1 == 0 {
            depth -= 1
            cv = BLAKE3.parent(storage[depth], cv, root: false)
            done >>= 1
        }
        storage[depth] = cv
        depth += 1
    }

    /// The subtree's CV: its last chunk's CV merged down the whole stack;
    /// with `root`, the final merge carries ROOT.
    mutating func merge(lastChunk: ChainingValue, root: Bool) -> ChainingValue {
        var cv = lastChunk
        while depth > 0 {
            depth -= 1
            cv = BLAKE3.parent(storage[depth], cv, root: root && depth == 0)
        }
        return cv
    }
}
