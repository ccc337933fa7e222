/// A command-line mistake; printed as one line, exit code 2.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// What `-h` and `--help` ask for.
package enum HelpRequest: Sendable {
    /// `-h`: the usage and one line per option.
    case brief
    /// `--help`: everything, as the man page says it.
    case full
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
    /// wins over every other mistake on the line, and `--help` over `-h`.
    package static func helpAsked(_ arguments: [String]) -> HelpRequest? {
        let options = arguments.prefix { $0 != "--" }
        if options.contains("--help") { return .full }
        return options.contains("-h") ? .brief : nil
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

    /// Whether a flag was given.
    package subscript(_ flag: Flag) -> Bool { flags.contains(declared(flag.spec)) }

    /// The option's value (the last given), or nil when it is absent; a text
    /// that is not a value of the option is a usage error naming it.
    package subscript<Value>(_ option: Option<Value>) -> Value? {
        get throws {
            try values[declared(option.spec)]?.last.map(option.value(of:))
        }
    }

    /// Every value of a repeatable option, in the order given.
    package func every<Value>(_ option: Option<Value>) throws -> [Value] {
        try (values[declared(option.spec)] ?? []).map(option.value(of:))
    }

    /// Whether the option appears on the line at all.
    package func gives(_ option: some OptionDeclaration) -> Bool { isGiven(option.spec) }

    /// Whether the table entry appears on the line at all.
    package func isGiven(_ spec: OptionSpec) -> Bool {
        let key = declared(spec)
        return flags.contains(key) || values[key] != nil
    }

    /// The texts given for a table entry, as typed (a flag's: none).
    package func texts(of spec: OptionSpec) -> [String] { values[declared(spec)] ?? [] }

    /// The key of a declaration the command's table holds; asking for one it
    /// does not is a bug in the command, not the user's mistake.
    private func declared(_ spec: OptionSpec) -> String {
        guard let listed = byName[spec.key], listed.names == spec.names, listed.placeholder == spec.placeholder else {
            preconditionFailure("option '\(spec.key)' is not in the command's table")
        }
        return spec.key
    }

    /// Exactly one positional argument, named `what` in the error.
    package func single(_ what: String) throws -> String {
        guard let first = positionals.first else { throw UsageError("missing \(what) \(helpHint)") }
        guard positionals.count == 1 else { throw UsageError("unexpected argument '\(positionals[1])'") }
        return try Self.named(first, what)
    }

    /// The one input: the INPUT argument or `-i INPUT` (ffmpeg's spelling,
    /// the `flag` declaration), not both.
    package func input(_ flag: Option<String>) throws -> String {
        guard let flagged = try self[flag] else { return try single("input file") }
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
