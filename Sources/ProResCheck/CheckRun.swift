import Glibc
import HostSupport
import ProResCore

/// What makes shard reports parts of one run, recorded in each JSON report
/// (`"run"`) so that `merge` can prove it joins the parts of one check: the
/// options that shape verdicts, the whole file list (before `--shard`) as a
/// count and a digest, and which shard of how many this report holds.
public struct CheckRun: Sendable, Equatable {
    /// The options that shape verdicts, in a fixed order ("--expect
    /// profile=hq --sample 3"): never outputs, `--jobs`, `--threads` or the
    /// shard itself.
    public var options: String
    /// Files in the whole list, every shard's together.
    public var inputs: Int
    /// `CheckRun.digest(keys:)` of the whole list.
    public var inputsDigest: String
    public var shard: CheckShard?
    /// How `--shard auto` found its shard; nil for `--shard I/N` or none.
    public var shardSource: String?
    /// The golden file this run wrote (`--write-golden`), as given; `merge`
    /// looks for it beside the report.
    public var goldenPath: String?

    public init(options: String, inputs: [CheckInput], shard: CheckShard?, shardSource: String?, goldenPath: String?) {
        self.options = options
        self.inputs = inputs.count
        self.inputsDigest = Self.digest(keys: inputs.map { PathBytes.reportText($0.key) })
        self.shard = shard
        self.shardSource = shardSource
        self.goldenPath = goldenPath
    }

    /// BLAKE3-256 of the keys as the report writes them, sorted by their
    /// bytes, each followed by a line feed: the same whichever shards hold
    /// them, and wherever each machine mounts the files (keys are relative
    /// to the directory argument).
    public static func digest(keys: [String]) -> String {
        let sorted = ByteOrder.sorted(keys, by: \.self)
        var bytes: [UInt8] = []
        for path in sorted {
            bytes += path.utf8
            bytes.append(0x0A)
        }
        return "blake3:" + bytes.withUnsafeBytes { BLAKE3.hash($0, parallel: false).hex }
    }

    public var json: String {
        JSON.object([
            ("options", JSON.string(options)), ("inputs", "\(inputs)"), ("inputs_digest", JSON.string(inputsDigest)),
            ("shard_count", "\(shard?.count ?? 1)"), ("shard_index", "\(shard?.index ?? 1)"),
            ("shard_scheme", JSON.string(CheckShard.scheme)),
            ("shard_source", shardSource.map(JSON.string) ?? "null"),
            ("golden", goldenPath.map { JSON.string(PathBytes.reportText($0)) } ?? "null"),
        ])
    }
}

/// Sorting by the bytes of a string (as paths sort), with memcmp:
/// `utf8.lexicographicallyPrecedes` walks a generic iterator a byte at a
/// time, most of a 12,800-file merge's sorting.
enum ByteOrder {
    static func sorted<Item>(_ items: [Item], by text: (Item) -> String) -> [Item] {
        let keyed = items.map { (bytes: Array(text($0).utf8), item: $0) }
        return keyed.sorted { a, b in
            let common = min(a.bytes.count, b.bytes.count)
            // An empty array may have no base address: nothing to compare then.
            let order =
                common == 0
                ? 0
                : a.bytes.withUnsafeBufferPointer { x in
                    b.bytes.withUnsafeBufferPointer { y in
                        x.baseAddress.flatMap { p in y.baseAddress.map { memcmp(p, $0, common) } } ?? 0
                    }
                }
            return order != 0 ? order < 0 : a.bytes.count < b.bytes.count
        }.map(\.item)
    }
}
