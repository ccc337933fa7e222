import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline

/// A command-line mistake; printed as one line, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One option a command accepts.
struct OptionSpec {
    let names: [String]
    let takesValue: Bool
    /// May be given several times; the values are kept in order.
    var repeatable = false
    var canonical: String { names[0] }

    static func flag(_ names: String...) -> OptionSpec { OptionSpec(names: names, takesValue: false) }
    static func value(_ names: String...) -> OptionSpec { OptionSpec(names: names, takesValue: true) }
    static func repeated(_ names: String...) -> OptionSpec { OptionSpec(names: names, takesValue: true, repeatable: true) }
}

/// Strict parsing: unknown options, missing values, repeated options and
/// malformed numbers are errors that name the option. `-` is an argument
/// (stdin/stdout), and `--` ends the options.
struct ParsedArguments {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var lists: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(_ arguments: [String], accepting specs: [OptionSpec]) throws {
        var byName: [String: OptionSpec] = [:]
        for spec in specs { for name in spec.names { byName[name] = spec } }
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
            guard let spec = byName[name] else { throw UsageError("unknown option '\(name)' (see --help)") }
            if flags.contains(spec.canonical) || values[spec.canonical] != nil {
                throw UsageError("option '\(name)' given more than once")
            }
            if spec.takesValue {
                guard let value = inlineValue ?? iterator.next() else { throw UsageError("option '\(name)' needs a value") }
                if spec.repeatable {
                    lists[spec.canonical, default: []].append(value)
                } else {
                    values[spec.canonical] = value
                }
            } else {
                if inlineValue != nil { throw UsageError("option '\(name)' takes no value") }
                flags.insert(spec.canonical)
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func string(_ name: String) -> String? { values[name] }

    /// Every value of a repeatable option, in the order given.
    func strings(_ name: String) -> [String] { lists[name] ?? [] }

    /// A whole number within `range`, or nil when the option is absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            let bound = range.upperBound == Int.max ? "≥ \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw UsageError("invalid value '\(text)' for \(name): expected a whole number \(bound)")
        }
        return number
    }

    /// Exactly one positional argument, named `what` in the error.
    func single(_ what: String) throws -> String {
        guard let first = positionals.first else { throw UsageError("missing \(what) (see --help)") }
        guard positionals.count == 1 else { throw UsageError("unexpected argument '\(positionals[1])'") }
        return first
    }
}
