/// One option a command accepts, as the help, the man page, docs/cli.md and
/// the completions show it. Commands never build one: each comes from a typed
/// declaration (`Flag`, `Option<Value>`), which also holds how its value is
/// read.
package struct OptionSpec: Sendable {
    /// Every spelling, in the order the help shows them (`-o, --output`).
    package let names: [String]
    /// What the value looks like (`N`, `PATH|-`, `cpu|gpu|auto`); nil for a flag.
    package let placeholder: String?
    /// May be given several times; the values are kept in order. Any other
    /// option given twice keeps its last value (a flag is simply set).
    package let repeatable: Bool
    /// One line for `-h` and the completions: it fits beside the label in 80 columns.
    package let short: String
    /// What it does, in full, for `--help`, the man page and docs/cli.md;
    /// word-wrapped to the help's width.
    package let long: String
    /// Sub-entries under the option (an effect grammar, say), each a term and
    /// what it means, laid out like options one step further in.
    package let details: [(term: String, text: String)]
    /// The numbers a numeric option accepts; the parser holds values to it
    /// and `--help` shows it.
    package let range: OptionRange?

    init(
        _ names: [String], value placeholder: String? = nil, repeatable: Bool = false, range: OptionRange? = nil,
        short: String, long: String, details: [(term: String, text: String)] = []
    ) {
        precondition(
            !names.isEmpty && names.allSatisfy { $0.hasPrefix("-") }, "an option is spelled with a leading '-'")
        precondition(!repeatable || placeholder != nil, "only an option with a value can be repeated")
        self.names = names
        self.placeholder = placeholder
        self.repeatable = repeatable
        self.short = short
        self.long = long
        self.details = details
        self.range = range
    }

    /// The same option with another text for `--help`, and for `-h` when
    /// `short` is given (a shared option whose effect a command words in its
    /// own terms).
    func explained(_ long: String, short: String?) -> OptionSpec {
        OptionSpec(
            names, value: placeholder, repeatable: repeatable, range: range, short: short ?? self.short, long: long,
            details: details)
    }

    package var takesValue: Bool { placeholder != nil }
    /// The spelling the parser files values under: the long one.
    package var key: String { names.first { $0.hasPrefix("--") } ?? names[0] }
    /// `--frames N`, `-o, --output PATH|-`: the left column of the help.
    package var helpLabel: String { names.joined(separator: ", ") + (placeholder.map { " " + $0 } ?? "") }
    /// `[--frames N]`, `[-o PATH|-]`, `[--effect SPEC]...`: the option in a
    /// usage line. A flag shows its long spelling: `[--overwrite]` says what
    /// it does where `[-y]` would not; an option with a value shows its first
    /// (the placeholder says enough).
    package var synopsis: String {
        let name = takesValue ? names[0] : key
        return "[" + name + (placeholder.map { " " + $0 } ?? "") + "]" + (repeatable ? "..." : "")
    }
}

/// Options shown together under one heading.
package struct OptionSection {
    package let heading: String
    /// The typed declarations, in the order the help lists them.
    package let declarations: [any OptionDeclaration]

    package init(heading: String, options: [any OptionDeclaration]) {
        self.heading = heading
        self.declarations = options
    }

    package var options: [OptionSpec] { declarations.map(\.spec) }
}

/// A command's whole interface: what it is called, what it takes, and the prose
/// around its options. Everything the user reads about a command comes from here.
package struct CommandSpec {
    /// The word after `prores-decode`; nil for decoding, which has none.
    package let name: String?
    /// The arguments that are not options, as usage lines show them (`INPUT`, `PATH...`).
    package let operands: String
    /// One line for the main help's list of commands.
    package let summary: String
    package let sections: [OptionSection]
    /// Prose between the usage line and the options.
    package var about = ""
    /// Prose after the options: formats, grammars, exit status.
    package var epilogue = ""

    package init(
        name: String?, operands: String, summary: String, sections: [OptionSection], about: String = "",
        epilogue: String = ""
    ) {
        self.name = name
        self.operands = operands
        self.summary = summary
        self.sections = sections
        self.about = about
        self.epilogue = epilogue
    }

    package var options: [OptionSpec] { sections.flatMap(\.options) }
    package var declarations: [any OptionDeclaration] { sections.flatMap(\.declarations) }
    /// `prores-decode check`, or `prores-decode` for decoding.
    package var invocation: String { "prores-decode" + (name.map { " " + $0 } ?? "") }
}
