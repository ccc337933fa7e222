import HostSupport
import ProResOptions

/// Lays command tables out as the text people read: help screens and usage
/// lines, all at one width, so no help text is wrapped by hand.
enum HelpFormatter {
    static let width = 80
    /// The help column never starts further right than this; a longer label
    /// gets a line of its own.
    static let widestColumn = 30

    /// A command's `--help`: usage line, what it does, options, epilogue.
    static func help(for command: CommandSpec) -> String {
        var blocks = [synopsis(command, prefix: "usage: ").joined(separator: "\n")]
        if !command.about.isEmpty { blocks.append(prose(command.about)) }
        blocks.append(optionList(command))
        if !command.epilogue.isEmpty { blocks.append(prose(command.epilogue)) }
        return blocks.joined(separator: "\n\n") + "\n"
    }

    /// A command's `-h`: the usage line, then each option's one line under
    /// its section's heading, and where the rest is.
    static func briefHelp(for command: CommandSpec) -> String {
        [
            synopsis(command, prefix: "usage: ").joined(separator: "\n"), briefOptionList(command),
            "\(command.invocation) --help: the full text",
        ].joined(separator: "\n\n") + "\n"
    }

    /// Every option's one line under its section's heading.
    static func briefOptionList(_ command: CommandSpec) -> String {
        let column = briefColumn(command)
        return command.sections.map { section in
            ([section.heading] + section.options.flatMap { columns(label($0), $0.short, at: column) })
                .joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Where `-h`'s one-line helps start: beside the widest label that fits
    /// the column, a wider label standing on a line of its own.
    static func briefColumn(_ command: CommandSpec) -> Int {
        command.options.map { label($0).count + 2 }.filter { $0 <= widestColumn }.max() ?? widestColumn
    }

    /// Every option under its section's heading, with its help beside it.
    static func optionList(_ command: CommandSpec) -> String {
        // As wide as the widest label that fits; a wider one (an outlier) takes a line of its own.
        let column = command.options.map { label($0).count + 2 }.filter { $0 <= widestColumn }.max() ?? widestColumn
        return command.sections.map { section in
            let entries = section.options.flatMap { option in
                columns(label(option), option.long + (option.range.map { " " + $0.helpNote } ?? ""), at: column)
                    + option.details.flatMap { columns("      " + $0.term, $0.text, at: column) }
            }
            return ([section.heading] + entries).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// The command with every option, wrapped at the width; continuation lines
    /// start under the operands, and each section after the first starts a line.
    static func synopsis(_ command: CommandSpec, prefix: String = "") -> [String] {
        let indent = String(repeating: " ", count: prefix.count + command.invocation.count + 1)
        var lines: [String] = []
        var line = prefix + command.invocation + (command.operands.isEmpty ? "" : " " + command.operands)
        var lineIsEmpty = false
        for (number, section) in command.sections.enumerated() {
            if number > 0 && !lineIsEmpty {
                lines.append(line)
                (line, lineIsEmpty) = (indent, true)
            }
            for option in section.options {
                if !lineIsEmpty && line.count + 1 + option.synopsis.count > width {
                    lines.append(line)
                    (line, lineIsEmpty) = (indent, true)
                }
                line += (lineIsEmpty ? "" : " ") + option.synopsis
                lineIsEmpty = false
            }
        }
        lines.append(line)
        return lines
    }

    /// `label` then `text` wrapped in a column starting at `column`; a label
    /// too wide for the column stands on a line of its own.
    static func columns(_ label: String, _ text: String, at column: Int) -> [String] {
        if text.isEmpty { return [label] }
        let pad = String(repeating: " ", count: column)
        let wrapped = wrap(text, width: max(width - column, 20))
        guard label.count + 2 <= column, let first = wrapped.first else {
            return [label] + wrapped.map { pad + $0 }
        }
        return [label.padding(toLength: column, withPad: " ", startingAt: 0) + first]
            + wrapped.dropFirst().map { pad + $0 }
    }

    /// Greedy word wrap of each line of `text` that is too long, its
    /// continuation lines indented as it is; lines that fit stay as written.
    static func wrap(_ text: String, width: Int) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { paragraph -> [String] in
            guard paragraph.count > width else { return [String(paragraph)] }
            let indent = String(paragraph.prefix { $0 == " " })
            var lines: [String] = []
            var line = indent
            for word in paragraph.split(separator: " ") {
                if line.count > indent.count && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = indent
                }
                line += (line.count > indent.count ? " " : "") + word
            }
            return lines + [line]
        }
    }

    /// Prose blocks: as written, long lines wrapped.
    static func prose(_ text: String) -> String { wrap(text, width: width).joined(separator: "\n") }

    static func label(_ option: OptionSpec) -> String { "  " + option.helpLabel }
}
