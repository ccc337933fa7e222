import Foundation
import XCTest

@testable import TestSupport

/// The environment is read once, by the command line (`Tuning` from its
/// `PRORES_DECODE_*` variables, and the few others it needs), and what the
/// libraries need is passed down to them: no library target reads a
/// variable or a process-wide setting of its own accord, so that each run's
/// settings are the ones its caller gave.
final class LibrarySettingsTests: XCTestCase {
    /// The executables: the command line and the fuzzer read the environment.
    static let readers: Set<String> = ["prores-decode", "prores-decode-fuzz"]

    static let read = try! NSRegularExpression(
        pattern: #"\bTuning\s*\.\s*current\b|\bprocessInfo\s*\.\s*environment\b|\b(secure_)?getenv\s*\("#)

    /// "target/file:line: code" for each read in a library target.
    static func reads(in sources: URL = LayeringTests.sources) throws -> [String] {
        var found: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path)
        where !target.hasPrefix("C") && !readers.contains(target) {
            let root = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"),
                        read.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
                    else { continue }
                    found.append("\(target)/\(file):\(number + 1): \(code)")
                }
            }
        }
        return found.sorted()
    }

    func testNoLibraryReadsTheEnvironment() throws {
        let found = try Self.reads()
        XCTAssertEqual(found, [], "the command line passes these settings in:\n" + found.joined(separator: "\n"))
    }

    /// The scan must see each kind of read, and leave the command line alone.
    func testAReadIsSeen() throws {
        let root = try makeTemporaryDirectory(self)
        for target in ["GPUKit", "prores-decode"] {
            let directory = root.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try """
            /// Tuning.current in a comment is no read
            let a = Tuning.current.batch
            let b = ProcessInfo.processInfo.environment["HOME"]
            let c = getenv("DISPLAY")
            let d = settings.batch
            """.write(to: directory.appendingPathComponent("Probe.swift"), atomically: true, encoding: .utf8)
        }
        let found = try Self.reads(in: root)
        XCTAssertEqual(
            found.map { $0.split(separator: ":")[0] + ":" + $0.split(separator: ":")[1] },
            [
                "GPUKit/Probe.swift:2", "GPUKit/Probe.swift:3", "GPUKit/Probe.swift:4",
            ])
    }
}
