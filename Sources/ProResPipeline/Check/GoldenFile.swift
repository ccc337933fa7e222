import Foundation
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// Per-frame md5s of checked files (`--write-golden`, `--golden`): a text
/// file, one line per frame, `FRAME MD5 KEY`, sorted by key then frame, so it
/// diffs well under version control. KEY is the file's path relative to the
/// directory argument it was found under (or the path as given), and runs to
/// the end of the line; `\` and line breaks in it are escaped as `\\`, `\n`,
/// `\r`. The md5 is of the decoder's native planar frame (`--format native`),
/// identical to `ffmpeg -f framemd5`'s.
public struct GoldenFile: Equatable, Sendable {
    public static let header = "# prores-decode check golden v1: frame index, md5 of the native planar frame, path"

    /// key → frame index → md5.
    public private(set) var entries: [String: [Int: String]] = [:]

    public init() {}

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let frame = Int(fields[0]), frame >= 0,
                  fields[1].count == 32, fields[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
                  let key = Self.unescape(fields[2]), !key.isEmpty else {
                throw ParseError(description: "line \(number + 1): expected 'FRAME MD5 PATH', got '\(line.prefix(80))'")
            }
            guard entries[key, default: [:]].updateValue(String(fields[1]), forKey: frame) == nil else {
                throw ParseError(description: "line \(number + 1): frame \(frame) of '\(key)' is listed twice")
            }
        }
    }

    public mutating func add(key: String, md5s: [(index: Int, md5: String)]) {
        for (index, md5) in md5s { entries[key, default: [:]][index] = md5 }
    }

    public var text: String {
        var lines = [Self.header]
        for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            for (frame, md5) in entries[key]!.sorted(by: { $0.key < $1.key }) {
                lines.append("\(frame) \(md5) \(Self.escape(key))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Compares one file's frames. With `complete` (every frame was checked,
    /// no `--sample`), frames the golden file lists but the file did not
    /// deliver are differences too. A `damaged` frame differs without its md5
    /// being quoted: its concealed pixels change from run to run.
    public func verdict(key: String, md5s: [(index: Int, md5: String)], complete: Bool, damaged: Set<Int> = []) -> GoldenVerdict {
        guard let expected = entries[key] else { return .notInGolden(key: key) }
        var first: (frame: Int, reason: String)?
        func note(_ frame: Int, _ reason: String) {
            if first.map({ frame < $0.frame }) ?? true { first = (frame, reason) }
        }
        var delivered = Set<Int>()
        for (index, md5) in md5s {
            delivered.insert(index)
            if damaged.contains(index) {
                note(index, "the frame was damaged")
            } else if let golden = expected[index] {
                if golden != md5 { note(index, "md5 \(md5), golden \(golden)") }
            } else {
                note(index, "the golden file has no frame \(index)")
            }
        }
        if complete {
            for index in expected.keys where !delivered.contains(index) {
                note(index, "the golden file has frame \(index), the file delivered none")
            }
        }
        return first.map { .mismatch(frame: $0.frame, reason: $0.reason) } ?? .match
    }

    private static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
    }

    private static func unescape(_ field: Substring) -> String? {
        var out = ""
        var escaping = false
        for character in field {
            if escaping {
                switch character {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: return nil
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return escaping ? nil : out
    }
}
