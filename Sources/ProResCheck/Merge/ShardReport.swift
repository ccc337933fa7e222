import Foundation
import HostSupport
import ProResCore

/// One `check --report` read back for `merge`: each file's line kept as it
/// was written (so the merged report holds the same bytes), with the fields
/// the merge needs parsed out of it, and the report's `"run"`.
public struct ShardReport: Sendable {
    /// One file of the report. What every merge needs is read from the
    /// line's fixed start and end (`"path"`, `"key"`, `"status"` first,
    /// `"seconds"` last, as `CheckReport.file` writes them); the rest is
    /// parsed only for the files that need it (`details`): parsing every
    /// line in full took most of a 12,800-file merge's time.
    public struct File: Sendable {
        /// The line exactly as the report holds it, without its comma.
        public let line: String
        /// As the report writes them (`PathBytes.reportText`).
        public let path: String
        public let key: String
        public let status: FileCheckResult.Status
        public let seconds: Double
        /// Where relative preview paths start: the report's directory.
        let previewBase: String

        /// The reasons, previews and format of the file.
        public func details() -> Details {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return Details(object, previewBase: previewBase)
        }
    }

    public struct Details: Sendable {
        /// Every reason, in the order `FileCheckResult.problems` gives them.
        public let problems: [String]
        /// `FileCheckResult.warnings` as the line holds them.
        public let warnings: [String]
        /// The contact sheet and frame when previews were written: relative
        /// paths taken as relative to the report's directory (where `check` ran).
        public let previews: (sheet: String, frame: String)?
        /// A few words on the format ("ProRes 422 HQ 1920x1080 25 fps"), nil without one.
        public let format: String?

        init(_ object: [String: Any], previewBase: String) {
            var problems: [String] = []
            for error in object["errors"] as? [[String: Any]] ?? [] {
                let reason = error["reason"] as? String ?? ""
                problems.append((error["frame"] as? Int).map { "frame \($0): \(reason)" } ?? reason)
            }
            for rule in object["failed_rules"] as? [[String: Any]] ?? [] {
                problems.append("expected \(rule["rule"] as? String ?? ""), got \(rule["actual"] as? String ?? "")")
            }
            if let golden = object["golden"] as? [String: Any], let result = golden["result"] as? String,
                result != "match"
            {
                let reason = golden["reason"] as? String ?? ""
                problems.append(
                    result == "mismatch"
                        ? "golden mismatch at frame \(golden["frame"] as? Int ?? 0): \(reason)" : reason)
            }
            self.problems = problems
            warnings = object["warnings"] as? [String] ?? []
            func rebase(_ path: String) -> String {
                path.hasPrefix("/") || previewBase == "." ? path : PathBytes.reportText(previewBase) + "/" + path
            }
            if let written = object["previews"] as? [String: Any], let sheet = written["sheet"] as? String,
                let frame = written["frame"] as? String
            {
                previews = (rebase(sheet), rebase(frame))
            } else {
                previews = nil
            }
            if let f = object["format"] as? [String: Any] {
                let size = (f["width"] as? Int).flatMap { w in (f["height"] as? Int).map { "\(w)x\($0)" } }
                let fps = (f["fps"] as? Double).map { "\(JSON.number($0, digits: 3)) fps" }
                format = [f["profile_name"] as? String, size, fps].compactMap { $0 }.joined(separator: " ")
            } else {
                format = nil
            }
        }
    }

    public struct Run: Sendable, Equatable {
        public let options: String
        public let inputs: Int
        public let inputsDigest: String
        public let shardCount: Int
        public let shardIndex: Int
        public let scheme: String
        /// The golden file the shard wrote, as given to it.
        public let golden: String?
    }

    public let files: [File]
    public let run: Run
    public static let maximumShards = CheckShard.maximumCount
    public let sample: Int?
    public let seconds: Double
    /// The check was interrupted: its files are the ones it finished.
    public let interrupted: Bool

    public enum Problem: Error, CustomStringConvertible, Equatable {
        case notAReport(String)
        /// File line `number` (1-based), of `path`, is not what check writes: `why`.
        case badFile(number: Int, path: String, why: String)
        /// The file lines do not give the report's `"files_digest"`.
        case digestDiffers

        public var description: String {
            switch self {
            case .notAReport(let why): return "not a prores-decode check report: \(why)"
            case .badFile(let number, let path, let why):
                return "file \(number) ('\(path)'): \(why); the report was edited or damaged"
            case .digestDiffers:
                return
                    "its file lines do not give its \"files_digest\": the report was edited or damaged after check wrote it"
            }
        }
    }

    /// `bytes`: the report as `CheckReport.json` writes it, one file a
    /// line; `directory`: where it is (relative preview paths start there).
    /// Split by bytes, not Characters: a 12,800-file merge spent a fifth of
    /// its time finding grapheme boundaries.
    public init(parsing bytes: [UInt8], directory: String = ".") throws {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        guard let first = lines.popFirst() else { throw Problem.notAReport("empty") }
        let open = Array("{\"files\":[".utf8)
        let empty = Array("{\"files\":[],".utf8)
        let close = Array("],".utf8)
        var files: [File] = []
        var raws: [ArraySlice<UInt8>] = []
        var rest: ArraySlice<UInt8>
        if first.elementsEqual(open) {
            while let line = lines.first, !line.starts(with: close) {
                lines.removeFirst()
                let raw = line.last == UInt8(ascii: ",") ? line.dropLast() : line
                guard let file = Self.file(raw, previewBase: directory) else {
                    throw Problem.notAReport("file \(files.count + 1) is not a file entry")
                }
                files.append(file)
                raws.append(raw)
            }
            try Self.checkLines(raws, files)
            guard let end = lines.popFirst() else { throw Problem.notAReport("its files array never ends") }
            rest = end.dropFirst(2)
        } else if first.starts(with: empty) {
            rest = first.dropFirst(empty.count)
        } else {
            throw Problem.notAReport("it does not start with {\"files\":[")
        }
        let tail = String(decoding: Array(([rest] + lines).joined(separator: [UInt8(ascii: "\n")])), as: UTF8.self)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(("{" + tail).utf8))) as? [String: Any],
            let summary = object["summary"] as? [String: Any]
        else {
            throw Problem.notAReport("no summary after the files")
        }
        guard let run = object["run"] as? [String: Any], let options = run["options"] as? String,
            let inputs = run["inputs"] as? Int,
            let digest = run["inputs_digest"] as? String, let count = run["shard_count"] as? Int,
            let index = run["shard_index"] as? Int,
            let scheme = run["shard_scheme"] as? String
        else {
            throw Problem.notAReport("no \"run\" (written by an older prores-decode?)")
        }
        // At most as many shards as `merge` will list missing ones of.
        guard (1...Self.maximumShards).contains(count), (1...count).contains(index), inputs >= 0 else {
            throw Problem.notAReport("its run names shard \(index) of \(count)")
        }
        guard CheckShard.schemes.contains(scheme) else {
            throw Problem.notAReport(
                "its shard_scheme '\(scheme)' is not one this prores-decode cuts shards by (\(CheckShard.scheme))")
        }
        guard let filesDigest = object["files_digest"] as? String else {
            throw Problem.notAReport("no \"files_digest\" (written by an older prores-decode?)")
        }
        guard filesDigest == CheckReport.filesDigest(files.map { Array($0.line.utf8) }) else {
            throw Problem.digestDiffers
        }
        self.files = files
        self.run = Run(
            options: options, inputs: inputs, inputsDigest: digest, shardCount: count, shardIndex: index,
            scheme: scheme,
            golden: run["golden"] as? String)
        sample = summary["sample"] as? Int
        seconds = summary["seconds"] as? Double ?? 0
        interrupted = summary["interrupted"] as? Bool ?? false
    }

    /// Every file line parsed and checked in full (`ReportLineCheck`), on
    /// all cores in runs of 256 lines: parsing is most of a 12,800-file
    /// merge's time. Throws the problem of the first line that has one.
    private static func checkLines(_ raws: [ArraySlice<UInt8>], _ files: [File]) throws {
        let run = 256
        let runs = (raws.count + run - 1) / run
        var found = [Problem?](repeating: nil, count: runs)
        found.withUnsafeMutableBufferPointer { slots in
            // Each run writes only its own slot.
            parallelFor(runs) { r in
                for i in (r * run)..<min(raws.count, (r + 1) * run) {
                    if let problem = lineProblem(raws[i], number: i + 1, file: files[i]) {
                        slots[r] = problem
                        return
                    }
                }
            }
        }
        if let first = found.lazy.compactMap({ $0 }).first { throw first }
    }

    private static func lineProblem(_ raw: ArraySlice<UInt8>, number: Int, file: File) -> Problem? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(raw))) as? [String: Any] else {
            return .badFile(number: number, path: file.path, why: "it is not a JSON object")
        }
        return ReportLineCheck.problem(object, scanned: (file.path, file.key, file.status, file.seconds))
            .map { .badFile(number: number, path: file.path, why: $0) }
    }

    /// A file line read from its fixed start and end; nil for anything else.
    private static func file(_ bytes: ArraySlice<UInt8>, previewBase: String) -> File? {
        var scanner = JSONLineScanner(Array(bytes))
        guard scanner.expect("{\"path\":"), let path = scanner.string(), scanner.expect(",\"key\":"),
            let key = scanner.string(),
            scanner.expect(",\"status\":"), let word = scanner.string(),
            let status = FileCheckResult.Status(rawValue: word),
            let seconds = scanner.trailingNumber(after: ",\"seconds\":")
        else { return nil }
        return File(
            line: String(decoding: bytes, as: UTF8.self), path: path, key: key, status: status, seconds: seconds,
            previewBase: previewBase)
    }
}

/// Reads JSON strings and a number at known places of one line.
struct JSONLineScanner {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func expect(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { $0.elementsEqual(bytes[at..<at + count]) }
        if matches { at += count }
        return matches
    }

    /// A JSON string at the current place, its escapes decoded.
    mutating func string() -> String? {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
        at += 1
        var out: [UInt8] = []
        var pendingHigh: UInt32?
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            if byte == UInt8(ascii: "\"") { return pendingHigh == nil ? String(decoding: out, as: UTF8.self) : nil }
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            guard at < bytes.count else { return nil }
            let escape = bytes[at]
            at += 1
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
                UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
                UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C,
            ]
            if let plain = simple[escape] {
                out.append(plain)
                continue
            }
            guard escape == UInt8(ascii: "u"), at + 4 <= bytes.count,
                let unit = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
            else { return nil }
            at += 4
            var value = unit
            if (0xD800..<0xDC00).contains(unit) {
                pendingHigh = unit
                continue
            }
            if (0xDC00..<0xE000).contains(unit) {
                guard let high = pendingHigh else { return nil }
                value = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
                pendingHigh = nil
            }
            guard let scalar = Unicode.Scalar(value) else { return nil }
            out += Array(String(Character(scalar)).utf8)
        }
        return nil
    }

    /// The number between the last `key` and the line's closing `}`.
    func trailingNumber(after key: StaticString) -> Double? {
        guard bytes.last == UInt8(ascii: "}") else { return nil }
        let keyBytes = key.withUTF8Buffer { Array($0) }
        var start = bytes.count - 1
        while start > 0, bytes[start - 1] != UInt8(ascii: ":") { start -= 1 }
        guard start >= keyBytes.count, Array(bytes[(start - keyBytes.count)..<start]) == keyBytes else { return nil }
        let text = String(decoding: bytes[start..<(bytes.count - 1)], as: UTF8.self)
        return text == "null" ? 0 : Double(text)
    }
}
