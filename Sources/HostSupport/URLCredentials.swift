/// Credentials in URLs (`http://user:pass@host/clip.mov`), hidden wherever a
/// URL is shown: every report, golden file, log line and message names such
/// a URL as `http://user:***@host/clip.mov`. The user name stays (it tells
/// accounts apart); a user part without a password (`http://TOKEN@host/`)
/// is wholly a secret and shows as `***@host`. Anything can pass through:
/// text holding no `scheme://…@` is returned unchanged.
public enum URLCredentials {
    /// `text` with the password of every URL in it replaced by `***`.
    public static func redacted(_ text: String) -> String {
        guard text.contains("://"), text.contains("@") else { return text }
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            result += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            // The authority ends at the path, query, fragment or any blank; its
            // user part, at its last '@' (a password may hold '@' unescaped).
            let authority = rest.prefix { !"/?#".contains($0) && !$0.isWhitespace && $0 != "'" && $0 != "\"" }
            guard let at = authority.lastIndex(of: "@") else { continue }
            let user = authority[..<at]
            if let colon = user.firstIndex(of: ":") {
                result += user[..<colon] + ":***"
            } else {
                result += "***"
            }
            rest = rest[at...]
        }
        return result + rest
    }

    /// An input as a message or summary names it: a URL redacted, a local
    /// name (which may hold `://` and `@`) as it is.
    public static func shown(_ input: String) -> String {
        FileURL.isRemote(input) ? redacted(input) : input
    }

    /// Whether `url`'s authority holds a user part.
    public static func present(in url: String) -> Bool {
        redacted(url) != url
    }
}
