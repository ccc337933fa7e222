/// Just enough JSON writing for reports, with stable key order (so output
/// can be compared with checked-in snapshots).
public enum JSON {
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case _ where PathBytes.escapedByte(scalar) != nil:
                // A file name's byte that is not UTF-8, inside a message: the
                // `\xFF` that paths get (PathBytes.reportText), not the
                // private-use character that carries it in memory.
                out += "\\" + PathBytes.escapedText(scalar)!
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A finite number with at most `digits` decimals, trailing zeros trimmed.
    public static func number(_ value: Double, digits: Int = 1) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = String(rounded)
        if text.contains("e") { return text }
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    public static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    public static func array(_ items: [String]) -> String {
        "[" + items.joined(separator: ",") + "]"
    }
}
