import Glibc

/// `file:` URLs as the local paths they name (RFC 8089): `file:/path`,
/// `file:///path` and `file://localhost/path` are all `/path`, percent-escapes
/// decoded. Players and file managers hand such URLs over; libavformat's own
/// `file:` protocol takes `file:/path` only and never decodes escapes, and a
/// local path is read faster by our own readers anyway.
public enum FileURL {
    /// Whether `text` is a URL for libavformat (`http://host/clip.mov`)
    /// rather than a local name: it starts with a scheme and `://`, and no
    /// local file or folder has that name. A name that exists is a file
    /// (`a://b.mov` is the file `b.mov` in the folder `a:`); `./` in front,
    /// or `file:`, always makes it one.
    public static func isRemote(_ text: String) -> Bool {
        guard let separator = text.range(of: "://") else { return false }
        // RFC 3986's scheme: a letter, then letters, digits, '+', '-' or '.'.
        let scheme = Array(text[..<separator.lowerBound].utf8)
        func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
        guard let first = scheme.first, isLetter(first),
            scheme.allSatisfy({ isLetter($0) || (48...57).contains($0) || [43, 45, 46].contains($0) })
        else { return false }
        var info = stat()
        return PathBytes.withCString(text) { lstat($0, &info) } != 0
    }

    /// The path a `file:` URL names; nil for anything else (a plain path,
    /// another scheme, a URL naming another host, a malformed escape).
    public static func localPath(_ text: String) -> String? {
        guard text.lowercased().hasPrefix("file:") else { return nil }
        var rest = Substring(text.dropFirst(5))
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            // The authority: empty or localhost, never another machine.
            let authority = rest.prefix { $0 != "/" }
            guard authority.isEmpty || authority.lowercased() == "localhost" else { return nil }
            rest = rest.dropFirst(authority.count)
        }
        guard rest.hasPrefix("/") else { return nil }
        return percentDecoded(rest)
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        // A NUL cannot be in a path; the C calls would cut the name there.
        guard !bytes.contains(0) else { return nil }
        return PathBytes.string(bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
