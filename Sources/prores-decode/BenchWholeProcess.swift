import Glibc
import ProResBench
import ProResCore
import ProResOptions
import ProResPipeline

/// `bench --whole-process`'s own options, and the rules that tie them to the
/// rest of bench's table.
struct WholeProcessArguments {
    let rounds: Int
    /// The second command line, from --compare.
    let compare: [String]?
    /// `--phases`: the decode reports its phases each round.
    let phases: Bool

    /// Nil without --whole-process (where --rounds and --compare are refused).
    init?(_ parsed: ParsedArguments) throws {
        typealias Options = BenchCommand.Options
        // The value first: one outside its range is refused as such, with or without --whole-process.
        let rounds = try parsed[Options.rounds]
        guard parsed[Options.wholeProcess] else {
            for option: any OptionDeclaration in [Options.rounds, Options.compare, Options.phases]
            where parsed.gives(option) {
                throw UsageError("\(option.spec.key) needs --whole-process")
            }
            return nil
        }
        // The in-memory bench's settings would be silently ignored: refuse them.
        let inMemory: [any OptionDeclaration] = [
            Options.decoders, Options.frames, Options.threads, Options.batch, Options.device, Options.svg,
            Options.validate, Options.verbose,
        ]
        for option in inMemory where parsed.gives(option) {
            throw UsageError(
                "\(option.spec.key) is for the in-memory bench, not --whole-process (put it in the decode command line)"
            )
        }
        self.rounds = rounds ?? 5
        phases = parsed[Options.phases]
        compare = try parsed[Options.compare]
    }
}

extension BenchCommand {
    /// This executable, so the decode command line runs the same build.
    static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(cString: buffer) : CommandLine.arguments[0]
    }

    static func runWholeProcess(_ whole: WholeProcessArguments, _ arguments: Arguments) throws -> ExitCode {
        let html = try arguments.htmlPath.map { try OutputFile(path: $0, overwrite: arguments.overwrite) }
        let commands = [[executablePath] + arguments.inputs] + (whole.compare.map { [$0] } ?? [])
        let benchmark = WholeProcessBenchmark(
            commands: commands, rounds: whole.rounds, phases: whole.phases,
            temporaryDirectory: ProcessSettings.tuning.temporaryDirectory)
        let progress = ProgressLine.onTerminal(unit: "round", total: whole.rounds, rateUnit: nil)
        let result: WholeProcessBenchmark.Result
        do { result = try benchmark.run { progress?.update($0, force: true) } } catch {
            progress?.clear()
            throw error
        }
        progress?.clear()
        try Console.standardOutput(arguments.json ? result.json + "\n" : result.text)
        if let html {
            try html.write(WholeProcessPage.html(result))
            try html.commit()
        }
        return .success
    }
}
