import Foundation

/// A `--include`/`--exclude` pattern, matched against a file's key (its path
/// below the argument's root): `*` and `?` stay within one directory, `**`
/// crosses directories (`**/` also matches no directory at all), `[...]` is
/// a class. A pattern without `/` is matched against the file name alone,
/// as in .gitignore, so `*.mov` means every .mov at any depth.
public struct PathPattern: Sendable {
    public let text: String
    private let regex: NSRegularExpression
    private let namesOnly: Bool

    public init?(_ text: String) {
        guard !text.isEmpty, let regex = try? NSRegularExpression(pattern: Self.regex(text)) else { return nil }
        self.text = text
        self.regex = regex
        namesOnly = !text.contains("/")
    }

    public func matches(key: String) -> Bool {
        let subject = namesOnly ? String(key.split(separator: "/").last ?? "") : key
        let range = NSRange(subject.startIndex..., in: subject)
        return regex.firstMatch(in: subject, range: range) != nil
    }

    private static func regex(_ glob: String) -> String {
        var out = "^"
        var chars = Array(glob)[...]
        while let c = chars.popFirst() {
            switch c {
            case "*" where chars.first == "*":
                chars.removeFirst()
                if chars.first == "/" {
                    chars.removeFirst()
                    out += "(?:.*/)?"
                } else {
                    out += ".*"
                }
            case "*": out += "[^/]*"
            case "?": out += "[^/]"
            case "[":
                // A class up to the next ']', '!' negating as in glob(7).
                guard let close = chars.firstIndex(of: "]") else {
                    out += "\\["
                    continue
                }
                var body = String(chars[chars.startIndex..<close])
                if body.hasPrefix("!") { body = "^" + body.dropFirst() }
                out += "[" + body.replacingOccurrences(of: "\\", with: "\\\\") + "]"
                chars = chars[chars.index(after: close)...]
            default: out += NSRegularExpression.escapedPattern(for: String(c))
            }
        }
        return out + "$"
    }
}
