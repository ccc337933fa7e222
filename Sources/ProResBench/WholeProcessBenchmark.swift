import Glibc
import HostSupport
import ProResCore

/// `bench --whole-process`: command lines timed as whole processes (start-up,
/// decode and exit, what a user waits for), in interleaved rounds — A B, A B,
/// ... — so a machine that slows down mid-way slows every side alike. Each
/// side runs once untimed first (page cache, pipeline cache), then `rounds`
/// timed runs; the report is each side's min/median/max wall seconds and the
/// ratio of the medians.
public struct WholeProcessBenchmark {
    /// A command line: the program (looked up in PATH) and its arguments.
    public let commands: [[String]]
    public let rounds: Int
    /// The first command line is a decode that reports its phases
    /// (`--phases`): each round's report, placed in the time measured here.
    public let phases: Bool
    /// Where each command's stderr is kept while it runs (`$TMPDIR`, else `/tmp`).
    public let temporaryDirectory: String

    public init(commands: [[String]], rounds: Int, phases: Bool = false, temporaryDirectory: String = "/tmp") {
        precondition(!commands.isEmpty && commands.allSatisfy { !$0.isEmpty } && rounds > 0)
        self.commands = commands
        self.rounds = rounds
        self.phases = phases
        self.temporaryDirectory = temporaryDirectory
    }

    public enum Failure: Error, CustomStringConvertible {
        case cannotStart(command: [String], reason: String)
        case failed(command: [String], round: Int, status: String, lastLine: String)
        case noPhases(command: [String], round: Int, reason: String)

        public var description: String {
            switch self {
            case .cannotStart(let command, let reason): return "bench: cannot run '\(Self.line(command))': \(reason)"
            case .noPhases(let command, let round, let reason):
                return "bench: '\(Self.line(command))' wrote no phase report in round \(round): \(reason)"
            case .failed(let command, let round, let status, let lastLine):
                let when = round == 0 ? "in its warm-up run" : "in round \(round)"
                return "bench: '\(Self.line(command))' \(status) \(when)" + (lastLine.isEmpty ? "" : ": \(lastLine)")
            }
        }

        static func line(_ command: [String]) -> String { command.joined(separator: " ") }
    }

    /// One side: its command line and each timed round's wall seconds.
    public struct Side: Sendable {
        public let command: [String]
        public let seconds: [Double]
        /// Each timed round's phases, with `phases` (the first side only).
        public var phaseRounds: [RoundPhases] = []
        public var minimum: Double { seconds.min() ?? 0 }
        public var maximum: Double { seconds.max() ?? 0 }
        /// The middle value; with an even count, the mean of the middle two.
        public var median: Double {
            let sorted = seconds.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
    }

    public struct Result: Sendable {
        public let rounds: Int
        public let sides: [Side]
        /// The second side's median over the first's: above 1, the first
        /// command is faster. Nil with one side.
        public var ratio: Double? { sides.count > 1 ? sides[1].median / sides[0].median : nil }
    }

    /// Runs every round; `progress(round)` after each. A side that fails or
    /// cannot start ends the benchmark, naming its command and round.
    public func run(progress: (Int) -> Void = { _ in }) throws -> Result {
        let stderrPaths = try commands.indices.map { _ in try Self.temporaryFile(in: temporaryDirectory) }
        // Made and removed: the decode creates it anew each round, as it does every output.
        let phasesPath = phases ? try Self.temporaryFile(in: temporaryDirectory) : nil
        if let phasesPath { unlink(phasesPath) }
        defer { for path in stderrPaths + (phasesPath.map { [$0] } ?? []) { unlink(path) } }
        let argvs = commands.enumerated().map { side, command in
            side == 0 ? command + (phasesPath.map { ["--phases", $0] } ?? []) : command
        }
        let processes = zip(argvs, stderrPaths).map { TimedProcess(argv: $0, stderrPath: $1) }
        var seconds = Array(repeating: [Double](), count: commands.count)
        var phaseRounds: [RoundPhases] = []
        for round in 0...rounds {
            for (side, process) in processes.enumerated() {
                let run = try process.run()
                if let status = Self.failureWords(run.outcome) {
                    throw Failure.failed(
                        command: process.argv, round: round, status: status, lastLine: process.lastErrorLine())
                }
                if round > 0 { seconds[side].append(run.seconds) }
                if side == 0, let phasesPath {
                    defer { unlink(phasesPath) }
                    do {
                        let phases = try RoundPhases(reportAt: phasesPath, spawned: run.spawned, reaped: run.reaped)
                        if round > 0 { phaseRounds.append(phases) }
                    } catch {
                        throw Failure.noPhases(command: process.argv, round: round, reason: "\(error)")
                    }
                }
            }
            if round > 0 { progress(round) }
        }
        var sides = zip(commands, seconds).map { Side(command: $0, seconds: $1) }
        sides[0].phaseRounds = phaseRounds
        return Result(rounds: rounds, sides: sides)
    }

    private static func failureWords(_ outcome: TimedProcess.Outcome) -> String? {
        switch outcome {
        case .exited(0): return nil
        case .exited(let code): return "exited \(code)"
        case .signalled(let signal): return "was killed by signal \(signal)"
        }
    }

    private static func temporaryFile(in directory: String) throws -> String {
        var template = Array((directory + "/prores-decode-bench-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw Failure.cannotStart(
                command: ["mkstemp"], reason: "no temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Splits a command line into words at spaces, as a shell would for
    /// plain words and '…' or "…" quoting (no variables, globs or escapes
    /// beyond \" and \\ inside double quotes); nil on an unclosed quote.
    public static func words(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                word.append(character)
                escaped = false
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"" && character == "\\" {
                    escaped = true
                } else {
                    word.append(character)
                }
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord {
                    words.append(word)
                    word = ""
                    inWord = false
                }
            } else {
                word.append(character)
                inWord = true
            }
        }
        if quote != nil || escaped { return nil }
        if inWord { words.append(word) }
        return words
    }
}

extension WholeProcessBenchmark.Result {
    /// The sides' labels in reports: A, B.
    public static func label(_ index: Int) -> String { String(UnicodeScalar(UInt8(65 + index))) }

    public var text: String {
        var text = ""
        for (i, side) in sides.enumerated() {
            text += "\(Self.label(i)): \(WholeProcessBenchmark.Failure.line(side.command))\n"
        }
        for round in 0..<rounds {
            text +=
                "round \(round + 1):"
                + sides.enumerated().map { "  \(Self.label($0)) \(Self.seconds($1.seconds[round])) s" }.joined() + "\n"
        }
        for (i, side) in sides.enumerated() {
            text +=
                "\(Self.label(i)): min \(Self.seconds(side.minimum)) s, median \(Self.seconds(side.median)) s, "
                + "max \(Self.seconds(side.maximum)) s over \(rounds) rounds\n"
        }
        if let ratio { text += "ratio B/A of the medians: \(JSON.number(ratio, digits: 3)) (above 1: A is faster)\n" }
        for (i, side) in sides.enumerated() where !side.phaseRounds.isEmpty {
            text += RoundPhases.table(side.phaseRounds, label: Self.label(i))
        }
        return text
    }

    public var json: String {
        JSON.object([
            ("rounds", "\(rounds)"),
            (
                "commands",
                JSON.array(
                    sides.enumerated().map { i, side in
                        JSON.object([
                            ("label", JSON.string(Self.label(i))),
                            ("argv", JSON.array(side.command.map(JSON.string))),
                            ("seconds", JSON.array(side.seconds.map { JSON.number($0, digits: 6) })),
                            ("min", JSON.number(side.minimum, digits: 6)),
                            ("median", JSON.number(side.median, digits: 6)),
                            ("max", JSON.number(side.maximum, digits: 6)),
                            ("phases_ms", side.phaseRounds.isEmpty ? "null" : JSON.array(side.phaseRounds.map(\.json))),
                        ])
                    })
            ),
            ("ratio", ratio.map { JSON.number($0, digits: 4) } ?? "null"),
        ])
    }

    static func seconds(_ value: Double) -> String {
        let millis = Int((value * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
