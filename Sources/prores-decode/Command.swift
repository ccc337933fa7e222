import GPUKit
import Glibc
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// A command's arguments, read from the parsed command line in two steps
/// (as swift-argument-parser's `validate()`): the initialiser converts each
/// option's value on its own (numbers, ranges, names); `validate()` holds every
/// rule between options, in one place.
protocol CommandArguments {
    init(_ parsed: ParsedArguments) throws
    func validate() throws
    /// Every file the command line names to read or write, for the
    /// output-safety rule (`OutputSafety`), checked before the command runs.
    func files() throws -> CommandFiles
}

extension CommandArguments {
    /// A command whose options never constrain each other has nothing to check.
    func validate() throws {}
    /// A command that names no file.
    func files() throws -> CommandFiles { CommandFiles() }
}

/// A subcommand: its table, and what it does with validated arguments.
protocol Command {
    associatedtype Arguments: CommandArguments
    static var spec: CommandSpec { get }
    /// The text `--help` prints; by default made from `spec` alone.
    static var helpText: String { get }
    /// The text `-h` prints: the usage and one line per option.
    static var briefHelpText: String { get }
    static func run(_ arguments: Arguments) throws -> ExitCode
}

extension Command {
    static var helpText: String { HelpFormatter.help(for: spec) }
    static var briefHelpText: String { HelpFormatter.briefHelp(for: spec) }

    /// `--help` (or `-h`) anywhere prints the help and succeeds; otherwise
    /// parse, convert, validate, run.
    static func main(_ arguments: [String]) throws -> ExitCode {
        if let request = ParsedArguments.helpAsked(arguments) {
            try Console.standardOutput(request == .full ? helpText : briefHelpText)
            return .success
        }
        let parsed = try Arguments(ParsedArguments(arguments, for: spec))
        try parsed.validate()
        try OutputSafety.check(parsed.files())
        return try run(parsed)
    }
}

/// The tool's top level: picks the command by its first word.
enum CommandLineTool {
    /// Every command, in the order the main help and README.md list them;
    /// decoding, which has no word of its own, takes whatever else comes.
    static var commands: [any Command.Type] {
        [
            DecodeCommand.self, InfoCommand.self, DevicesCommand.self, CheckCommand.self, MergeCommand.self,
            PlayCommand.self, RooflineCommand.self,
            BenchCommand.self, PlotCommand.self,
        ]
    }

    static func run(_ arguments: [String]) throws -> ExitCode {
        switch arguments.first {
        case nil:
            Console.write(MainHelp.text)
            return .usage
        case "--help":
            try Console.standardOutput(MainHelp.text)
            return .success
        case "-h":
            try Console.standardOutput(MainHelp.briefText)
            return .success
        case "--version":
            try Console.standardOutput(VersionReport.text)
            return .success
        case "--usage-markdown":
            // Hidden: the usage block of docs/cli.md (a test checks the two
            // are the same).
            try Console.standardOutput(MainHelp.usageMarkdown)
            return .success
        case "--generate":
            // Hidden: docs/cli.md, the man page and the shell completions
            // (GeneratedReference), for the repository and `make install`.
            guard arguments.count <= 2 else { throw UsageError("--generate takes one KIND and nothing else") }
            try Console.standardOutput(GeneratedReference.named(arguments.dropFirst().first).text)
            return .success
        case let word?:
            if let command = commands.first(where: { $0.spec.name == word }) {
                return try command.main(Array(arguments.dropFirst()))
            }
            // A mistyped command word (`chek DIR`) that names no file is not an input.
            if !word.hasPrefix("-"), !word.contains("/"), access(word, F_OK) != 0,
                let guess = Suggestion.closest(to: word, among: commands.compactMap { $0.spec.name })
            {
                throw UsageError(
                    "unknown command '\(word)' (did you mean '\(guess)'?); an input file named '\(word)' does not exist either"
                )
            }
            return try DecodeCommand.main(arguments)
        }
    }
}
