import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// `--shard I/N`: the I-th of N disjoint slices of the sorted file list, so N
/// CI machines can split one check between them.
///
/// Why round-robin (position ≡ I−1 mod N) rather than contiguous blocks:
/// neighbouring files (one camera roll, one episode) tend to be alike in
/// size, so interleaving spreads the work more evenly.
public struct CheckShard: Hashable, Sendable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// "I/N" with 1 ≤ I ≤ N.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The items whose position in `items` is ≡ index − 1 (mod count).
    public func select<Item>(_ items: [Item]) -> [Item] {
        items.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }
}
