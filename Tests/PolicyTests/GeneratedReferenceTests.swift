import Foundation
import ProResOptions
import XCTest

@testable import TestSupport
@testable import prores_decode

/// docs/cli.md, the man page and the shell completions are generated from
/// the option tables (`prores-decode --generate KIND`); the repository keeps
/// each, and `make install` copies them. These tests hold the kept files to
/// the generator and check each works in the program that reads it.
final class GeneratedReferenceTests: XCTestCase {
    private var commands: [CommandSpec] { CommandLineTool.commands.map { $0.spec } }

    private func committed(_ kind: GeneratedReference) throws -> String {
        try String(contentsOf: Repo.root.appendingPathComponent(kind.path), encoding: .utf8)
    }

    func testCommittedFilesAreWhatTheGeneratorWrites() throws {
        for kind in GeneratedReference.allCases {
            let generated = try runTool(["--generate", kind.rawValue])
            XCTAssertEqual(generated.status, 0, generated.stderr)
            // Not XCTAssertEqual: it would print both files whole.
            XCTAssertTrue(
                try committed(kind) == generated.stdoutText,
                "\(kind.path) is stale: rewrite it with `prores-decode --generate \(kind.rawValue) > \(kind.path)` "
                    + "(all of them: make reference CONFIG=debug)")
        }
        let unknown = try runTool(["--generate", "html"])
        XCTAssertEqual(unknown.status, 2)
        assertSingleError(unknown, mentions: ["--generate", "cli-markdown", "fish"], "--generate html")
    }

    /// The usage block (`--usage-markdown`), every command, option spelling,
    /// detail term and exit code, in docs/cli.md.
    func testCLIReferenceCarriesTheUsageBlockAndEveryOption() throws {
        let page = try committed(.cliMarkdown)
        let usage = try runTool(["--usage-markdown"]).stdoutText
        XCTAssertTrue(usage.hasPrefix("```\nprores-decode INPUT "), usage)
        XCTAssertTrue(
            page.contains("## Usage\n\n" + usage), "docs/cli.md lacks the usage block `--usage-markdown` prints")
        for command in commands {
            let section = try XCTUnwrap(
                page.components(
                    separatedBy: "\n## " + command.invocation + (command.operands.isEmpty ? "" : " " + command.operands)
                        + "\n"
                ).last?
                .components(separatedBy: "\n## ").first, command.invocation)
            for option in command.options {
                XCTAssertTrue(
                    section.contains("- `\(option.helpLabel)`"),
                    "\(command.invocation): docs/cli.md lacks \(option.helpLabel)")
                for detail in option.details { XCTAssertTrue(section.contains("`\(detail.term)`"), detail.term) }
            }
        }
        for code in ExitCode.allCases {
            XCTAssertTrue(page.contains("\n| \(code.rawValue) | "), "exit code \(code.rawValue)")
        }
    }

    /// `man -l` renders the page with groff's warnings on and says nothing on
    /// stderr; each command's section lists every spelling of every option.
    func testManPageRendersWithoutWarningsAndListsEveryOption() throws {
        let page = Repo.root.appendingPathComponent(GeneratedReference.man.path).path
        let rendered = try runProgram(
            "/usr/bin/man", ["-l", "--warnings", page], environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertEqual(rendered.stderr, "", "man -l --warnings")
        let text = rendered.stdoutText
        XCTAssertTrue(text.hasPrefix("PRORES-DECODE(1)"), String(text.prefix(200)))
        for command in commands {
            let heading =
                "\n"
                + ([command.invocation] + (command.operands.isEmpty ? [] : [command.operands])).joined(separator: " ")
                .uppercased() + "\n"
            let section =
                try XCTUnwrap(text.components(separatedBy: heading).dropFirst().first, "no section \(heading)")
                .components(separatedBy: "\nPRORES-DECODE ").first ?? ""
            for option in command.options {
                for name in option.names {
                    // As typed: ASCII hyphens, never split across lines.
                    XCTAssertNotNil(
                        section.range(
                            of: "(^|[ ,\\[])" + NSRegularExpression.escapedPattern(for: name) + "([ ,\\n]|$)",
                            options: .regularExpression), "man page, \(command.invocation): \(name)")
                }
            }
        }
        XCTAssertTrue(text.contains("EXIT STATUS"))
    }

    /// Sourcing the bash completion registers it; completing drives its
    /// function as bash would, with COMP_WORDS and COMP_CWORD.
    func testBashCompletionCompletesCommandsOptionsChoicesAndFiles() throws {
        let script = Repo.root.appendingPathComponent(GeneratedReference.bash.path).path
        let directory = try makeTemporaryDirectory(self)
        _ = FileManager.default.createFile(
            atPath: directory.appendingPathComponent("clip one.mov").path, contents: Data())
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            let result = try runProgram(
                "/bin/bash",
                [
                    "-c",
                    """
                    source "$0" || exit 1
                    complete -p prores-decode || exit 1
                    COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
                    _prores_decode
                    printf '%s\\n' "${COMPREPLY[@]}"
                    """, script,
                ], in: directory)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdoutText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("complete ") }
        }
        XCTAssertEqual(try complete(["prores-decode", "--for"]), ["--format"])
        XCTAssertEqual(try complete(["prores-decode", "ch"]), ["check"])
        XCTAssertEqual(try complete(["prores-decode", "check", "--deco"]), ["--decoder"])
        XCTAssertEqual(try complete(["prores-decode", "check", "--decoder", ""]), ["cpu", "ffmpeg", "gpu", "auto"])
        XCTAssertEqual(try complete(["prores-decode", "--format", "v"]), ["v216"])
        XCTAssertEqual(try complete(["prores-decode", "bench", "--fr"]), ["--frames"])
        XCTAssertEqual(try complete(["prores-decode", "clip.mov", "-o", "cl"]), ["clip one.mov"])
        XCTAssertEqual(try complete(["prores-decode", "--frames", ""]), [], "a number: nothing to offer")
        // Every option of every command, each spelling.
        for command in commands {
            let words = ["prores-decode"] + (command.name.map { [$0] } ?? []) + ["-"]
            let offered = Set(try complete(words))
            for name in command.options.flatMap(\.names) {
                XCTAssertTrue(offered.contains(name), "\(command.invocation): bash lacks \(name)")
            }
        }
    }

    func testZshAndFishCompletionsParseAndFishCompletes() throws {
        let zsh = try runProgram(
            "/usr/bin/zsh", ["-n", Repo.root.appendingPathComponent(GeneratedReference.zsh.path).path])
        XCTAssertEqual(zsh.status, 0, zsh.stderr)
        let fishFile = Repo.root.appendingPathComponent(GeneratedReference.fish.path).path
        let parsed = try runProgram("/usr/bin/fish", ["-n", fishFile])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        let completed = try runProgram(
            "/usr/bin/fish",
            [
                "-c",
                """
                source $argv[1]
                complete -C 'prores-decode --for'; echo ==; complete -C 'prores-decode check --decoder '; echo ==; complete -C 'prores-decode pl'
                """, fishFile,
            ], in: try makeTemporaryDirectory(self))  // no file there starts with "pl"
        XCTAssertEqual(completed.status, 0, completed.stderr)
        let answers = completed.stdoutText.components(separatedBy: "==\n").map {
            $0.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        XCTAssertEqual(answers.count, 3, completed.stdoutText)
        XCTAssertEqual(answers.first, ["--format"])
        XCTAssertEqual(Set(answers.dropFirst().first ?? []), ["cpu", "ffmpeg", "gpu", "auto"])
        XCTAssertEqual(Set(answers.last ?? []), ["play", "plot"])
    }

    /// What each placeholder shape offers, written out by hand.
    func testPlaceholdersSayWhatToComplete() {
        let cases: [(String?, ValueCompletion)] = [
            ("cpu|gpu|auto", .choices(["cpu", "gpu", "auto"])),
            ("cpu,gpu,gpu-host,gpu-check", .choices(["cpu", "gpu", "gpu-host", "gpu-check"])),
            ("PATH|-", .files), ("FILE", .files), ("FILE.svg|-", .files), ("INPUT", .files), ("DIR", .directories),
            ("N", .nothing), ("N|NAME|all|N,N...", .nothing), ("I/N", .nothing), (nil, .nothing),
        ]
        for (placeholder, expected) in cases {
            XCTAssertEqual(ValueCompletion(placeholder: placeholder), expected, placeholder ?? "flag")
        }
    }
}
