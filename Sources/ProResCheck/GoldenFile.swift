import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// Per-frame hashes of checked files (`--write-golden`, `--golden`): a
/// text file, one line per frame, `FRAME HASH KEY`, sorted by key then frame,
/// so it diffs well under version control. KEY is the file's path relative to
/// the directory argument it was found under (or the path as given), and runs
/// to the end of the line; `\` and line breaks in it are escaped as `\\`,
/// `\n`, `\r`, and a byte of a file name that is not UTF-8 as `\xHH`.
///
/// HASH is of the native planar frame: exactly the bytes
/// `prores-decode KEY --format native -o -` writes for that frame.
/// * v2 (written since 2026-12): BLAKE3-256, 64 hex digits — computed where
///   the frame lives (on the GPU decoder's device) and checkable by anyone:
///   `prores-decode F --format native --start N --frames 1 -o - | b3sum`.
/// * v1: md5, 32 hex digits (`ffmpeg -f framemd5`'s). Still verified: a
///   check against a v1 file computes md5s, which needs every frame's bytes
///   on the host (slower on the GPU decoder).
/// A file holds one kind; the header line names it, the hash length decides.
///
/// Which decoder wrote a file's hashes, and the frames where our decoders
/// and FFmpeg's x86 decoder may differ (`DecodedFrame.decodersMayDiffer`),
/// are lines that begin with `#` (skipped where they are not known),
/// before the file's frames: `#@decoder cpu KEY` (cpu, gpu or ffmpeg) and
/// `#@may-differ 3,17 KEY`. A hash compared with one of another decoder on
/// such a frame is a warning, not a difference (`verdict`).
public struct GoldenFile: Equatable, Sendable {
    public enum Algorithm: String, Sendable {
        case md5, blake3

        var hexDigits: Int { self == .md5 ? 32 : 64 }
        var header: String {
            switch self {
            case .md5: return "# prores-decode check golden v1: frame index, md5 of the native planar frame, path"
            case .blake3:
                return "# prores-decode check golden v2: frame index, BLAKE3-256 of the native planar frame, path"
            }
        }
    }

    public private(set) var algorithm: Algorithm
    /// key → frame index → hash (lowercase hex).
    public private(set) var entries: [String: [Int: String]] = [:]
    /// key → the decoder that wrote its hashes: cpu, gpu or ffmpeg.
    public private(set) var decoders: [String: String] = [:]
    /// key → frames where the decoders may differ.
    public private(set) var mayDiffer: [String: Set<Int>] = [:]

    static let decoderPrefix = "#@decoder "
    static let mayDifferPrefix = "#@may-differ "

    /// The decoder family of a `FileCheckResult.decoder` name ("gpu (device)" → gpu).
    public static func decoderFamily(_ name: String?) -> String? {
        guard let word = name?.split(separator: " ").first else { return nil }
        return ["cpu", "gpu", "ffmpeg"].contains(String(word)) ? String(word) : nil
    }

    /// Whether hashes of these two decoders may part on a may-differ frame:
    /// ours (cpu and gpu, bit-exact with each other) against FFmpeg's.
    static func decodersMayPart(_ a: String, _ b: String) -> Bool { (a == "ffmpeg") != (b == "ffmpeg") }

    public init(algorithm: Algorithm = .blake3) {
        self.algorithm = algorithm
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parsed byte by byte (a golden file of a folder holds a line a frame:
    /// splitting its text by Character took ~13 ms for 864 lines, before
    /// `check` could start its devices).
    public init(parsing text: String) throws {
        self.algorithm = .blake3  // until the lines say
        var algorithm: Algorithm?
        let newline = UInt8(ascii: "\n")
        let space = UInt8(ascii: " ")
        for (number, line) in text.utf8.split(separator: newline, omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { continue }
            if line.first == UInt8(ascii: "#") {
                try parseAnnotation(Substring(line), number: number + 1)
                continue
            }
            let fields = line.split(separator: space, maxSplits: 2, omittingEmptySubsequences: false)
            let hash = fields.count == 3 ? fields[1] : line.prefix(0)
            let kind = [Algorithm.md5, .blake3].first { $0.hexDigits == hash.count }
            // A raw carriage return is no part of a path (escape() writes `\r`): a CRLF file is refused.
            guard fields.count == 3, let kind, let frame = Int(Substring(fields[0])), frame >= 0,
                hash.allSatisfy({
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                }),
                !fields[2].contains(UInt8(ascii: "\r")),
                let key = Self.unescape(Substring(fields[2])), !key.isEmpty
            else {
                throw ParseError(
                    description: "line \(number + 1): expected 'FRAME HASH PATH' (HASH: 64 hex digits of BLAKE3, "
                        + "or 32 of md5), got '\(Substring(line).prefix(80))'")
            }
            if let algorithm, algorithm != kind {
                throw ParseError(
                    description: "line \(number + 1): a \(kind.rawValue) hash in a file of \(algorithm.rawValue) hashes"
                )
            }
            algorithm = kind
            guard entries[key, default: [:]].updateValue(String(Substring(hash)), forKey: frame) == nil else {
                throw ParseError(description: "line \(number + 1): frame \(frame) of '\(key)' is listed twice")
            }
        }
        self.algorithm = algorithm ?? (text.hasPrefix(Algorithm.md5.header) ? .md5 : .blake3)
    }

    /// How `check --golden` reads one (docs/inputs.md): at most 1 GiB, lines
    /// of at most 64 KiB (a path of PATH_MAX bytes, each escaped as `\xHH`),
    /// each blank, a `#` comment, or starting `FRAME HASH ` (digits, then hex).
    public static let input = AuxiliaryInput(noun: "golden file", maximumBytes: 1 << 30, maximumLineBytes: 1 << 16) {
        line in
        if line.isEmpty || line.first == UInt8(ascii: "#") { return nil }
        let digits = line.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let afterFrame = line.dropFirst(digits.count)
        let hex = afterFrame.dropFirst().prefix {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
        let shaped =
            !digits.isEmpty && afterFrame.first == UInt8(ascii: " ") && [32, 64].contains(hex.count)
            && afterFrame.dropFirst(1 + hex.count).first == UInt8(ascii: " ")
        return shaped ? nil : "expected 'FRAME HASH PATH' (HASH: 64 hex digits of BLAKE3, or 32 of md5)"
    }

    /// `#@decoder` and `#@may-differ` lines; any other `#` line is a comment.
    private mutating func parseAnnotation(_ line: Substring, number: Int) throws {
        for prefix in [Self.decoderPrefix, Self.mayDifferPrefix] where line.hasPrefix(prefix) {
            let fields = line.dropFirst(prefix.count).split(
                separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2, let key = Self.unescape(fields[1]), !key.isEmpty else {
                throw ParseError(
                    description: "line \(number): expected '\(prefix)VALUE PATH', got '\(line.prefix(80))'")
            }
            if prefix == Self.decoderPrefix {
                guard ["cpu", "gpu", "ffmpeg"].contains(String(fields[0])) else {
                    throw ParseError(
                        description: "line \(number): the decoder is cpu, gpu or ffmpeg, not '\(fields[0].prefix(20))'")
                }
                decoders[key] = String(fields[0])
            } else {
                let frames = fields[0].split(separator: ",").map { Int($0) }
                guard !frames.isEmpty, frames.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                    throw ParseError(
                        description:
                            "line \(number): expected frame numbers separated by commas, got '\(fields[0].prefix(40))'")
                }
                mayDiffer[key, default: []].formUnion(frames.compactMap { $0 })
            }
        }
    }

    /// `decoder`: the family that decoded (`decoderFamily`), nil where
    /// unknown; `mayDiffer`: its frames that carried the may-differ flag.
    public mutating func add(
        key: String, hashes: [(index: Int, hash: String)], decoder: String? = nil, mayDiffer frames: [Int] = []
    ) {
        for (index, hash) in hashes { entries[key, default: [:]][index] = hash }
        if let decoder { decoders[key] = decoder }
        if !frames.isEmpty { mayDiffer[key, default: []].formUnion(frames) }
    }

    /// Joins another run's golden file (a shard's) into this one: both of one
    /// kind, no key in both. Returns the keys both list, and joins nothing
    /// then; nil when they are of different kinds.
    public mutating func join(_ other: GoldenFile) -> [String]? {
        if !other.entries.isEmpty, !entries.isEmpty, other.algorithm != algorithm { return nil }
        let shared = other.entries.keys.filter { entries[$0] != nil }
        guard shared.isEmpty else { return shared.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        if entries.isEmpty { algorithm = other.algorithm }
        entries.merge(other.entries) { mine, _ in mine }
        decoders.merge(other.decoders) { mine, _ in mine }
        mayDiffer.merge(other.mayDiffer) { mine, _ in mine }
        return []
    }

    public var text: String {
        var lines = [algorithm.header]
        for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            if let decoder = decoders[key] { lines.append(Self.decoderPrefix + decoder + " " + Self.escape(key)) }
            if let frames = mayDiffer[key], !frames.isEmpty {
                lines.append(
                    Self.mayDifferPrefix + frames.sorted().map(String.init).joined(separator: ",") + " "
                        + Self.escape(key))
            }
            for (frame, hash) in entries[key]!.sorted(by: { $0.key < $1.key }) {
                lines.append("\(frame) \(hash) \(Self.escape(key))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Compares one file's frames (`hashes` of this file's `algorithm`).
    /// With `complete` (every frame was checked), frames the golden file
    /// lists but the file did not deliver are differences too; without it (a
    /// `--sample`), those at or past `frames`, the count the file holds, are:
    /// a sample of a file cut short must not match the longer original. A
    /// `damaged` frame differs without its hash being quoted: its concealed
    /// pixels are not a reference.
    ///
    /// `decoder` and `mayDiffer`: the family that decoded this run and its
    /// frames that carried the may-differ flag. A frame whose hash differs
    /// where ours and FFmpeg's decoder met (one wrote the golden hash, the
    /// other this one) and either side flagged it is no difference: it is
    /// listed in `acrossDecoders` instead. Where the golden file does not
    /// say which decoder wrote it, such a frame still differs, its reason
    /// saying why it may; between decoders of one kind it simply differs.
    public func verdict(
        key: String, hashes: [(index: Int, hash: String)], complete: Bool, frames: Int? = nil,
        damaged: Set<Int> = [], decoder: String? = nil, mayDiffer: Set<Int> = []
    ) -> GoldenVerdict {
        compare(
            key: key, hashes: hashes, complete: complete, frames: frames, damaged: damaged, decoder: decoder,
            mayDiffer: mayDiffer
        ).verdict
    }

    /// `verdict`, and the frames whose hashes differ across decoders where they may.
    public struct Comparison {
        public let verdict: GoldenVerdict
        public let acrossDecoders: [Int]
    }

    public func compare(
        key: String, hashes: [(index: Int, hash: String)], complete: Bool, frames: Int? = nil,
        damaged: Set<Int> = [], decoder: String? = nil, mayDiffer: Set<Int> = []
    ) -> Comparison {
        guard let expected = entries[key] else {
            return Comparison(verdict: .notInGolden(key: key), acrossDecoders: [])
        }
        var acrossDecoders: [Int] = []
        let goldenFlags = self.mayDiffer[key] ?? []
        let goldenDecoder = decoders[key]
        var first: (frame: Int, reason: String)?
        func note(_ frame: Int, _ reason: String) {
            if first.map({ frame < $0.frame }) ?? true { first = (frame, reason) }
        }
        var delivered = Set<Int>()
        for (index, hash) in hashes {
            delivered.insert(index)
            if damaged.contains(index) {
                note(index, "the frame was damaged")
            } else if let golden = expected[index] {
                guard golden != hash else { continue }
                let flagged = mayDiffer.contains(index) || goldenFlags.contains(index)
                if flagged, let decoder, let goldenDecoder, Self.decodersMayPart(decoder, goldenDecoder) {
                    acrossDecoders.append(index)
                } else if flagged && (decoder == nil || goldenDecoder == nil) {
                    note(
                        index,
                        "\(algorithm.rawValue) \(hash), golden \(golden) (the decoders may differ on this frame, "
                            + "and the golden file does not say which decoder wrote it)")
                } else {
                    note(index, "\(algorithm.rawValue) \(hash), golden \(golden)")
                }
            } else {
                note(index, "the golden file has no frame \(index)")
            }
        }
        if complete {
            for index in expected.keys where !delivered.contains(index) {
                note(index, "the golden file has frame \(index), the file delivered none")
            }
        } else if let frames {
            for index in expected.keys where index >= frames {
                note(index, "the golden file has frame \(index), the file holds \(frames) frames")
            }
        }
        return Comparison(
            verdict: first.map { .mismatch(frame: $0.frame, reason: $0.reason) } ?? .match,
            acrossDecoders: acrossDecoders.sorted())
    }

    /// PathBytes' report text (`\\`, `\xHH` for a byte that is not UTF-8),
    /// and line breaks as `\n`, `\r` so a key stays on its line.
    private static func escape(_ key: String) -> String {
        PathBytes.reportText(key).replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(
            of: "\r", with: "\\r")
    }

    private static func unescape(_ field: Substring) -> String? {
        // `\n`, `\r` are line breaks; `\\` and `\xHH` go on to PathBytes.
        var out = ""
        var scalars = field.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\\" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.popFirst() {
            case "\\": out += "\\\\"
            case "n": out += "\n"
            case "r": out += "\r"
            case "x": out += "\\x"
            default: return nil
            }
        }
        return PathBytes.fromReportText(out)
    }
}
