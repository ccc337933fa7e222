import Foundation
import ProResOptions
import XCTest

@testable import TestSupport
@testable import prores_decode

/// The CLI's parsing, every `--help` and the exit-code lists all come from the
/// commands' option tables; these tests loop over the real tables (not a copy
/// of them), so nothing can drift.
final class CLIHelpTests: XCTestCase {
    private var commands: [CommandSpec] { CommandLineTool.commands.map { $0.spec } }

    /// What a user types to reach a command's help: `prores-decode check --help`,
    /// or for decoding, which has no command word, `prores-decode INPUT --help`.
    private func helpArguments(_ command: CommandSpec) -> [String] {
        (command.name.map { [$0] } ?? ["INPUT"]) + ["--help"]
    }

    // MARK: - --help

    func testHelpAnywhereExitsZeroOnStdoutForEveryCommand() throws {
        var invocations: [([String], String)] = [
            (["--help"], MainHelp.text), (["-h"], MainHelp.briefText), (["INPUT", "--help"], MainHelp.text),
            (["some.mov", "--help"], MainHelp.text),
            (["--frames", "x", "--bogus", "--help", "a.mov", "b.mov"], MainHelp.text),
        ]
        for command in CommandLineTool.commands {
            guard let name = command.spec.name else { continue }
            // Wherever it stands, and whatever else is wrong on the line.
            invocations += [
                ([name, "--help"], command.helpText), ([name, "x", "-h"], command.briefHelpText),
                ([name, "--bogus", "--frames", "--help"], command.helpText),
            ]
        }
        for (arguments, expected) in invocations {
            let result = try runTool(arguments)
            XCTAssertEqual(result.reason, .exit, "\(arguments)")
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", "\(arguments): help goes to stdout only")
            XCTAssertEqual(result.stdoutText, expected, "\(arguments): not the command's help")
        }
    }

    func testEachCommandHasItsOwnHelp() {
        let texts = CommandLineTool.commands.map { $0.helpText }
        XCTAssertEqual(Set(texts).count, texts.count, "two commands print the same help")
        for command in CommandLineTool.commands where command.spec.name != nil {
            XCTAssertTrue(command.helpText.hasPrefix("usage: \(command.spec.invocation) "), command.helpText)
        }
    }

    /// Every option (each spelling, its value placeholder) and every detail
    /// term of every table, in the help that command prints.
    func testEveryTableOptionIsInItsCommandsHelp() throws {
        for command in commands {
            let help = try runTool(helpArguments(command)).stdoutText
            for option in command.options {
                // The label ends where its help starts, on its line or the next.
                XCTAssertTrue(
                    help.contains("\n  " + option.helpLabel + " ") || help.contains("\n  " + option.helpLabel + "\n"),
                    "\(command.invocation) --help lacks '\(option.helpLabel)'")
                for detail in option.details {
                    XCTAssertTrue(
                        help.contains(detail.term),
                        "\(command.invocation) --help lacks '\(detail.term)' of \(option.key)")
                }
            }
            for section in command.sections {
                XCTAssertTrue(
                    help.contains("\n" + section.heading + "\n"),
                    "\(command.invocation) --help lacks the heading \(section.heading)")
            }
            // The usage line names every option too.
            let usage = HelpFormatter.synopsis(command).joined(separator: "\n")
            for option in command.options {
                XCTAssertTrue(usage.contains(option.synopsis), "\(command.invocation)'s usage lacks \(option.synopsis)")
            }
        }
    }

    /// The main help lists every command with its operands.
    func testMainHelpListsEveryCommand() {
        for command in commands {
            XCTAssertTrue(
                MainHelp.text.contains(
                    "  " + [command.invocation, command.operands].filter { !$0.isEmpty }.joined(separator: " ")),
                "the main help does not list \(command.invocation)")
        }
    }

    /// Help fits a terminal: every line of every help is within the width,
    /// except the exit-code table, whose lines scripts read whole.
    func testHelpLinesFitTheWidth() {
        let main = MainHelp.text.components(separatedBy: "EXIT CODES")[0]
        let commandHelps = CommandLineTool.commands.filter { $0.spec.name != nil }.map { $0.helpText }
        for text in [main] + commandHelps {
            for line in text.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, HelpFormatter.width, "too wide: '\(line)'")
            }
        }
    }

    // MARK: - Parsing follows the same tables

    func testEverySpellingOfEveryOptionParses() throws {
        for command in commands {
            for option in command.options {
                for name in option.names {
                    let arguments = [name] + (option.takesValue ? ["value"] : [])
                    let parsed = try ParsedArguments(arguments, for: command)
                    XCTAssertEqual(
                        parsed.texts(of: option), option.takesValue ? ["value"] : [], "\(command.invocation) \(name)")
                    XCTAssertTrue(parsed.isGiven(option), "\(command.invocation) \(name)")
                }
            }
        }
    }

    func testRepeatingAnOptionKeepsTheLastValueUnlessTheTableSaysRepeatable() throws {
        for command in commands {
            for option in command.options {
                let once = [option.names[0]] + (option.takesValue ? ["a"] : [])
                let twice = once + [option.names.last!] + (option.takesValue ? ["b"] : [])
                let parsed = try ParsedArguments(twice, for: command)
                if option.repeatable {
                    XCTAssertEqual(parsed.texts(of: option), ["a", "b"], "\(command.invocation) \(option.key)")
                } else if option.takesValue {
                    XCTAssertEqual(
                        parsed.texts(of: option).last, "b", "\(command.invocation) \(option.key): the last value wins")
                } else {
                    XCTAssertTrue(parsed.isGiven(option), "\(command.invocation) \(option.key) twice is still set")
                }
            }
        }
    }

    func testUnknownOptionIsExitTwoNamingItForEveryCommand() throws {
        for command in commands {
            let result = try runTool((command.name.map { [$0] } ?? []) + ["--no-such-option", "x"])
            XCTAssertEqual(result.status, 2, "\(command.invocation): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, "\(command.invocation): a usage error writes nothing to stdout")
            XCTAssertEqual(
                result.stderr,
                "prores-decode: error: unknown option '--no-such-option' (see \(command.invocation) --help)\n")
        }
    }

    // MARK: - Exit codes and docs/formats.md

    func testEveryExitCodeIsInTheMainHelpAndTheFormatsPageWithTheSameMeaning() throws {
        let help = try runTool(["--help"]).stdoutText
        let helpCodes = Self.exitCodes(inHelp: help)
        let pageCodes = try Self.exitCodes(
            inFormatsPage: String(contentsOf: Repo.root.appendingPathComponent("docs/formats.md"), encoding: .utf8))
        for code in ExitCode.allCases {
            XCTAssertEqual(helpCodes[code.rawValue], code.meaning, "--help: exit code \(code.rawValue) (\(code))")
            XCTAssertEqual(
                pageCodes[code.rawValue], code.meaning, "docs/formats.md: exit code \(code.rawValue) (\(code))")
        }
        XCTAssertEqual(
            Set(helpCodes.keys), Set(ExitCode.allCases.map(\.rawValue)), "--help lists a code the tool does not have")
        XCTAssertEqual(
            Set(pageCodes.keys), Set(ExitCode.allCases.map(\.rawValue)),
            "docs/formats.md lists a code the tool does not have")
    }

    // MARK: - Helpers

    /// `code -> meaning` from the lines after EXIT CODES: `  10   meaning`.
    private static func exitCodes(inHelp help: String) -> [Int32: String] {
        guard let section = help.range(of: "\nEXIT CODES\n") else { return [:] }
        var codes: [Int32: String] = [:]
        for line in help[section.upperBound...].split(separator: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            if parts.count == 2, let code = Int32(parts[0]) {
                codes[code] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return codes
    }

    /// `code -> meaning` from docs/formats.md's `| code | meaning |` table under
    /// `## Exit codes`, its markdown code spans unwrapped.
    private static func exitCodes(inFormatsPage page: String) throws -> [Int32: String] {
        let section = try XCTUnwrap(page.range(of: "## Exit codes\n"), "docs/formats.md has no '## Exit codes' section")
        var codes: [Int32: String] = [:]
        for line in page[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            if line.isEmpty { if codes.isEmpty { continue } else { break } }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if cells.count == 4, let code = Int32(cells[1]) {
                codes[code] = cells[2].replacingOccurrences(of: "`", with: "")
            }
        }
        return codes
    }
}
