/// A command-line mistake; printed as one line, exit code 2.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Strict parsing against a command's option table: unknown options, missing
/// values and malformed values are errors that name the option. An option
/// given twice keeps its last value, as ffmpeg and most tools do (a script
/// can append an override); a repeatable one keeps every value. `-` is an
/// argument (stdin/stdout), and `--` ends the options.
package struct ParsedArguments {
    package private(set) var positionals: [String] = []
    private let byName: [String: OptionSpec]
    /// Where a usage error sends the user: `(see prores-decode check --help)`.
    private let helpHint: String
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// `--help` or `-h` before any `--`, wherever it stands: asking for help
    /// wins over every other mistake on the line.
    package static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
    }

    package init(_ arguments: [String], for command: CommandSpec) throws {
        var byName: [String: OptionSpec] = [:]
        for option in command.options {
            for name in option.names {
                precondition(
                    byName.updateValue(option, forKey: name) == nil, "\(command.invocation): '\(name)' declared twice")
            }
        }
        self.byName = byName
        helpHint = "(see \(command.invocation) --help)"
        var iterator = arguments.makeIterator()
        var onlyPositionals = false
        while let argument = iterator.next() {
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = byName[name] else {
                let guess = Suggestion.closest(to: name, among: Array(byName.keys.filter { $0.hasPrefix("--") }))
                throw UsageError(
                    "unknown option '\(name)'" + (guess.map { " (did you mean '\($0)'?)" } ?? "") + " \(helpHint)")
            }
            if option.takesValue {
                guard let value = inlineValue ?? iterator.next() else {
                    throw UsageError("option '\(name)' needs a value")
                }
                // Last occurrence wins for a single-value option.
                values[option.key] = option.repeatable ? values[option.key, default: []] + [value] : [value]
            } else {
                if inlineValue != nil { throw UsageError("option '\(name)' takes no value") }
                flags.insert(option.key)
            }
        }
    }

    /// The table's key for any spelling; asking for an option the table does
    /// not declare is a bug in the command, not the user's mistake.
    private func key(_ name: String) -> String {
        guard let option = byName[name] else { preconditionFailure("option '\(name)' is not in the command's table") }
        return option.key
    }

    package func flag(_ name: String) -> Bool { flags.contains(key(name)) }

    package func string(_ name: String) -> String? { values[key(name)]?.first }

    /// Every value of a repeatable option, in the order given.
    package func strings(_ name: String) -> [String] { values[key(name)] ?? [] }

    /// The value converted by `convert`, or nil when the option is absent; a
    /// value it refuses is a usage error saying what was `expected`.
    package func value<T>(_ name: String, expected: String, _ convert: (String) -> T?) throws -> T? {
        guard let text = string(name) else { return nil }
        guard let value = convert(text) else {
            throw UsageError("invalid value '\(text)' for \(key(name)): expected \(expected)")
        }
        return value
    }

    /// A whole number within the option's declared `range`, or nil when the option is absent.
    package func integer(_ name: String) throws -> Int? {
        guard case .integer(let range)? = byName[name]?.range else {
            preconditionFailure("option '\(name)' declares no whole-number range")
        }
        return try value(name, expected: OptionRange.integer(range).words) { PlainNumber.integer($0, in: range) }
    }

    /// A finite number within the option's declared `range`, or nil when the option is absent.
    package func real(_ name: String) throws -> Double? {
        guard let range = byName[name]?.range else { preconditionFailure("option '\(name)' declares no range") }
        // Plain decimals only: Double("0x10") is 16 and Double("1e5") 100000, and the docs promise neither.
        return try value(name, expected: range.words) { text in
            PlainNumber.real(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    /// The option's declared range (nil: it has none).
    package func range(_ name: String) -> OptionRange? { byName[name]?.range }

    /// Exactly one positional argument, named `what` in the error.
    package func single(_ what: String) throws -> String {
        guard let first = positionals.first else { throw UsageError("missing \(what) \(helpHint)") }
        guard positionals.count == 1 else { throw UsageError("unexpected argument '\(positionals[1])'") }
        return try Self.named(first, what)
    }

    /// The one input: the INPUT argument or `-i INPUT` (ffmpeg's spelling), not both.
    package func input() throws -> String {
        guard let flagged = string("-i") else { return try single("input file") }
        if let first = positionals.first { throw UsageError("two inputs: '\(first)' and -i '\(flagged)'") }
        return try Self.named(flagged, "input file")
    }

    /// Every positional argument, each a file or folder name (`what` says which).
    package func operands(_ what: String) throws -> [String] {
        try positionals.map { try Self.named($0, what) }
    }

    /// An empty name is a mistake (an unset shell variable), not a file:
    /// said as such, rather than "cannot read ''".
    private static func named(_ name: String, _ what: String) throws -> String {
        guard !name.isEmpty else {
            throw UsageError("an empty \(what) name ('') names no file: is a shell variable unset?")
        }
        return name
    }

    /// No positional arguments at all.
    package func none() throws {
        if let first = positionals.first { throw UsageError("unexpected argument '\(first)'") }
    }
}
