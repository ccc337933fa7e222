import Foundation
import ProResOptions

/// A command's prose (`about`, `epilogue`) in the pieces other formats need:
/// running text, which they may re-wrap, and indented runs such as the
/// layouts table, which keep their lines. Blank lines separate paragraphs.
enum ProseBlock: Equatable {
    case paragraph(String)
    case preformatted([String])

    static func blocks(_ text: String) -> [ProseBlock] {
        var blocks: [ProseBlock] = []
        var words: [String] = []
        var lines: [String] = []
        func flush() {
            if !words.isEmpty { blocks.append(.paragraph(words.joined(separator: " "))) }
            if !lines.isEmpty { blocks.append(.preformatted(lines)) }
            (words, lines) = ([], [])
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                flush()
            } else if line.hasPrefix(" ") {
                if !words.isEmpty { flush() }
                lines.append(line)
            } else {
                if !lines.isEmpty { flush() }
                words.append(line)
            }
        }
        flush()
        return blocks
    }
}

extension CommandSpec {
    /// `prores-decode check PATH...`: how a reference names the command.
    var title: String { invocation + (operands.isEmpty ? "" : " " + operands) }
}
