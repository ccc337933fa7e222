/// An entry of a command's table: a `Flag` or an `Option<Value>`. The
/// declaration is the option: its spellings, its value's type and how the
/// text becomes that value, its one-line and its full help. The parser
/// returns values by declaration (`parsed[Options.threads]`), so a name
/// typed twice cannot drift from the table.
package protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// An option without a value: set or not.
package struct Flag: OptionDeclaration {
    package let spec: OptionSpec

    /// `long` defaults to `short` where one line says everything.
    package init(_ names: String..., short: String, long: String? = nil) {
        spec = OptionSpec(names, short: short, long: long ?? short)
    }

    private init(spec: OptionSpec) { self.spec = spec }

    /// The same flag, its `--help` text (and `-h`'s, given `short`) worded for one command.
    package func explained(_ long: String, short: String? = nil) -> Flag {
        Flag(spec: spec.explained(long, short: short))
    }
}

/// An option with a value of type `Value`, read from its text by `convert`.
package struct Option<Value>: OptionDeclaration {
    package let spec: OptionSpec
    /// The value a text stands for; nil: not a value of this option (the
    /// error says what was `expected`). It may throw a `UsageError` of its own
    /// words where the text is nearly right.
    private let convert: @Sendable (String) throws -> Value?
    /// What a valid value looks like, for the error: "a whole number from 1 to 256".
    package let expected: String

    /// The general form: any type, read by `convert`.
    package init(
        names: [String], value placeholder: String, repeatable: Bool = false, range: OptionRange? = nil,
        expected: String, short: String, long: String, details: [(term: String, text: String)] = [],
        convert: @escaping @Sendable (String) throws -> Value?
    ) {
        spec = OptionSpec(
            names, value: placeholder, repeatable: repeatable, range: range, short: short, long: long,
            details: details)
        self.expected = expected
        self.convert = convert
    }

    private init(spec: OptionSpec, expected: String, convert: @escaping @Sendable (String) throws -> Value?) {
        self.spec = spec
        self.expected = expected
        self.convert = convert
    }

    /// The same option, its `--help` text (and `-h`'s, given `short`) worded for one command.
    package func explained(_ long: String, short: String? = nil) -> Option {
        Option(spec: spec.explained(long, short: short), expected: expected, convert: convert)
    }

    /// `text` as a value, or the usage error that names the option.
    package func value(of text: String) throws -> Value {
        guard let value = try convert(text) else {
            throw UsageError("invalid value '\(text)' for \(spec.key): expected \(expected)")
        }
        return value
    }
}

extension Option where Value == String {
    /// A text taken as given: a path, a name, a pattern. `long` defaults to
    /// `short` where one line says everything.
    package init(
        _ names: String..., value placeholder: String, repeatable: Bool = false, short: String, long: String? = nil,
        details: [(term: String, text: String)] = []
    ) {
        self.init(
            names: names, value: placeholder, repeatable: repeatable, expected: placeholder, short: short,
            long: long ?? short, details: details
        ) { $0 }
    }
}

extension Option where Value == Int {
    /// A whole number inside `range`.
    package init(
        _ names: String..., value placeholder: String = "N", range: ClosedRange<Int>, short: String, long: String
    ) {
        let declared = OptionRange.integer(range)
        self.init(
            names: names, value: placeholder, range: declared, expected: declared.words, short: short, long: long
        ) { PlainNumber.integer($0, in: range) }
    }
}

extension Option where Value == Double {
    /// A plain decimal inside `range` (`Double("0x10")` is 16 and
    /// `Double("1e5")` 100000; the docs promise neither).
    package init(_ names: String..., value placeholder: String, range: OptionRange, short: String, long: String) {
        self.init(names: names, value: placeholder, range: range, expected: range.words, short: short, long: long) {
            PlainNumber.real($0).flatMap { range.contains($0) ? $0 : nil }
        }
    }
}

extension Option where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
    /// One of the enum's raw values; the placeholder (`cpu|ffmpeg|gpu|auto`)
    /// and the error's list come from its cases, in their order.
    package init(_ names: String..., short: String, long: String) {
        let words = Value.allCases.map(\.rawValue)
        self.init(
            names: names, value: words.joined(separator: "|"), expected: Choices.words(words), short: short, long: long
        ) { Value(rawValue: $0) }
    }
}

/// A list of choices in words: "pass, warn or fail".
package enum Choices {
    package static func words(_ choices: [String]) -> String {
        guard let last = choices.last, choices.count > 1 else { return choices.first ?? "" }
        return choices.dropLast().joined(separator: ", ") + " or " + last
    }
}
