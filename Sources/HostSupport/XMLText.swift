/// Text made safe for XML 1.0 attribute values and character data, and so
/// for HTML and SVG too (the JUnit report, the check page, charts).
///
/// Why more than the five entities: XML 1.0 forbids most control characters
/// even as references (`&#1;` is invalid), and file names and FFmpeg messages
/// may hold them; they become U+FFFD. Tab, line feed and carriage return are
/// written as references so attribute values keep them.
public enum XMLText {
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value):
                out += "\u{FFFD}"
            case _ where PathBytes.escapedByte(scalar) != nil:
                out += PathBytes.escapedText(scalar)!  // a name's byte that is not UTF-8
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
