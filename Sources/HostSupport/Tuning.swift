import Foundation
import ProResOptions

/// The `PRORES_DECODE_*` environment settings (docs/tuning.md), and the
/// few other variables the tool reads (the cache's home, `DISPLAY`,
/// `TMPDIR`): built once, by the command line, from its environment, and
/// passed down to what needs them; no library reads the environment
/// (`LibrarySettingsTests`). `Tuning.defaults` is every setting unset.
/// A `PRORES_DECODE_*` variable that is none of `names` is reported by
/// `warnings` (a typo must not silently do nothing).
public struct Tuning: Sendable, Equatable {
    public enum Validation: String, Sendable { case off, on, synchronization }

    /// `PRORES_DECODE_VALIDATION=1|sync`: the Khronos validation layer on every device (`sync`: with its synchronisation checks).
    public let validation: Validation
    /// `PRORES_DECODE_TRACE=FILE`: a Chrome trace of the run written there.
    public let tracePath: String?
    /// `PRORES_DECODE_BATCH=N`: frames per GPU decoder batch (≥ 1), when `--batch` does not say.
    public let batch: Int?
    /// `PRORES_DECODE_SLOTS=N`: GPU decoder batches in flight, 2…8 (default 4).
    public let slots: Int
    /// `PRORES_DECODE_TIMESTAMPS=N`: GPU timestamps on one batch in N after the first 4 (1: every batch; 0: none; default 16).
    public let timestampInterval: Int
    /// `PRORES_DECODE_PIPELINE_CACHE=0`: no on-disk pipeline cache.
    public let pipelineCache: Bool
    /// `PRORES_DECODE_PIPELINE_STATS=1`: each kernel's compiled statistics on stderr.
    public let pipelineStatistics: Bool
    /// `PRORES_DECODE_EARLY_KERNELS=0`: a decode builds each kernel when its session first asks for it, not all at once early.
    public let earlyKernels: Bool
    /// `PRORES_DECODE_READ_THREADS=N`: the sample reads' own threads, 1…256; nil: the default.
    public let readThreads: Int?
    /// `PRORES_DECODE_READ_AHEAD=N`: sample reads in flight ahead of a decoder, 1…65536; nil: the default (16 for one file, 8 in `check`).
    public let readAhead: Int?
    /// `PRORES_DECODE_SHADERS=DIR`: shader sources read from DIR instead of the built-in ones; empty is unset.
    public let shaderDirectory: String?
    /// `$XDG_CACHE_HOME`, else `$HOME/.cache`: where `prores-decode/` keeps
    /// its compiled shaders and pipelines; nil: no cache on disk.
    public let cacheHome: String?
    /// `$DISPLAY`: the X server `play` opens its window on.
    public let display: String?
    /// `$TMPDIR`, else `/tmp`: `bench --whole-process`'s stderr files.
    public let temporaryDirectory: String
    /// The `PRORES_DECODE_*` names the environment holds that are none of `names`.
    public let unknownNames: [String]
    /// One line per word setting whose value is not one it takes, saying what is used instead.
    public let invalidValues: [String]
    /// One line per number setting whose value is no plain decimal or is
    /// outside its range: a usage error, as an option's number is (main
    /// exits 2 with the first), never clamped or wrapped.
    public let numberProblems: [String]

    /// Every name the tool knows. `PRORES_DECODE_SHARD_INDEX`/`_TOTAL` are
    /// `check --shard auto`'s (ShardEnvironment reads them with the engines'
    /// own variables); `PRORES_DECODE_UPDATE_SNAPSHOTS` belongs to the test suite.
    public static let names = [
        "VALIDATION", "TRACE", "BATCH", "SLOTS", "TIMESTAMPS", "PIPELINE_CACHE", "PIPELINE_STATS",
        "READ_THREADS", "READ_AHEAD", "EARLY_KERNELS", "SHADERS", "SHARD_INDEX", "SHARD_TOTAL",
        "UPDATE_SNAPSHOTS",
    ].map { prefix + $0 }
    public static let prefix = "PRORES_DECODE_"

    /// Every setting unset: what a library gets unless its caller passes the command line's.
    public static let defaults = Tuning(environment: [:])

    public init(environment: [String: String]) {
        var invalid: [String] = []
        var numbers: [String] = []
        /// A whole number in `range`; anything else is a problem, and nil.
        func integer(_ name: String, _ range: ClosedRange<Int>) -> Int? {
            guard let text = environment[Self.prefix + name], !text.isEmpty else { return nil }
            let bounds =
                range.upperBound == Int.max ? "\(range.lowerBound) or more" : "\(range.lowerBound)…\(range.upperBound)"
            guard let value = PlainNumber.integer(text) else {
                numbers.append("\(Self.prefix + name)=\(text) is not a whole number (\(bounds))")
                return nil
            }
            guard range.contains(value) else {
                numbers.append("\(Self.prefix + name)=\(text) is outside \(bounds)")
                return nil
            }
            return value
        }
        /// One of `values`; anything else is the default, with a warning.
        func word(_ name: String, _ values: [String]) -> String? {
            guard let text = environment[Self.prefix + name], !text.isEmpty else { return nil }
            guard values.contains(text) else {
                invalid.append(
                    "\(Self.prefix + name)=\(text) is none of \(values.joined(separator: ", ")): the default is used")
                return nil
            }
            return text
        }
        switch word("VALIDATION", ["0", "1", "sync"]) {
        case "1": validation = .on
        case "sync": validation = .synchronization
        default: validation = .off
        }
        tracePath = environment[Self.prefix + "TRACE"].flatMap { $0.isEmpty ? nil : $0 }
        batch = integer("BATCH", 1...Int.max)
        slots = integer("SLOTS", 2...8) ?? 4
        timestampInterval = integer("TIMESTAMPS", 0...Int.max) ?? 16
        pipelineCache = word("PIPELINE_CACHE", ["0", "1"]) != "0"
        pipelineStatistics = word("PIPELINE_STATS", ["0", "1"]) == "1"
        earlyKernels = word("EARLY_KERNELS", ["0", "1"]) != "0"
        shaderDirectory = environment[Self.prefix + "SHADERS"].flatMap { $0.isEmpty ? nil : $0 }
        readThreads = integer("READ_THREADS", 1...256)
        readAhead = integer("READ_AHEAD", 1...(1 << 16))
        cacheHome = Self.cacheHome(environment)
        display = environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        temporaryDirectory = environment["TMPDIR"] ?? "/tmp"
        unknownNames = environment.keys.filter { $0.hasPrefix(Self.prefix) && !Self.names.contains($0) }.sorted()
        invalidValues = invalid
        numberProblems = numbers
    }

    private static func cacheHome(_ environment: [String: String]) -> String? {
        if let base = environment["XDG_CACHE_HOME"], !base.isEmpty { return base }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.cache" }
        return nil
    }

    /// One line per unknown name, naming the nearest known one when it is close.
    public var warnings: [String] {
        unknownNames.map { name in
            let nearest = Self.names.min { Self.distance(name, $0) < Self.distance(name, $1) }
            guard let nearest, Self.distance(name, nearest) <= max(2, (name.count - Self.prefix.count) / 3) else {
                return "unknown setting \(name) is ignored (docs/tuning.md lists the settings)"
            }
            return "unknown setting \(name) is ignored (did you mean \(nearest)?)"
        } + invalidValues
    }

    /// Edit distance (insertions, deletions, substitutions, and swaps of two neighbours).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
