import HostSupport
import ProResCore
import ProResOptions

/// `--shard I/N`: the I-th of N disjoint slices of the file list, so N
/// machines can split one check between them.
///
/// A file belongs to shard 1 + (h mod N), where h is the first 8 bytes of
/// the SHA-256 of its key's bytes (the path relative to its directory
/// argument, or as given; a URL without its query), read as a big-endian
/// unsigned integer. Why a hash of the key rather than a position in the
/// sorted list: adding or removing a file moves only that file, so a rerun
/// after the archive grew (or a `--resume`) finds every other file in the
/// shard it was in; and the same file goes to the same shard on every
/// machine, whatever directory the archive is mounted at.
public struct CheckShard: Hashable, Sendable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    /// The most shards a run is cut into: `merge` lists the missing ones
    /// of this many, and `--shard`, `--shard auto` and `merge` take no more.
    public static let maximumCount = 100_000

    public init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// "I/N" with 1 ≤ I ≤ N ≤ `maximumCount`, both plain decimals.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = PlainNumber.integer(parts[0], in: 1...Self.maximumCount),
            let count = PlainNumber.integer(parts[1], in: 1...Self.maximumCount)
        else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The name of the assignment, recorded in reports so that `merge`
    /// never joins shards cut another way.
    public static let scheme = "sha256-key-mod-n"
    /// Every scheme a report may name: a report cut by any other is refused.
    public static let schemes = [scheme]

    /// The shard (1-based) of `count` that the file keyed `key` belongs to.
    public static func shard(ofKey key: String, count: Int) -> Int {
        let digest = SHA256.hex(of: PathBytes.bytes(key))
        let h = UInt64(digest.prefix(16), radix: 16) ?? 0
        return Int(h % UInt64(count)) + 1
    }

    /// The inputs of this shard, in their order.
    public func select(_ inputs: [CheckInput]) -> [CheckInput] {
        inputs.filter { Self.shard(ofKey: $0.key, count: count) == index }
    }
}
