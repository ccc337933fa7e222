/// Text that came from outside (file names, bytes of a file, FFmpeg's log)
/// made safe to print on one terminal line: control characters would move
/// the cursor, retitle the window or hide the message (ESC sequences from a
/// junk .cube file), and a newline would split one message into two.
public enum TerminalText {
    /// `text` with every C0 and C1 control character, DEL and bidirectional
    /// override written as an escape (`\x1B`, `\u{202E}`); everything else,
    /// including the backslash and non-ASCII letters, is kept as it is. A
    /// file name's byte that is not UTF-8 (PathBytes) is written `\xFF`.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            if let escaped = PathBytes.escapedText(scalar) {
                out += escaped
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidi embeddings, overrides, isolates
        case 0x10FF80...0x10FFFF: return true  // a name's byte that is not UTF-8
        default: return false
        }
    }
}
