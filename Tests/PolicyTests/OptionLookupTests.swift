import Foundation
import ProResOptions
import XCTest

@testable import TestSupport
@testable import prores_decode

/// Every option is declared once, typed (`Flag`, `Option<Value>`): the code
/// reads values by declaration, never by a name typed again as a string,
/// and each declaration's one-line help fits `-h` in a terminal. Checked in
/// the sources and the tables, as `LayeringTests` checks the imports.
final class OptionLookupTests: XCTestCase {
    /// A parser lookup by a name in quotes (`parsed.flag("--paused")`,
    /// `.string("--device")`, `.integer(...)`), or any use of the
    /// string-keyed readers.
    static let stringKeyedLookup = try! NSRegularExpression(
        pattern:
            #"\.(flag|string|strings|integer|real|value)\(\s*"-|\bparsed\.(flag|string|strings|integer|real|value|range)\("#
    )

    /// "target/file:line: code" for each string-keyed option lookup in the sources.
    static func stringKeyedLookups(in sources: URL = LayeringTests.sources) throws -> [String] {
        var found: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) where !target.hasPrefix("C") {
            let root = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    let range = NSRange(code.startIndex..., in: code)
                    if stringKeyedLookup.firstMatch(in: code, range: range) != nil {
                        found.append("\(target)/\(file):\(number + 1): \(code)")
                    }
                }
            }
        }
        return found.sorted()
    }

    func testNoOptionIsLookedUpByAStringName() throws {
        let found = try Self.stringKeyedLookups()
        XCTAssertEqual(found, [], "read options by their declaration:\n" + found.joined(separator: "\n"))
    }

    /// The scan must see each spelling of a lookup, in a copy of the layout.
    func testAStringKeyedLookupIsSeen() throws {
        let root = try makeTemporaryDirectory(self)
        let tool = root.appendingPathComponent("prores-decode")
        try FileManager.default.createDirectory(at: tool, withIntermediateDirectories: true)
        try """
        // parsed.flag("--paused") in a comment is no lookup
        let a = parsed.flag("--paused")
        let b = try arguments.integer( "--threads")
        let c = try parsed.value(option, expected: "x") { $0 }
        let d = parsed[Options.paused]
        """.write(to: tool.appendingPathComponent("Sample.swift"), atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try Self.stringKeyedLookups(in: root).map { $0.split(separator: ":")[1] }, ["2", "3", "4"])
    }

    /// Each one-line help is one line, and beside its label (as `-h` lays it
    /// out) it fits 80 columns.
    func testEveryShortHelpFitsOneLineOfEightyColumns() {
        for command in CommandLineTool.commands.map({ $0.spec }) {
            let column = HelpFormatter.briefColumn(command)
            for option in command.options {
                let where_ = "\(command.invocation) \(option.key)"
                XCTAssertFalse(option.short.isEmpty, "\(where_) has no short help")
                XCTAssertFalse(option.short.contains("\n"), "\(where_): the short help is one line")
                XCTAssertLessThanOrEqual(
                    column + option.short.count, 80, "\(where_): '\(option.short)' passes column 80 in -h")
                XCTAssertLessThan(
                    option.short.count, option.long.count + 1, "\(where_): the short help is longer than the long")
            }
        }
    }
}
