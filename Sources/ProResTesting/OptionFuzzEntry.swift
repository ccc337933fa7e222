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
    /// Declarations shaped like the tool's: flags with short and long
    /// spellings, values, numbers, a repeatable option, `-i`, and `--rate`.
    enum Options {
        static let input = Option<String>("-i", value: "INPUT", short: "input", long: "input")
        static let overwrite = Flag("-y", "--overwrite", short: "overwrite")
        static let noOverwrite = Flag("-n", "--no-overwrite", short: "keep")
        static let quiet = Flag("-q", "--quiet", short: "quiet")
        static let verbose = Flag("-v", "--verbose", short: "more")
        static let device = Option<String>("--device", value: "N|NAME", short: "device", long: "device")
        static let output = Option<String>("-o", "--output", value: "PATH|-", short: "output", long: "output")
        static let frames = Option<Int>("--frames", range: 1...Int.max, short: "frames", long: "frames")
        static let start = Option<Int>("--start", range: 1...Int.max, short: "start", long: "start")
        static let rate = Option<String>("--rate", value: "N/D", short: "rate", long: "rate")
        static let effect = Option<String>(
            "--effect", value: "SPEC", repeatable: true, short: "effects", long: "effects")
    }

    static let command = CommandSpec(
        name: nil, operands: "INPUT", summary: "fuzzing",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [
                    Options.input, Options.overwrite, Options.noOverwrite, Options.quiet, Options.verbose,
                    Options.device, Options.output, Options.frames, Options.start, Options.rate, Options.effect,
                ])
        ])

    /// Broken invariants, in words; empty when everything held.
    public static func run(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        var violations: [String] = []
        _ = ParsedArguments.helpAsked(arguments)
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
        for option in [Options.frames.spec, Options.rate.spec, Options.output.spec] {
            if let value = parsed.texts(of: option).last, !option.names.contains(where: { given($0, value) }) {
                violations.append("\(option.key) is '\(value)', which was not given for it")
            }
        }
        let effects = (try? parsed.every(Options.effect)) ?? []
        for value in effects where !given("--effect", value) {
            violations.append("--effect '\(value)' was not given")
        }
        for option in [Options.frames, Options.start] {
            do { _ = try parsed[option] } catch let error as UsageError {
                if error.description.isEmpty { violations.append("an empty usage error for \(option.spec.key)") }
            } catch { violations.append("\(option.spec.key) threw a \(type(of: error))") }
        }
        if let text = try? parsed[Options.rate] { violations += checkRate(text) }
        // `--effect SPEC` grammar (a LUT reads a file: not from fuzzed paths).
        for spec in effects where !spec.hasPrefix("lut:") {
            do { _ = try EffectParser.parse(spec, referenceWhite: 203) } catch ProResDecodeError.badRequest {
            } catch { violations.append("--effect '\(spec)' threw \(String(reflecting: error)), not a usage error") }
        }
        do { _ = try parsed.input(Options.input) } catch {}
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
