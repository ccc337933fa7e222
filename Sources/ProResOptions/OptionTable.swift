/// One option a command accepts, declared once: the parser, the command's
/// `--help`, the main help and README.md's usage block are all made from it.
package struct OptionSpec {
    /// Every spelling, in the order the help shows them (`-o, --output`).
    package let names: [String]
    /// What the value looks like (`N`, `PATH|-`, `cpu|gpu|auto`); nil for a flag.
    package let placeholder: String?
    /// May be given several times; the values are kept in order. Any other
    /// option given twice keeps its last value (a flag is simply set).
    package let repeatable: Bool
    /// What it does; word-wrapped to the help's width.
    package let help: String
    /// Sub-entries under the option (an effect grammar, say), each a term and
    /// what it means, laid out like options one step further in.
    package let details: [(term: String, text: String)]
    /// The numbers a numeric option accepts; the parser holds values to it
    /// (`ParsedArguments.integer`, `.real`) and `--help` shows it.
    package let range: OptionRange?

    package init(
        _ names: String..., value placeholder: String? = nil, repeatable: Bool = false, range: OptionRange? = nil,
        help: String,
        details: [(term: String, text: String)] = []
    ) {
        precondition(
            !names.isEmpty && names.allSatisfy { $0.hasPrefix("-") }, "an option is spelled with a leading '-'")
        precondition(!repeatable || placeholder != nil, "only an option with a value can be repeated")
        self.names = names
        self.placeholder = placeholder
        self.repeatable = repeatable
        self.help = help
        self.details = details
        self.range = range
    }

    package var takesValue: Bool { placeholder != nil }
    /// The spelling the code asks the parser for: the long one.
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
    package let options: [OptionSpec]

    package init(heading: String, options: [OptionSpec]) {
        self.heading = heading
        self.options = options
    }
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
    /// `prores-decode check`, or `prores-decode` for decoding.
    package var invocation: String { "prores-decode" + (name.map { " " + $0 } ?? "") }
}

extension OptionSpec {
    /// `-y`, `-n`, `-v`, `-q`: ffmpeg's short spellings, the same in every command.
    package static let overwrite = OptionSpec("-y", "--overwrite", help: "replace existing output files")
    package static let noOverwrite = OptionSpec(
        "-n", "--no-overwrite",
        help: "never replace an existing output: exit 6 before doing anything if one exists "
            + "(the default, made explicit; contradicts -y)")
    package static func verbose(_ help: String) -> OptionSpec { OptionSpec("-v", "--verbose", help: help) }
    package static let quiet = OptionSpec("-q", "--quiet", help: "no progress line, warnings or summary on stderr")
    /// `-i INPUT`: ffmpeg's input flag, for the commands that take one INPUT.
    package static let input = OptionSpec(
        "-i", value: "INPUT", help: "the input, as ffmpeg takes it (instead of the INPUT argument)")

    /// `--device`, the same for every command that uses the GPU.
    package static let device = OptionSpec(
        "--device", value: "N|NAME",
        help: "Vulkan device: its index in the devices list, or part of its name or driver's name "
            + "(default: a discrete GPU, else an integrated one, else Mesa lavapipe)")
}
