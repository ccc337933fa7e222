import ProResCore
import ProResOptions

/// The command-line parsing an untrusted argument vector meets: the strict
/// option parser (`ParsedArguments`) against a table with every kind of
/// option the tool's tables declare, its value conversions, `--effect`'s
/// grammar (`EffectParser`), and `--rate`'s `FrameRate(parsing:)` with the
/// tick arithmetic a rate feeds (which once trapped on a rate that passed
/// validation). The fuzz target's `options`
/// mode and `FuzzSeedReplayTests` call it.
///
/// Input: the arguments, separated by NUL bytes (as in /proc/PID/cmdline),
/// each decoded as UTF-8 with invalid bytes replaced.
public enum OptionFuzzEntry {
    /// A table shaped like the tool's: flags with short and long
    /// spellings, values, a repeatable option, `-i`, and `--rate`.
    static let command = CommandSpec(
        name: nil, operands: "INPUT", summary: "fuzzing",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [
                    .input, .overwrite, .noOverwrite, .quiet, .verbose("more"), .device,
                    OptionSpec("-o", "--output", value: "PATH|-", help: "output"),
                    OptionSpec("--frames", value: "N", range: .integer(1...Int.max), help: "frames"),
                    OptionSpec("--start", value: "N", range: .integer(1...Int.max), help: "start"),
                    OptionSpec("--rate", value: "N/D", help: "rate"),
                    OptionSpec("--effect", value: "SPEC", repeatable: true, help: "effects"),
                ])
        ])

    /// Broken invariants, in words; empty when everything held.
    public static func run(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        var violations: [String] = []
        _ = ParsedArguments.asksForHelp(arguments)
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, for: command)
        } catch let error as UsageError {
            if error.description.isEmpty { violations.append("an empty usage error") }
            return violations
        } catch {
            return ["the parser threw a \(type(of: error)), not a UsageError: \(error)"]
        }
        // Every positional is an argument given, in order.
        var rest = arguments[...]
        for positional in parsed.positionals {
            guard let at = rest.firstIndex(of: positional) else {
                violations.append("positional '\(positional)' was not given in that order")
                break
            }
            rest = rest[(at + 1)...]
        }
        // Each value the parser returns was given for its option, in either spelling.
        func given(_ name: String, _ value: String) -> Bool {
            arguments.contains(name + "=" + value)
                || zip(arguments, arguments.dropFirst()).contains { $0 == (name, value) }
        }
        for (name, spellings) in [("--frames", ["--frames"]), ("--rate", ["--rate"]), ("-o", ["-o", "--output"])] {
            if let value = parsed.string(name), !spellings.contains(where: { given($0, value) }) {
                violations.append("\(name) is '\(value)', which was not given for it")
            }
        }
        for value in parsed.strings("--effect") where !given("--effect", value) {
            violations.append("--effect '\(value)' was not given")
        }
        for name in ["--frames", "--start"] {
            do { _ = try parsed.integer(name) } catch let error as UsageError {
                if error.description.isEmpty { violations.append("an empty usage error for \(name)") }
            } catch { violations.append("\(name) threw a \(type(of: error))") }
        }
        if let text = parsed.string("--rate") { violations += checkRate(text) }
        // `--effect SPEC` grammar (a LUT reads a file: not from fuzzed paths).
        for spec in parsed.strings("--effect") where !spec.hasPrefix("lut:") {
            do { _ = try EffectParser.parse(spec, referenceWhite: 203) } catch ProResDecodeError.badRequest {
            } catch { violations.append("--effect '\(spec)' threw \(String(reflecting: error)), not a usage error") }
        }
        do { _ = try parsed.input() } catch {}
        return violations
    }

    /// `FrameRate(parsing:)`: a rate it accepts is positive, in lowest
    /// terms, within what pacing supports, and its tick arithmetic holds
    /// (no trap) over a day of ticks; one it refuses has a reason.
    static func checkRate(_ text: String) -> [String] {
        guard let rate = FrameRate(parsing: text) else {
            return FrameRate.problem(parsing: text)?.isEmpty ?? true
                ? ["--rate '\(text)' refused without a reason"] : []
        }
        var violations: [String] = []
        if rate.numerator <= 0 || rate.denominator <= 0 {
            violations.append("--rate '\(text)' parsed as \(rate.numerator)/\(rate.denominator)")
        }
        var (a, b) = (rate.numerator, rate.denominator)
        while b != 0 { (a, b) = (b, a % b) }
        if a != 1 {
            violations.append("--rate '\(text)' is \(rate.numerator)/\(rate.denominator), not in lowest terms")
        }
        if !FrameRate.supported.contains(rate.framesPerSecond) {
            violations.append("--rate '\(text)' is \(rate.framesPerSecond) fps")
        }
        // Tick k lands at its time rounded down to the nanosecond: a
        // nanosecond later is tick k again, never k + 1 or k - 1.
        for ticks in [0, 1, 2, 1001, Int(rate.framesPerSecond * 86_400)] {
            let at = rate.nanoseconds(ticks: ticks)
            if rate.ticks(in: at + 1) != ticks {
                violations.append("--rate '\(text)': tick \(ticks) at \(at) ns reads back as \(rate.ticks(in: at + 1))")
            }
        }
        return violations
    }
}
