import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline
import ProResOptions

/// A command's arguments, read from the parsed command line in two steps
/// (as swift-argument-parser's `validate()`): the initialiser converts each
/// option's value on its own (numbers, ranges, names); `validate()` holds every
/// rule between options, in one place.
protocol CommandArguments {
    init(_ parsed: ParsedArguments) throws
    func validate() throws
}

extension CommandArguments {
    /// A command whose options never constrain each other has nothing to check.
    func validate() throws {}
}

/// A subcommand: its table, and what it does with validated arguments.
protocol Command {
    associatedtype Arguments: CommandArguments
    static var spec: CommandSpec { get }
    /// The text `--help` prints; by default made from `spec` alone.
    static var helpText: String { get }
    static func run(_ arguments: Arguments) throws -> ExitCode
}

extension Command {
    static var helpText: String { HelpFormatter.help(for: spec) }

    /// `--help` anywhere prints the help and succeeds; otherwise parse,
    /// convert, validate, run.
    static func main(_ arguments: [String]) throws -> ExitCode {
        if ParsedArguments.asksForHelp(arguments) {
            Console.standardOutput(helpText)
            return .success
        }
        let parsed = try Arguments(ParsedArguments(arguments, for: spec))
        try parsed.validate()
        return try run(parsed)
    }
}

/// The tool's top level: picks the command by its first word.
enum CommandLineTool {
    /// Every command, in the order the main help and README.md list them;
    /// decoding, which has no word of its own, takes whatever else comes.
    static var commands: [any Command.Type] {
        [DecodeCommand.self, InfoCommand.self, DevicesCommand.self, CheckCommand.self, MergeCommand.self, PlayCommand.self, RooflineCommand.self,
         BenchCommand.self, PlotCommand.self]
    }

    static func run(_ arguments: [String]) throws -> ExitCode {
        switch arguments.first {
        case nil:
            Console.write(MainHelp.text)
            return .usage
        case "--help", "-h":
            Console.standardOutput(MainHelp.text)
            return .success
        case "--version":
            Console.standardOutput(VersionReport.text)
            return .success
        case "--usage-markdown":
            // Hidden: README.md's usage block, so the README can be regenerated
            // (a test checks the two are the same).
            Console.standardOutput(MainHelp.usageMarkdown)
            return .success
        case let word?:
            if let command = commands.first(where: { $0.spec.name == word }) { return try command.main(Array(arguments.dropFirst())) }
            return try DecodeCommand.main(arguments)
        }
    }
}
