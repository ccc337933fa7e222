import ProResOptions

/// The files made from the command tables besides `--help`: the CLI
/// reference, the man page and the shell completions. `prores-decode
/// --generate KIND` prints one; the repository keeps each at `path` (where
/// `make install` copies it from), and a test holds the two to the same text.
enum GeneratedReference: String, CaseIterable {
    case cliMarkdown = "cli-markdown"
    case man
    case bash
    case zsh
    case fish

    var text: String {
        switch self {
        case .cliMarkdown: return CLIMarkdown.text
        case .man: return ManPage.text
        case .bash: return BashCompletion.text
        case .zsh: return ZshCompletion.text
        case .fish: return FishCompletion.text
        }
    }

    /// Where the repository keeps it: docs/, and share/ laid out as under an install prefix.
    var path: String {
        switch self {
        case .cliMarkdown: return "docs/cli.md"
        case .man: return "share/man/man1/prores-decode.1"
        case .bash: return "share/bash-completion/completions/prores-decode"
        case .zsh: return "share/zsh/vendor-completions/_prores-decode"
        case .fish: return "share/fish/vendor_completions.d/prores-decode.fish"
        }
    }

    /// `--generate KIND`, or a usage error that lists the kinds.
    static func named(_ word: String?) throws -> GeneratedReference {
        guard let word, let kind = GeneratedReference(rawValue: word) else {
            throw UsageError("--generate takes one of " + allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kind
    }

    /// Every command's table, in the main help's order.
    static var commands: [CommandSpec] { CommandLineTool.commands.map { $0.spec } }
    /// The words that select a command (decoding has none).
    static var commandNames: [String] { commands.compactMap(\.name) }
}

/// What a shell can offer for an option's value, read from its placeholder:
/// `cpu|gpu|auto` lists the choices, `PATH|-` and `FILE` are files, `DIR` a
/// directory, and `N` or `NITS` leave the user to type.
enum ValueCompletion: Equatable {
    case choices([String])
    case files
    case directories
    case nothing

    init(placeholder: String?) {
        guard let placeholder else {
            self = .nothing
            return
        }
        // `-` (stdin or stdout) is left for the user to type; `N,N...` is a list of N.
        let alternatives = placeholder.split(whereSeparator: { $0 == "|" || $0 == "," })
            .map { $0.hasSuffix("...") ? String($0.dropLast(3)) : String($0) }
            .filter { $0 != "-" && !$0.isEmpty }
        let literal = { (word: String) in
            word.first?.isLowercase == true && word.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }
        }
        if !alternatives.isEmpty && alternatives.allSatisfy(literal) {
            self = .choices(alternatives)
        } else if alternatives.contains(where: { ["PATH", "FILE", "INPUT"].contains($0) || $0.hasPrefix("FILE.") }) {
            self = .files
        } else if alternatives.contains("DIR") {
            self = .directories
        } else {
            self = .nothing
        }
    }
}
