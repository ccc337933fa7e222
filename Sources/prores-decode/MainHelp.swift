import HostSupport

/// `prores-decode --help` (decoding's own help too) and README.md's usage
/// block, both assembled from the command tables.
enum MainHelp {
    static var text: String {
        [
            tagline, commandList, HelpFormatter.optionList(DecodeCommand.spec),
            HelpFormatter.prose(DecodeCommand.spec.epilogue), exitCodes,
        ]
        .joined(separator: "\n\n") + "\n"
    }

    /// `prores-decode -h` (and decoding's `-h`): the commands, then
    /// decoding's options one line each.
    static var briefText: String {
        [
            tagline, commandList, HelpFormatter.briefOptionList(DecodeCommand.spec),
            "prores-decode --help: the full text",
        ]
        .joined(separator: "\n\n") + "\n"
    }

    /// README.md's `## Usage` block, fences included: every command with every
    /// option (`prores-decode --usage-markdown` prints it).
    static var usageMarkdown: String {
        let lines = CommandLineTool.commands.flatMap { HelpFormatter.synopsis($0.spec) } + topLevel.map(\.usage)
        return "```\n" + lines.joined(separator: "\n") + "\n```\n"
    }

    static let tagline = "prores-decode: decode Apple ProRes into Apple's y416/v216 layouts"

    /// What the tool itself answers, without a command.
    private static let topLevel = [
        (usage: "prores-decode COMMAND -h | --help", summary: "that command's options: one line each, or in full"),
        (usage: "prores-decode --help | --version", summary: ""),
    ]

    /// One line per command: its name, operands and what it is for.
    private static var commandList: String {
        let rows =
            CommandLineTool.commands.map { command -> (usage: String, summary: String) in
                let spec = command.spec
                return (
                    [spec.invocation, spec.operands, spec.options.isEmpty ? "" : "[options]"].filter { !$0.isEmpty }
                        .joined(separator: " "),
                    spec.summary
                )
            } + topLevel
        let column = rows.map { $0.usage.count + 4 }.max() ?? 0
        return (["USAGE"] + rows.flatMap { HelpFormatter.columns("  " + $0.usage, $0.summary, at: column) }).joined(
            separator: "\n")
    }

    /// One line per code, never wrapped: scripts read this table.
    static var exitCodes: String {
        (["EXIT CODES"]
            + ExitCode.allCases.map {
                "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)) \($0.meaning)"
            })
            .joined(separator: "\n")
    }
}
